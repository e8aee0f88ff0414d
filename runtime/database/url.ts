/** Database URLs: which backend one names, and how to show it without its password. */
import { resolve } from 'node:path';
import { DatabaseError } from './errors.js';

/** The variable that names the database, for every process that opens it (API server, CLI). */
export const DATABASE_URL_VARIABLE = 'ECA_DATABASE_URL';
/** Embedded PostgreSQL beside the document store (`.data/documents`), so that nothing needs setting up. */
export const DEFAULT_DATABASE_URL = 'pglite:.data/database';

export type DatabaseTarget =
  | { kind: 'postgres'; connectionString: string; password: string; display: string }
  | { kind: 'embedded'; directory: string };

/** The database URL of the environment, or the default. */
export function databaseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return env[DATABASE_URL_VARIABLE]?.trim() || DEFAULT_DATABASE_URL;
}

/** `url` with its password replaced, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unreadable URL)';
  }
}

/**
 * `postgres://…` or `postgresql://…`: a PostgreSQL server; `pglite:<directory>`, or a path with no
 * scheme: embedded PostgreSQL (PGlite) with its files in that directory, relative to the working
 * directory. Anything else is refused, naming the scheme only (the rest may hold a password).
 */
export function parseDatabaseUrl(url: string): DatabaseTarget {
  const text = url.trim();
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === 'postgres' || scheme === 'postgresql') {
    let parsed: URL;
    try {
      parsed = new URL(text);
    } catch {
      throw new DatabaseError('url', `the database URL is not a valid ${scheme}:// URL`);
    }
    if (!parsed.hostname && !parsed.searchParams.get('host')) {
      throw new DatabaseError('url', `the database URL ${redactUrl(text)} names no host`);
    }
    return {
      kind: 'postgres',
      connectionString: text,
      password: decodeURIComponent(parsed.password),
      display: redactUrl(text),
    };
  }
  if (scheme !== undefined && scheme !== 'pglite') {
    throw new DatabaseError(
      'url',
      `the database URL has the scheme "${scheme}:"; give postgres://user:password@host/database or pglite:<directory>`,
    );
  }
  const directory = scheme === 'pglite' ? text.slice('pglite:'.length) : text;
  if (directory === '') throw new DatabaseError('url', 'the database URL pglite: names no directory');
  return { kind: 'embedded', directory: resolve(directory) };
}

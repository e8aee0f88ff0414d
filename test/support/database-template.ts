/**
 * A migrated embedded database that tests start from. A new PGlite directory costs about 10 s of CPU
 * (PostgreSQL's initdb, then the migrations), a copy of one made before under a second: the suite opens
 * dozens. The template is made once per user and schema (the migrations and PGlite's version) by the
 * engine's own open (openDatabase), kept in the tools' cache (scripts/cache.ts), and copied into a test's
 * directory before the engine opens it there. The first open of a new directory stays tested on its own
 * (test/e2e/runtime/database.test.ts opens new directories without a template).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { MIGRATIONS, openDatabase } from '../../runtime/database/index.js';
import type { Database } from '../../runtime/database/index.js';
import { buildAtomically, cacheRoot, provisionOnce } from '../../scripts/cache.js';

/** PGlite's data directory inside the engine's directory (runtime/database/embedded.ts). */
const DATA_DIRECTORY = 'pgdata';

/** PGlite's version, from its manifest (the package exports no `./package.json`). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
}

/** The template's directory for today's schema: a new migration or PGlite version makes another. */
function templateDirectory(): string {
  const schema = createHash('sha256')
    .update(pgliteVersion())
    .update(JSON.stringify(MIGRATIONS))
    .digest('hex')
    .slice(0, 16);
  return join(cacheRoot(), 'pglite-template', schema);
}

let made: Promise<string> | undefined;

/** The template (made on first use, by one process however many ask at once). */
function template(): Promise<string> {
  made ??= (async () => {
    const dir = templateDirectory();
    const ready = () => Promise.resolve(existsSync(join(dir, DATA_DIRECTORY, 'PG_VERSION')));
    await provisionOnce(dir, ready, () =>
      buildAtomically(dir, async (building) => {
        const db = await openDatabase(`pglite:${building}`);
        await db.close();
      }),
    );
    return dir;
  })();
  return made;
}

/**
 * Makes `directory` a new embedded database with today's schema, from the template, and returns it; a
 * directory that holds a database already is left as it is.
 */
export async function seedEmbedded(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  if (!existsSync(join(directory, DATA_DIRECTORY))) {
    await cp(join(await template(), DATA_DIRECTORY), join(directory, DATA_DIRECTORY), { recursive: true });
  }
  return directory;
}

/** The URL of a new embedded database in `directory` (seeded: see {@link seedEmbedded}). */
export async function seededEmbeddedUrl(directory: string): Promise<string> {
  return `pglite:${await seedEmbedded(directory)}`;
}

/** A new embedded database in `directory`, open (seeded: see {@link seedEmbedded}). */
export async function openSeededDatabase(directory: string): Promise<Database> {
  return openDatabase(await seededEmbeddedUrl(directory));
}

/**
 * Where the document store is (ECA_DOCUMENT_STORE, `--document-store`): a directory, for the
 * filesystem store shared by every host (document-store.ts); or a database URL, `postgres://…` /
 * `postgresql://…` or `pglite:<directory>`, for the store in the engine's database
 * (document-store-postgres.ts) when hosts share no disk. The database's drivers are loaded only for a URL.
 */
import { ConfigurationError } from './config-error.js';
import type { CodecKeyring } from '../codec/keyring.js';
import { FileDocumentStore } from './document-store.js';
import type { MaintainedDocumentStore } from './document-store.js';
import { PostgresDocumentStore } from './document-store-postgres.js';

export const DEFAULT_DOCUMENT_STORE = '.data/documents';

export type DocumentStoreLocation = { kind: 'files'; root: string } | { kind: 'database'; url: string };

const DATABASE_SCHEMES = new Set(['postgres', 'postgresql', 'pglite']);

/**
 * What `location` names, or why it names nothing (the message never repeats the location: a URL may
 * hold a password). A scheme of one letter is a Windows drive, hence a directory.
 */
export function parseDocumentStoreLocation(location: string): DocumentStoreLocation | { problem: string } {
  const text = location.trim();
  if (text === '') return { problem: 'give a directory or a database URL' };
  const scheme = /^([a-z][a-z0-9+.-]+):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'files', root: text };
  if (!DATABASE_SCHEMES.has(scheme)) {
    return {
      problem:
        `the scheme "${scheme}:" names no document store; give a directory, ` +
        'postgres://user:password@host/database or pglite:<directory>',
    };
  }
  if (scheme === 'pglite' && text.slice('pglite:'.length).trim() === '') {
    return { problem: 'pglite: names no directory' };
  }
  return { kind: 'database', url: text };
}

export interface OpenDocumentStoreOptions {
  /** The codec keys (ECA_CODEC_KEYS): documents are sealed under them, as in either store. */
  keyring?: CodecKeyring;
  /**
   * Open a database at first use rather than now: for a client, most of whose commands never touch a
   * document. A worker opens it now, so that a wrong URL stops its start.
   */
  lazy?: boolean;
}

/**
 * The store `location` names (see the module's head); a ConfigurationError when it names none. A
 * database store opens (and migrates) the database itself, and closes it on `close`.
 */
export async function openDocumentStore(
  location: string = DEFAULT_DOCUMENT_STORE,
  options: OpenDocumentStoreOptions = {},
): Promise<MaintainedDocumentStore> {
  const parsed = parseDocumentStoreLocation(location);
  if ('problem' in parsed) throw new ConfigurationError(`ECA_DOCUMENT_STORE: ${parsed.problem}`);
  if (parsed.kind === 'files') return new FileDocumentStore(parsed.root, { keyring: options.keyring });
  const { openDatabase, redactUrl } = await import('./database/index.js');
  const open = () => openDatabase(parsed.url);
  const store = new PostgresDocumentStore(options.lazy ? open : await open(), {
    keyring: options.keyring,
    display: redactUrl(parsed.url),
    ownsDatabase: true,
  });
  return store;
}

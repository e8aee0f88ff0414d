/**
 * The document stores every store test runs on, each on a fresh place of its own: the filesystem store
 * in a temporary directory, and the database store on a real PostgreSQL and on embedded PGlite
 * (databases.ts). Besides the stores, each place shows what it keeps at rest, as it is kept, for the
 * tests to look at (and tamper with) behind the store's back.
 */
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CodecKeyring } from '../../codec/keyring.js';
import { openDatabase } from '../../runtime/database/index.js';
import type { Database } from '../../runtime/database/index.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import type { MaintainedDocumentStore } from '../../runtime/document-store.js';
import { PostgresDocumentStore } from '../../runtime/document-store-postgres.js';
import { useDatabaseBackends } from './databases.js';

export interface StorePlace {
  /** The location ECA_DOCUMENT_STORE would name: a directory or a database URL. */
  location: string;
  /** A store on this place with these keys (several may be open on one place). */
  open(keyring?: CodecKeyring): MaintainedDocumentStore;
  /** Every byte kept at rest: file names and contents, or every row's every column. */
  atRest(): Promise<Buffer>;
  /** The bytes kept for one document, as kept; undefined when it is not there. */
  stored(ref: string): Promise<Buffer | undefined>;
  /** Replaces the bytes kept for one document behind the store's back. */
  overwrite(ref: string, bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

export interface StoreBackend {
  readonly kind: 'files' | 'postgres' | 'embedded';
  fresh(): Promise<StorePlace>;
}

async function filePlace(): Promise<StorePlace> {
  const dir = await mkdtemp(join(tmpdir(), 'eca-stores-'));
  return {
    location: dir,
    open: (keyring) => new FileDocumentStore(dir, { keyring }),
    async atRest() {
      const parts: Buffer[] = [];
      for (const entry of await readdir(dir, { recursive: true })) {
        parts.push(Buffer.from(entry));
        if ((await stat(join(dir, entry))).isFile()) parts.push(await readFile(join(dir, entry)));
      }
      return Buffer.concat(parts);
    },
    stored: (ref) => readFile(join(dir, ref)).catch(() => undefined),
    overwrite: (ref, bytes) => writeFile(join(dir, ref), bytes),
    close: () => rm(dir, { recursive: true, force: true }),
  };
}

/** Every column of the store's tables, as text or bytes. */
const AT_REST = [
  'SELECT ref AS a, sealed AS b FROM documents',
  'SELECT ref AS a, holder AS b FROM document_holders',
  'SELECT owner_key AS a, sealed AS b FROM document_closing_owners',
];

async function databasePlace(url: string): Promise<StorePlace> {
  const db: Database = await openDatabase(url);
  return {
    location: url,
    open: (keyring) => new PostgresDocumentStore(db, { keyring }),
    async atRest() {
      const parts: Buffer[] = [];
      for (const sql of AT_REST) {
        for (const row of await db.query<{ a: string; b: string | Uint8Array }>(sql)) {
          parts.push(Buffer.from(row.a), Buffer.from(row.b));
        }
      }
      return Buffer.concat(parts);
    },
    async stored(ref) {
      const [row] = await db.query<{ sealed: Uint8Array }>('SELECT sealed FROM documents WHERE ref = $1', [ref]);
      return row && Buffer.from(row.sealed);
    },
    async overwrite(ref, bytes) {
      await db.query('UPDATE documents SET sealed = $2 WHERE ref = $1', [ref, bytes]);
    },
    close: () => db.close(),
  };
}

/**
 * Registers the hooks of the database servers (call it inside a describe): the filesystem, then each
 * database backend there is here (PostgreSQL where its binaries are installed, see databases.ts).
 */
export function useStoreBackends(): StoreBackend[] {
  const databases = useDatabaseBackends();
  return [
    { kind: 'files', fresh: filePlace },
    ...databases.all.map((backend) => ({
      kind: backend.kind,
      fresh: async () => databasePlace(await backend.freshUrl()),
    })),
  ];
}

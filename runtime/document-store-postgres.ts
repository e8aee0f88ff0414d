/**
 * The document store in the engine's database (PostgreSQL, or embedded PGlite): for hosts that share
 * no disk. The same semantics as the filesystem store (document-store.ts): content-addressed, the same
 * references (`hmac/<2>/<name>` with a keyring, `sha1/<2>/<sha1>` without), each blob sealed exactly as
 * the filesystem store seals its file (document-sealing.ts, bound to the reference), so a reference and
 * the bytes at rest mean the same in either store. Tables: migration 2 (database/migrations.ts).
 *
 * Concurrency is the database's: a put locks its document's row (inserting it, or `ON CONFLICT DO
 * UPDATE` on the row there) before it records its holder, and a release locks the rows it may delete
 * before it reads their holders again; `take` is one `DELETE … RETURNING` in a transaction that is
 * rolled back when the bytes cannot be handed out, so that of concurrent takers exactly one gets them.
 */
import type { CodecKeyring } from '../codec/keyring.js';
import type { DocumentRef, ReleaseReport } from '../domain/documents.js';
import type { Database } from './database/index.js';
import { DocumentNotFound, DocumentUndecryptable } from './document-errors.js';
import {
  blobName,
  checkDocument,
  CLOSING,
  CLOSING_REF,
  openBlob,
  ownerKey,
  refOfName,
  sha1Of,
  UNOWNED,
} from './document-refs.js';
import { DocumentKeys } from './document-sealing.js';
import type { ClosingOwner, MaintainedDocumentStore, PutOptions, ReencryptOutcome } from './document-store.js';

export interface PostgresDocumentStoreOptions {
  /** Encrypts what is stored, as the filesystem store does; without it blobs are stored in the clear. */
  keyring?: CodecKeyring;
  /** Where the store is, for messages (never with a password): `the database` by default. */
  display?: string;
  /** `close` closes the database too (it was opened for this store alone). */
  ownsDatabase?: boolean;
}

/** A database, or how to open it at first use (a client that may never touch a document). */
export type DatabaseSource = Database | (() => Promise<Database>);

function bytesOf(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value);
}

export class PostgresDocumentStore implements MaintainedDocumentStore {
  private readonly keys: DocumentKeys;
  private readonly display: string;
  private readonly source: DatabaseSource;
  private opening: Promise<Database> | undefined;

  constructor(
    database: DatabaseSource,
    private readonly options: PostgresDocumentStoreOptions = {},
  ) {
    this.source = database;
    this.keys = new DocumentKeys(options.keyring);
    this.display = options.display ?? 'the database';
  }

  get encrypts(): boolean {
    return this.keys.encrypts;
  }

  get currentKeyId(): string | undefined {
    return this.keys.currentKeyId;
  }

  /** The database, opened at first use when it was given as a function; a failed open is tried again next time. */
  database(): Promise<Database> {
    if (typeof this.source !== 'function') return Promise.resolve(this.source);
    this.opening ??= this.source().catch((error: unknown) => {
      this.opening = undefined;
      throw error;
    });
    return this.opening;
  }

  async put(data: Uint8Array, options: PutOptions = {}): Promise<DocumentRef> {
    const sha1 = sha1Of(data);
    const ref = refOfName(this.keys.nameOf(data) ?? sha1);
    const holder = options.owner === undefined ? UNOWNED : ownerKey(options.owner);
    const sealed = this.keys.seal(data, ref);
    const db = await this.database();
    await db.transaction(async (tx) => {
      // Inserted, or the row there locked unchanged: a release deciding on this document waits for the holder.
      await tx.query(
        `INSERT INTO documents (ref, sealed) VALUES ($1, $2)
           ON CONFLICT (ref) DO UPDATE SET stored_at = documents.stored_at`,
        [ref, bytesOf(sealed)],
      );
      await tx.query('INSERT INTO document_holders (ref, holder) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
        ref,
        holder,
      ]);
    });
    return { sha1, length: data.byteLength, ref };
  }

  private notFound(ref: string): DocumentNotFound {
    return new DocumentNotFound(`document ${ref} is not in the store at ${this.display}`);
  }

  async get(ref: DocumentRef): Promise<Uint8Array> {
    return checkDocument(ref, await this.read(ref.ref), this.display);
  }

  async read(ref: string): Promise<Buffer> {
    const blob = blobName(ref);
    const db = await this.database();
    const [row] = await db.query<{ sealed: Uint8Array }>('SELECT sealed FROM documents WHERE ref = $1', [ref]);
    if (!row) throw this.notFound(ref);
    return openBlob(this.keys, blob, bytesOf(row.sealed), this.display);
  }

  async take(ref: DocumentRef): Promise<Uint8Array> {
    const blob = blobName(ref.ref);
    const db = await this.database();
    // Rolled back when the bytes cannot be handed out (their key is missing, say): kept for a later call.
    return db.transaction(async (tx) => {
      const [row] = await tx.query<{ sealed: Uint8Array }>('DELETE FROM documents WHERE ref = $1 RETURNING sealed', [
        ref.ref,
      ]);
      if (!row) throw this.notFound(ref.ref);
      return checkDocument(ref, openBlob(this.keys, blob, bytesOf(row.sealed), this.display), this.display);
    });
  }

  async delete(ref: Pick<DocumentRef, 'ref'>): Promise<void> {
    blobName(ref.ref);
    const db = await this.database();
    // Its holders go with it (ON DELETE CASCADE).
    await db.query('DELETE FROM documents WHERE ref = $1', [ref.ref]);
  }

  async releaseWhenClosed(owner: string): Promise<void> {
    const key = ownerKey(owner);
    const record = JSON.stringify({ owner, since: Date.now() } satisfies ClosingOwner);
    const sealed = bytesOf(this.keys.seal(Buffer.from(record), `${CLOSING}/${key}`));
    const db = await this.database();
    await db.query(
      'INSERT INTO document_closing_owners (owner_key, sealed) VALUES ($1, $2) ON CONFLICT (owner_key) DO NOTHING',
      [key, sealed],
    );
  }

  async closingOwners(): Promise<{ owners: ClosingOwner[]; unreadable: number }> {
    const db = await this.database();
    const rows = await db.query<{ owner_key: string; sealed: Uint8Array }>(
      'SELECT owner_key, sealed FROM document_closing_owners ORDER BY recorded_at, owner_key',
    );
    const owners: ClosingOwner[] = [];
    let unreadable = 0;
    for (const row of rows) {
      try {
        owners.push(
          JSON.parse(this.keys.unseal(bytesOf(row.sealed), `${CLOSING}/${row.owner_key}`).toString()) as ClosingOwner,
        );
      } catch {
        unreadable++;
      }
    }
    return { owners, unreadable };
  }

  /**
   * Releases every document `owner` stored: each is deleted when no other owner holds it and it was
   * never stored without an owner. The rows that may go are locked first (in order, so that two
   * releases never wait on each other), then their holders read again: a put that locked one first
   * is seen as its holder; one that comes after finds the row gone and stores it anew.
   */
  async release(owner: string): Promise<ReleaseReport> {
    const key = ownerKey(owner);
    const db = await this.database();
    return db.transaction(async (tx) => {
      const held = await tx.query<{ ref: string }>('DELETE FROM document_holders WHERE holder = $1 RETURNING ref', [
        key,
      ]);
      await tx.query('DELETE FROM document_closing_owners WHERE owner_key = $1', [key]);
      const refs = held.map((row) => row.ref);
      if (refs.length === 0) return { deleted: 0, kept: 0 };
      const locked = await tx.query('SELECT ref FROM documents WHERE ref = ANY($1) ORDER BY ref FOR UPDATE', [refs]);
      const deleted = await tx.query(
        `DELETE FROM documents d WHERE d.ref = ANY($1)
           AND NOT EXISTS (SELECT 1 FROM document_holders h WHERE h.ref = d.ref) RETURNING ref`,
        [refs],
      );
      const kept = locked.length - deleted.length;
      return { deleted: refs.length - kept, kept };
    });
  }

  async list(): Promise<string[]> {
    const db = await this.database();
    return (await db.query<{ ref: string }>('SELECT ref FROM documents ORDER BY ref')).map((row) => row.ref);
  }

  async sealedFiles(): Promise<string[]> {
    const db = await this.database();
    const records = await db.query<{ owner_key: string }>(
      'SELECT owner_key FROM document_closing_owners ORDER BY owner_key',
    );
    return [...(await this.list()), ...records.map((row) => `${CLOSING}/${row.owner_key}`)];
  }

  /**
   * Seals one record anew under the current key, its row locked meanwhile: a take or a release of it
   * waits, and one that came first leaves nothing to re-encrypt (`gone`).
   */
  async reencrypt(ref: string, options: { dryRun?: boolean } = {}): Promise<ReencryptOutcome> {
    const closing = CLOSING_REF.exec(ref);
    const blob = closing ? undefined : blobName(ref);
    const currentKeyId = this.keys.currentKeyId;
    if (currentKeyId === undefined) throw new DocumentUndecryptable('re-encryption needs a keyring (ECA_CODEC_KEYS)');
    const [table, column, id] = closing
      ? (['document_closing_owners', 'owner_key', closing[1]!] as const)
      : (['documents', 'ref', ref] as const);
    const db = await this.database();
    return db.transaction(async (tx) => {
      const [row] = await tx.query<{ sealed: Uint8Array }>(
        `SELECT sealed FROM ${table} WHERE ${column} = $1 FOR UPDATE`,
        [id],
      );
      if (!row) return 'gone';
      const stored = bytesOf(row.sealed);
      if (this.keys.keyIdOf(stored) === currentKeyId) return 'current';
      const data = blob ? openBlob(this.keys, blob, stored, this.display) : this.keys.unseal(stored, ref);
      if (options.dryRun) return 'reencrypted';
      await tx.query(`UPDATE ${table} SET sealed = $2 WHERE ${column} = $1`, [id, bytesOf(this.keys.seal(data, ref))]);
      return 'reencrypted';
    });
  }

  /** Closes the database when it was opened for this store alone (and was opened at all). */
  async close(): Promise<void> {
    if (!this.options.ownsDatabase) return;
    if (typeof this.source !== 'function') return this.source.close();
    const opening = this.opening;
    this.opening = undefined;
    if (opening) await (await opening.catch(() => undefined))?.close();
  }
}

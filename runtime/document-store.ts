/**
 * Content-addressed store for application XML, PDFs and response files: workflows carry a
 * `DocumentRef` ({ sha1, length, ref }) and never the bytes, so neither documents nor personal data
 * enter workflow history. The filesystem store is the default; its root must be shared by the
 * client (which puts documents) and the workers (which read them). Where hosts share no disk, the
 * engine's database keeps them instead (document-store-postgres.ts, the same references and sealing):
 * `openDocumentStore` (document-store-location.ts) opens the one ECA_DOCUMENT_STORE names.
 *
 * The SDK's external payload storage offloads payloads by size, transparently; the engine needs more:
 * the SHA-1 and length are part of the brokerage's request XML, and workflows decide on them without
 * loading the files.
 *
 * With a keyring (the payload codec's, `ECA_CODEC_KEYS`) every file is sealed at rest and every blob
 * named by a keyed hash of its content (document-sealing.ts): `hmac/<2>/<name>`. Without one, blobs
 * are written in the clear under their SHA-1, `sha1/<2>/<sha1>`; a store given keys since still reads
 * them. `eca keys rotate` (document-rotation.ts) re-encrypts every file under the newest key (and
 * seals those in the clear), so that an older key can be dropped.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { CodecKeyring } from '../codec/keyring.js';
import type { DocumentRef, ReleaseReport } from '../domain/documents.js';
import { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable } from './document-errors.js';
import {
  BLOB_NAME,
  blobName,
  checkDocument,
  CLOSING,
  closingRef,
  CLOSING_REF,
  KEYED_REF,
  openBlob,
  ownerKey,
  refOfName,
  sha1Of,
  SHA1_REF,
  UNOWNED,
} from './document-refs.js';
import type { BlobName } from './document-refs.js';
import { DocumentKeys } from './document-sealing.js';

export { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable, sha1Of };

export interface DocumentStore {
  /** Stores the bytes; with `owner` (an application's workflow id) the document is recorded as that application's. */
  put(data: Uint8Array, options?: PutOptions): Promise<DocumentRef>;
  /** The bytes, checked against the reference's SHA-1 and length. */
  get(ref: DocumentRef): Promise<Uint8Array>;
  /**
   * The bytes, removed from the store in the same step (a temporary password handed out): of calls
   * at the same time exactly one gets them, the others DocumentNotFound, as after the removal.
   */
  take(ref: DocumentRef): Promise<Uint8Array>;
  /** Removes a document; nothing happens when it is not there. */
  delete(ref: Pick<DocumentRef, 'ref'>): Promise<void>;
  /**
   * Records `owner` as a workflow whose documents are released once it has closed (a maintenance
   * request's body and attachments), by the sweep of the document retention (activities/retention.ts).
   */
  releaseWhenClosed(owner: string): Promise<void>;
}

/** What `reencrypt` did with one sealed record. */
export type ReencryptOutcome = 'reencrypted' | 'current' | 'gone';

/**
 * What the document retention (activities/retention.ts) and the key rotation (document-rotation.ts)
 * ask of a store beyond DocumentStore. The filesystem store and the database store
 * (document-store-postgres.ts) both have it; `openDocumentStore` (document-store-location.ts) opens either.
 */
export interface MaintainedDocumentStore extends DocumentStore {
  /** Whether new documents are sealed (a keyring was given). */
  readonly encrypts: boolean;
  /** The key new documents are sealed under; undefined without a keyring. */
  readonly currentKeyId: string | undefined;
  /** The bytes stored under a reference's `ref` (as `list` gives them), decrypted. */
  read(ref: string): Promise<Uint8Array>;
  /** Releases every document `owner` stored: each is deleted once no other owner holds it. */
  release(owner: string): Promise<ReleaseReport>;
  /** The owners recorded by `releaseWhenClosed` and not released since; `unreadable` counts records whose key is missing. */
  closingOwners(): Promise<{ owners: ClosingOwner[]; unreadable: number }>;
  /** The reference (`ref`) of every stored document. */
  list(): Promise<string[]>;
  /** The reference of every sealed record: the documents, and the records of `releaseWhenClosed`. */
  sealedFiles(): Promise<string[]>;
  /**
   * Seals one record (`sealedFiles`) anew under the current key: `current` when it is already, `gone`
   * when it was removed meanwhile; DocumentUndecryptable when its key is missing (it is left as it is).
   */
  reencrypt(ref: string, options?: { dryRun?: boolean }): Promise<ReencryptOutcome>;
  /** Lets go of what the store holds open (a database's connections). */
  close(): Promise<void>;
}

/** Beside each blob, a folder of its holders: one empty file per owner key, or UNOWNED. */
const HOLDERS = '.holders';
/** A blob being handed out (`take`) is moved here first: one caller's rename succeeds. */
const CLAIMED = '.claimed';

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => {
      if (isMissing(error)) return false;
      throw error;
    },
  );
}

/** Write then rename: a reader never sees a partial file, and two writers of the same content agree. */
async function writeAtomically(path: string, data: Uint8Array): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${randomUUID()}.tmp`;
  try {
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, path);
  } finally {
    await rm(tmp, { force: true });
  }
}

/** Where a blob is: its reference and name (document-refs.ts), and its file. */
interface BlobPlace extends BlobName {
  path: string;
}

/** An owner whose documents are released once its workflow has closed, and since when it is recorded. */
export interface ClosingOwner {
  owner: string;
  since: number;
}

export interface PutOptions {
  /**
   * The application the document belongs to (its workflow id). A document is deleted by its owners'
   * retention only once every owner released it (`release`); one stored without an owner is never.
   */
  owner?: string;
}

export interface FileDocumentStoreOptions {
  /** Encrypts what is stored (see the module's head); without it blobs are written in the clear. */
  keyring?: CodecKeyring;
}

export class FileDocumentStore implements MaintainedDocumentStore {
  readonly root: string;
  private readonly keys: DocumentKeys;

  constructor(root: string, options: FileDocumentStoreOptions = {}) {
    this.root = resolve(root);
    this.keys = new DocumentKeys(options.keyring);
  }

  /** Whether new blobs are encrypted. */
  get encrypts(): boolean {
    return this.keys.encrypts;
  }

  /** The key new files are sealed under; undefined without a keyring. */
  get currentKeyId(): string | undefined {
    return this.keys.currentKeyId;
  }

  private place(ref: string): BlobPlace {
    return { ...blobName(ref), path: join(this.root, ref) };
  }

  private placeOfName(name: string): BlobPlace {
    return this.place(refOfName(name));
  }

  /** The content of a blob read from `place`: decrypted, and a blob named by its SHA-1 checked against it. */
  private open(place: BlobPlace, blob: Buffer): Buffer {
    return openBlob(this.keys, place, blob, this.root);
  }

  private check(ref: DocumentRef, data: Buffer): Buffer {
    return checkDocument(ref, data, this.root);
  }

  async put(data: Uint8Array, options: PutOptions = {}): Promise<DocumentRef> {
    const sha1 = sha1Of(data);
    const place = this.placeOfName(this.keys.nameOf(data) ?? sha1);
    const ref: DocumentRef = { sha1, length: data.byteLength, ref: place.ref };
    // The owner is recorded before the blob is looked for: a release running meanwhile sees it (see `release`).
    await this.recordHolder(place, options.owner === undefined ? UNOWNED : ownerKey(options.owner));
    if (options.owner !== undefined) {
      const index = join(this.root, 'owners', ownerKey(options.owner));
      await mkdir(index, { recursive: true, mode: 0o700 });
      await writeFile(join(index, place.name), '', { mode: 0o600 });
    }
    // Content-addressed: the same bytes are stored once.
    if (!(await exists(place.path))) await writeAtomically(place.path, this.keys.seal(data, place.ref));
    return ref;
  }

  async get(ref: DocumentRef): Promise<Uint8Array> {
    return this.check(ref, await this.read(ref.ref));
  }

  /** The bytes stored under a reference's `ref` (as `list` gives them), decrypted. */
  async read(ref: string): Promise<Buffer> {
    const place = this.place(ref);
    let blob: Buffer;
    try {
      blob = await readFile(place.path);
    } catch {
      throw new DocumentNotFound(`document ${ref} is not in the store at ${this.root}`);
    }
    return this.open(place, blob);
  }

  async take(ref: DocumentRef): Promise<Uint8Array> {
    const place = this.place(ref.ref);
    const claimed = `${place.path}${CLAIMED}`;
    try {
      await rename(place.path, claimed);
    } catch (error) {
      if (isMissing(error)) throw new DocumentNotFound(`document ${ref.ref} is not in the store at ${this.root}`);
      throw error;
    }
    let data: Buffer;
    try {
      data = this.check(ref, this.open(place, await readFile(claimed)));
    } catch (error) {
      // Unreadable (its key is missing, say): put back, for a later call with the right keys.
      await rename(claimed, place.path).catch(() => undefined);
      throw error;
    }
    await this.delete(ref);
    return data;
  }

  async delete(ref: Pick<DocumentRef, 'ref'>): Promise<void> {
    const { path } = this.place(ref.ref);
    await rm(path, { force: true });
    await rm(`${path}${CLAIMED}`, { force: true });
    await rm(`${path}${HOLDERS}`, { recursive: true, force: true });
  }

  /** Records who holds a document: an owner's key, or UNOWNED for a put without one (never released). */
  private async recordHolder(place: BlobPlace, holder: string): Promise<void> {
    const holders = `${place.path}${HOLDERS}`;
    await mkdir(holders, { recursive: true, mode: 0o700 });
    await writeFile(join(holders, holder), '', { mode: 0o600 });
  }

  async releaseWhenClosed(owner: string): Promise<void> {
    const ref = closingRef(owner);
    const path = join(this.root, ref);
    if (await exists(path)) return;
    const record = JSON.stringify({ owner, since: Date.now() } satisfies ClosingOwner);
    await writeAtomically(path, this.keys.seal(Buffer.from(record), ref));
  }

  /** The owners recorded by `releaseWhenClosed` and not released since; `unreadable` counts records whose key is missing. */
  async closingOwners(): Promise<{ owners: ClosingOwner[]; unreadable: number }> {
    const owners: ClosingOwner[] = [];
    let unreadable = 0;
    for (const name of await readdir(join(this.root, CLOSING)).catch(() => [])) {
      const ref = `${CLOSING}/${name}`;
      if (!CLOSING_REF.test(ref)) continue;
      try {
        owners.push(JSON.parse(this.keys.unseal(await readFile(join(this.root, ref)), ref).toString()) as ClosingOwner);
      } catch (error) {
        if (isMissing(error)) continue; // released meanwhile
        unreadable++;
      }
    }
    return { owners, unreadable };
  }

  /**
   * Releases every document `owner` stored (its retention ended, or its workflow closed): each is
   * deleted when no other owner holds it and it was never stored without an owner. The blob is moved
   * aside before its holders are read, so a put racing with the release either shows as a holder or
   * writes the blob anew.
   */
  async release(owner: string): Promise<ReleaseReport> {
    const key = ownerKey(owner);
    const index = join(this.root, 'owners', key);
    const report: ReleaseReport = { deleted: 0, kept: 0 };
    let owned: string[] = [];
    try {
      owned = (await readdir(index)).filter((name) => BLOB_NAME.test(name));
    } catch (error) {
      if (!isMissing(error)) throw error;
    }
    for (const name of owned) {
      const { path } = this.placeOfName(name);
      await rm(join(`${path}${HOLDERS}`, key), { force: true });
      if (await this.deleteUnheld(path)) report.deleted++;
      else report.kept++;
      await rm(join(index, name), { force: true });
    }
    await rm(index, { recursive: true, force: true });
    await rm(join(this.root, CLOSING, key), { force: true });
    return report;
  }

  private async held(path: string): Promise<boolean> {
    return (await readdir(`${path}${HOLDERS}`).catch(() => [])).length > 0;
  }

  /** Deletes a blob that nobody holds; true when it is gone. */
  private async deleteUnheld(path: string): Promise<boolean> {
    if (await this.held(path)) return false;
    const aside = `${path}.${randomUUID()}.deleting`;
    try {
      await rename(path, aside);
    } catch (error) {
      if (isMissing(error)) return true;
      throw error;
    }
    if (await this.held(path)) {
      // Stored again meanwhile: put it back, unless that put already wrote the blob anew.
      await rename(aside, path).catch(() => rm(aside, { force: true }));
      return false;
    }
    await rm(aside, { force: true });
    await rm(`${path}${CLAIMED}`, { force: true });
    await rm(`${path}${HOLDERS}`, { recursive: true, force: true });
    return true;
  }

  /** The reference (`ref`) of every stored document (for audits, tests and re-encryption). */
  async list(): Promise<string[]> {
    const refs: string[] = [];
    for (const [folder, pattern] of [
      ['hmac', KEYED_REF],
      ['sha1', SHA1_REF],
    ] as const) {
      const entries = await readdir(join(this.root, folder), { recursive: true }).catch(() => []);
      // `<xx>/<name>` only: not the holders' folders, temporary or claimed files beside the blobs.
      refs.push(...entries.map((entry) => `${folder}/${entry}`).filter((ref) => pattern.test(ref)));
    }
    return refs;
  }

  /** Every sealed file: the documents, and the records of `releaseWhenClosed`. */
  async sealedFiles(): Promise<string[]> {
    const records = await readdir(join(this.root, CLOSING)).catch(() => []);
    return [
      ...(await this.list()),
      ...records.map((name) => `${CLOSING}/${name}`).filter((ref) => CLOSING_REF.test(ref)),
    ];
  }

  /**
   * Re-encrypts one sealed file (`sealedFiles`) under the current key in place: written anew, then
   * renamed over it. `current` when it is already; DocumentUndecryptable when its key is missing (the
   * file is left as it is). A document released or handed out meanwhile is not brought back.
   */
  async reencrypt(ref: string, options: { dryRun?: boolean } = {}): Promise<ReencryptOutcome> {
    const closing = CLOSING_REF.test(ref);
    const place = closing ? undefined : this.place(ref);
    const path = place?.path ?? join(this.root, ref);
    let blob: Buffer;
    try {
      blob = await readFile(path);
    } catch (error) {
      if (isMissing(error)) return 'gone';
      throw error;
    }
    const currentKeyId = this.keys.currentKeyId;
    if (currentKeyId === undefined) throw new DocumentUndecryptable('re-encryption needs a keyring (ECA_CODEC_KEYS)');
    if (this.keys.keyIdOf(blob) === currentKeyId) return 'current';
    const data = place ? this.open(place, blob) : this.keys.unseal(blob, ref);
    if (options.dryRun) return 'reencrypted';
    const wasHeld = await this.held(path);
    const sealed = this.keys.seal(data, ref);
    if (!(await exists(path))) return 'gone';
    await writeAtomically(path, sealed);
    if (await exists(`${path}${CLAIMED}`)) {
      await rm(path, { force: true }); // handed out meanwhile: the copy just written must not be taken again
      return 'gone';
    }
    if (wasHeld && !(await this.held(path)) && (await this.deleteUnheld(path))) return 'gone';
    return 'reencrypted';
  }

  /** Nothing to let go of: files are opened per call. */
  async close(): Promise<void> {}
}

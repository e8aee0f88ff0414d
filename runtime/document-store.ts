/**
 * Content-addressed store for application XML, PDFs and response files: workflows carry a
 * `DocumentRef` ({ sha1, length, ref }) and never the bytes, so neither documents nor personal data
 * enter workflow history. The filesystem store is the default; its root must be shared by the
 * client (which puts documents) and the workers (which read them).
 *
 * The SDK's external payload storage offloads payloads by size, transparently; the engine needs more:
 * the SHA-1 and length are part of the brokerage's request XML, and workflows decide on them without
 * loading the files.
 *
 * With a keyring (the payload codec's, `ECA_CODEC_KEYS`: same keys, same rotation) every blob is
 * encrypted at rest with AES-256-GCM under a key derived from the newest codec key (HKDF, so that the
 * store and the codec never share a key), bound to its key id and SHA-1. A blob written in the clear
 * before encryption was turned on is still read, and rewritten encrypted when the same content is put
 * again. File names are the plaintext's SHA-1, which the workflows and the brokerage's XML carry anyway.
 */
import { DOCUMENT_CORRUPTED, DOCUMENT_NOT_FOUND, DOCUMENT_UNDECRYPTABLE } from '../domain/error-types.js';
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { CodecKey, CodecKeyring } from '../codec/keyring.js';
import type { DocumentRef, ReleaseReport } from '../domain/documents.js';

export interface DocumentStore {
  /** Stores the bytes; with `owner` (an application's workflow id) the document is recorded as that application's. */
  put(data: Uint8Array, options?: PutOptions): Promise<DocumentRef>;
  /** The bytes, checked against the reference's SHA-1 and length. */
  get(ref: DocumentRef): Promise<Uint8Array>;
  /** Removes a document (a temporary password once handed out); nothing happens when it is not there. */
  delete(ref: Pick<DocumentRef, 'sha1'>): Promise<void>;
}

/** The reference names no document in the store. Not retryable: retrying cannot make it appear. */
export class DocumentNotFound extends Error {
  override readonly name = DOCUMENT_NOT_FOUND;
}

/** The stored bytes no longer match their reference. */
export class DocumentCorrupted extends Error {
  override readonly name = DOCUMENT_CORRUPTED;
}

/** A stored blob that cannot be decrypted: its key is not configured, or it does not authenticate. */
export class DocumentUndecryptable extends Error {
  override readonly name = DOCUMENT_UNDECRYPTABLE;
}

const SHA1 = /^[0-9a-f]{40}$/;
/** Beside each blob, a folder of its holders: one empty file per owner key, or UNOWNED. */
const HOLDERS = '.holders';
/** The holder of a document stored without an owner: it is never released. */
const UNOWNED = 'unowned';

/** An owner's name in the store's folders (a workflow id may hold any character). */
function ownerKey(owner: string): string {
  return createHash('sha256').update(owner).digest('hex');
}
/** Every encrypted blob starts with this, then the key id's length (1 byte), the key id, IV, ciphertext, tag. */
const MAGIC = Buffer.from('ECA-DOC1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function sha1Of(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

/** The store's own key from a codec key: a codec key is never used as it is for documents. */
function storeKey(key: CodecKey): Buffer {
  return Buffer.from(hkdfSync('sha256', key.key, new Uint8Array(), 'eca-document-store-v1', 32));
}

function additionalData(keyId: string, sha1: string): Buffer {
  return Buffer.from(`eca-document-v1:${keyId}:${sha1}`);
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

export class FileDocumentStore implements DocumentStore {
  readonly root: string;
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly currentKeyId: string | undefined;

  constructor(root: string, options: FileDocumentStoreOptions = {}) {
    this.root = resolve(root);
    const keys = options.keyring?.keys ?? [];
    this.keys = new Map(keys.map((key) => [key.id, storeKey(key)]));
    this.currentKeyId = keys[0]?.id;
  }

  /** Whether new blobs are encrypted. */
  get encrypts(): boolean {
    return this.currentKeyId !== undefined;
  }

  private seal(data: Uint8Array, sha1: string): Uint8Array {
    const id = this.currentKeyId;
    if (id === undefined) return data;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(additionalData(id, sha1));
    const idBytes = Buffer.from(id);
    return Buffer.concat([
      MAGIC,
      Buffer.from([idBytes.length]),
      idBytes,
      iv,
      cipher.update(data),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
  }

  private unseal(blob: Buffer, sha1: string): Buffer {
    if (!blob.subarray(0, MAGIC.length).equals(MAGIC)) return blob; // written in the clear before encryption
    const idLength = blob[MAGIC.length] ?? 0;
    const idStart = MAGIC.length + 1;
    const id = blob.subarray(idStart, idStart + idLength).toString();
    const key = this.keys.get(id);
    if (!key) {
      throw new DocumentUndecryptable(
        `document ${sha1} is encrypted with key id "${id}", which is not among the configured keys (ECA_CODEC_KEYS)`,
      );
    }
    const ivStart = idStart + idLength;
    const iv = blob.subarray(ivStart, ivStart + IV_BYTES);
    const tag = blob.subarray(blob.length - TAG_BYTES);
    const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(id, sha1));
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([
        decipher.update(blob.subarray(ivStart + IV_BYTES, blob.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new DocumentUndecryptable(
        `document ${sha1} does not authenticate under key id "${id}": another key of that id, or the file was altered`,
      );
    }
  }

  /** Whether the file at `path` is there and, when this store encrypts, encrypted. */
  private async storedAsWanted(path: string): Promise<boolean> {
    let handle;
    try {
      handle = await open(path, 'r');
    } catch {
      return false;
    }
    try {
      if (!this.encrypts) return true;
      const head = Buffer.alloc(MAGIC.length);
      await handle.read(head, 0, MAGIC.length, 0);
      return head.equals(MAGIC);
    } finally {
      await handle.close();
    }
  }

  private pathOf(sha1: string): string {
    if (!SHA1.test(sha1)) throw new DocumentNotFound(`not a SHA-1 reference: "${sha1.slice(0, 50)}"`);
    return join(this.root, 'sha1', sha1.slice(0, 2), sha1);
  }

  async put(data: Uint8Array, options: PutOptions = {}): Promise<DocumentRef> {
    const sha1 = sha1Of(data);
    const path = this.pathOf(sha1);
    const ref: DocumentRef = { sha1, length: data.byteLength, ref: `sha1/${sha1.slice(0, 2)}/${sha1}` };
    // The owner is recorded before the blob is looked for: a release running meanwhile sees it (see `release`).
    await this.recordHolder(sha1, options.owner === undefined ? UNOWNED : ownerKey(options.owner));
    if (options.owner !== undefined) {
      const index = join(this.root, 'owners', ownerKey(options.owner));
      await mkdir(index, { recursive: true, mode: 0o700 });
      await writeFile(join(index, sha1), '', { mode: 0o600 });
    }
    // Content-addressed: the same bytes are stored once (a blob in the clear is replaced by an encrypted one).
    if (await this.storedAsWanted(path)) return ref;
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    // Write then rename: a reader never sees a partial file, and two writers of the same content agree.
    const tmp = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(tmp, this.seal(data, sha1), { mode: 0o600 });
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
    return ref;
  }

  async get(ref: DocumentRef): Promise<Uint8Array> {
    const data = await this.read(ref.sha1);
    if (data.byteLength !== ref.length) {
      throw new DocumentCorrupted(`document ${ref.sha1} in ${this.root} does not match its length`);
    }
    return data;
  }

  /** The bytes stored under a SHA-1, decrypted and checked against it (no length to check). */
  async read(sha1: string): Promise<Buffer> {
    let blob: Buffer;
    try {
      blob = await readFile(this.pathOf(sha1));
    } catch (error) {
      if (error instanceof DocumentNotFound) throw error;
      throw new DocumentNotFound(`document ${sha1} is not in the store at ${this.root}`);
    }
    const data = this.unseal(blob, sha1);
    if (sha1Of(data) !== sha1) {
      throw new DocumentCorrupted(`document ${sha1} in ${this.root} does not match its SHA-1`);
    }
    return data;
  }

  async delete(ref: Pick<DocumentRef, 'sha1'>): Promise<void> {
    const path = this.pathOf(ref.sha1);
    await rm(path, { force: true });
    await rm(`${path}${HOLDERS}`, { recursive: true, force: true });
  }

  /** Records who holds a document: an owner's key, or UNOWNED for a put without one (never released). */
  private async recordHolder(sha1: string, holder: string): Promise<void> {
    const holders = `${this.pathOf(sha1)}${HOLDERS}`;
    await mkdir(holders, { recursive: true, mode: 0o700 });
    await writeFile(join(holders, holder), '', { mode: 0o600 });
  }

  /**
   * Releases every document `owner` stored (its retention ended): each is deleted when no other owner
   * holds it and it was never stored without an owner. The blob is moved aside before its holders are
   * read, so a put racing with the release either shows as a holder or writes the blob anew.
   */
  async release(owner: string): Promise<ReleaseReport> {
    const key = ownerKey(owner);
    const index = join(this.root, 'owners', key);
    const report: ReleaseReport = { deleted: 0, kept: 0 };
    let owned: string[];
    try {
      owned = (await readdir(index)).filter((name) => SHA1.test(name));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return report;
      throw error;
    }
    for (const sha1 of owned) {
      const path = this.pathOf(sha1);
      await rm(join(`${path}${HOLDERS}`, key), { force: true });
      if (await this.deleteUnheld(path)) report.deleted++;
      else report.kept++;
      await rm(join(index, sha1), { force: true });
    }
    await rm(index, { recursive: true, force: true });
    return report;
  }

  /** Deletes a blob that nobody holds; true when it is gone. */
  private async deleteUnheld(path: string): Promise<boolean> {
    const held = async () => (await readdir(`${path}${HOLDERS}`).catch(() => [])).length > 0;
    if (await held()) return false;
    const aside = `${path}.${randomUUID()}.deleting`;
    try {
      await rename(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
      throw error;
    }
    if (await held()) {
      // Stored again meanwhile: put it back, unless that put already wrote the blob anew.
      await rename(aside, path).catch(() => rm(aside, { force: true }));
      return false;
    }
    await rm(aside, { force: true });
    await rm(`${path}${HOLDERS}`, { recursive: true, force: true });
    return true;
  }

  /** The SHA-1 of every stored document (for audits and tests). */
  async list(): Promise<string[]> {
    const root = join(this.root, 'sha1');
    let entries: string[];
    try {
      entries = await readdir(root, { recursive: true });
    } catch {
      return [];
    }
    // `<xx>/<sha1>` only: not the holders' folders beside the blobs.
    return entries
      .map((entry) => entry.split('/'))
      .filter((parts) => parts.length === 2 && SHA1.test(parts[1]!))
      .map((parts) => parts[1]!);
  }
}

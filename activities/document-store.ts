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
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, randomUUID } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { CodecKey, CodecKeyring } from '../codec/keyring.js';
import type { DocumentRef } from '../workflows/lifecycle/types.js';

export interface DocumentStore {
  put(data: Uint8Array): Promise<DocumentRef>;
  /** The bytes, checked against the reference's SHA-1 and length. */
  get(ref: DocumentRef): Promise<Uint8Array>;
  /** Removes a document (a temporary password once handed out); nothing happens when it is not there. */
  delete(ref: Pick<DocumentRef, 'sha1'>): Promise<void>;
}

/** The reference names no document in the store. Not retryable: retrying cannot make it appear. */
export class DocumentNotFound extends Error {
  override readonly name = 'DocumentNotFound';
}

/** The stored bytes no longer match their reference. */
export class DocumentCorrupted extends Error {
  override readonly name = 'DocumentCorrupted';
}

/** A stored blob that cannot be decrypted: its key is not configured, or it does not authenticate. */
export class DocumentUndecryptable extends Error {
  override readonly name = 'DocumentUndecryptable';
}

const SHA1 = /^[0-9a-f]{40}$/;
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

  async put(data: Uint8Array): Promise<DocumentRef> {
    const sha1 = sha1Of(data);
    const path = this.pathOf(sha1);
    const ref: DocumentRef = { sha1, length: data.byteLength, ref: `sha1/${sha1.slice(0, 2)}/${sha1}` };
    // Content-addressed: the same bytes are stored once (a blob in the clear is replaced by an encrypted one).
    // Stored again, it is marked as in use from now (a finished application's retention keeps it).
    if (await this.storedAsWanted(path)) {
      const now = new Date();
      await utimes(path, now, now);
      return ref;
    }
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
    await rm(this.pathOf(ref.sha1), { force: true });
  }

  /**
   * Deletes a document unless it was stored (or stored again) after `since` (ms since the epoch):
   * another application may hold the same bytes. True when it is gone.
   */
  async deleteUnlessStoredSince(sha1: string, since: number): Promise<boolean> {
    const path = this.pathOf(sha1);
    // Moved aside first, then checked: a put that touched it before the move shows in its time, and a
    // put after the move writes the file anew.
    const aside = `${path}.${randomUUID()}.deleting`;
    try {
      await rename(path, aside);
    } catch {
      return true;
    }
    if ((await stat(aside)).mtimeMs > since) {
      await rename(aside, path);
      return false;
    }
    await rm(aside, { force: true });
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
    return entries.map((entry) => entry.split('/').pop() ?? '').filter((name) => SHA1.test(name));
  }
}

/**
 * Content-addressed store for application XML, PDFs and response files: workflows carry a
 * `DocumentRef` ({ sha1, length, ref }) and never the bytes, so neither documents nor personal data
 * enter workflow history. The filesystem store is the default; its root must be shared by the
 * client (which puts documents) and the workers (which read them).
 *
 * The SDK's external payload storage offloads payloads by size, transparently; the engine needs more:
 * the SHA-1 and length are part of the brokerage's request XML, and workflows decide on them without
 * loading the files.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { DocumentRef } from '../workflows/lifecycle/types.js';

export interface DocumentStore {
  put(data: Uint8Array): Promise<DocumentRef>;
  /** The bytes, checked against the reference's SHA-1 and length. */
  get(ref: DocumentRef): Promise<Uint8Array>;
}

/** The reference names no document in the store. Not retryable: retrying cannot make it appear. */
export class DocumentNotFound extends Error {
  override readonly name = 'DocumentNotFound';
}

/** The stored bytes no longer match their reference. */
export class DocumentCorrupted extends Error {
  override readonly name = 'DocumentCorrupted';
}

const SHA1 = /^[0-9a-f]{40}$/;

export function sha1Of(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

export class FileDocumentStore implements DocumentStore {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private pathOf(sha1: string): string {
    if (!SHA1.test(sha1)) throw new DocumentNotFound(`not a SHA-1 reference: "${sha1.slice(0, 50)}"`);
    return join(this.root, 'sha1', sha1.slice(0, 2), sha1);
  }

  async put(data: Uint8Array): Promise<DocumentRef> {
    const sha1 = sha1Of(data);
    const path = this.pathOf(sha1);
    const ref: DocumentRef = { sha1, length: data.byteLength, ref: `sha1/${sha1.slice(0, 2)}/${sha1}` };
    try {
      if ((await stat(path)).size === data.byteLength) return ref;
    } catch {
      // not stored yet
    }
    await mkdir(dirname(path), { recursive: true });
    // Write then rename: a reader never sees a partial file, and two writers of the same content agree.
    const tmp = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(tmp, data, { mode: 0o600 });
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
    return ref;
  }

  async get(ref: DocumentRef): Promise<Uint8Array> {
    let data: Buffer;
    try {
      data = await readFile(this.pathOf(ref.sha1));
    } catch (error) {
      if (error instanceof DocumentNotFound) throw error;
      throw new DocumentNotFound(`document ${ref.sha1} is not in the store at ${this.root}`);
    }
    if (data.byteLength !== ref.length || sha1Of(data) !== ref.sha1) {
      throw new DocumentCorrupted(`document ${ref.sha1} in ${this.root} does not match its SHA-1 or length`);
    }
    return data;
  }
}

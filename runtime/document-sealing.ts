/**
 * The document store's cryptography (runtime/document-store.ts), from the payload codec's keyring
 * (`ECA_CODEC_KEYS`: same keys, same rotation). Every key is derived with HKDF under its own label, so
 * the store and the codec never share a key:
 * - sealing: a SealedBox (sealing.ts, over the one cipher codec/seal.ts) under `ECA-DOC2`, the ciphertext bound
 *   to the key id and to the file's reference in the store (a file moved elsewhere does not
 *   authenticate there);
 * - names: a blob is named by HMAC-SHA-256 of its content under a name key derived from the newest
 *   codec key, so a name reveals nothing of the content (a plain hash of a short secret could be
 *   guessed). After a rotation the same content gets another name; references keep their own.
 */
import { createHmac } from 'node:crypto';
import type { CodecKeyring } from '../codec/keyring.js';
import { deriveKey } from '../codec/seal.js';
import { DocumentUndecryptable } from './document-errors.js';
import { SealedBox } from './sealing.js';

export class DocumentKeys {
  /** Bound to the key id and the file's reference in the store. */
  private readonly box: SealedBox;
  private readonly nameKey: Buffer | undefined;

  constructor(keyring?: CodecKeyring) {
    this.box = new SealedBox(keyring, { purpose: 'eca-document-v2', derive: 'eca-document-store-v1' }, 'ECA-DOC2');
    const newest = keyring?.keys[0];
    this.nameKey = newest && deriveKey(newest, 'eca-document-name-v1');
  }

  /** Whether new files are sealed (and blobs named by keyed hash). */
  get encrypts(): boolean {
    return this.box.encrypts;
  }

  /** The key new files are sealed under (the first codec key); undefined without a keyring. */
  get currentKeyId(): string | undefined {
    return this.box.currentKeyId;
  }

  /** The keyed name of a content (64 hex digits); undefined without keys. */
  nameOf(data: Uint8Array): string | undefined {
    return this.nameKey && createHmac('sha256', this.nameKey).update(data).digest('hex');
  }

  /** Seals `data` under the current key, bound to `ref` (the file's reference in the store); as it is without keys. */
  seal(data: Uint8Array, ref: string): Uint8Array {
    return this.box.seal(data, ref) ?? data;
  }

  /** Whether a stored file is sealed (rather than written in the clear, by a store without keys). */
  isSealed(blob: Buffer): boolean {
    return this.box.isSealed(blob);
  }

  /** The key id a sealed file names; undefined for a file in the clear. */
  keyIdOf(blob: Buffer): string | undefined {
    return this.box.keyIdOf(blob);
  }

  /** The content of a sealed file at `ref`; a file in the clear as it is. */
  unseal(blob: Buffer, ref: string): Buffer {
    if (!this.box.isSealed(blob)) return blob;
    const opened = this.box.open(blob, ref);
    if (Buffer.isBuffer(opened)) return opened;
    throw new DocumentUndecryptable(
      opened.kind === 'unknown-key'
        ? `document ${ref} is encrypted with key id "${opened.keyId}", which is not among the configured keys (ECA_CODEC_KEYS)`
        : `document ${ref} does not authenticate under key id "${opened.keyId}": another key of that id, or the file was altered`,
    );
  }
}

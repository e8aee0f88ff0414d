/**
 * The document store's cryptography (runtime/document-store.ts), from the payload codec's keyring
 * (`ECA_CODEC_KEYS`: same keys, same rotation). Every key is derived with HKDF under its own label, so
 * the store and the codec never share a key:
 * - sealing: AES-256-GCM under a key derived from the newest codec key, the key id in the clear, the
 *   ciphertext bound to the key id and to the file's reference in the store (a file moved elsewhere
 *   does not authenticate there);
 * - names: a blob is named by HMAC-SHA-256 of its content under a name key derived from the newest
 *   codec key, so a name reveals nothing of the content (a plain hash of a short secret could be
 *   guessed). After a rotation the same content gets another name; references keep their own.
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import type { CodecKey, CodecKeyring } from '../codec/keyring.js';
import { DocumentUndecryptable } from './document-errors.js';

/** Sealed before keyed names: bound to the key id and the blob's SHA-1, which was its name. */
const MAGIC_V1 = Buffer.from('ECA-DOC1');
/** Bound to the key id and the file's reference in the store. */
const MAGIC_V2 = Buffer.from('ECA-DOC2');
const MAGIC_BYTES = 8;
const IV_BYTES = 12;
const TAG_BYTES = 16;

function derive(key: CodecKey, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key.key, new Uint8Array(), label, 32));
}

/** What a sealed file says of itself before it is decrypted. */
export interface SealHeader {
  /** 1 or 2 for a sealed file; 0 for one in the clear (written before encryption was turned on). */
  version: 0 | 1 | 2;
  /** The key id it is sealed under; undefined in the clear. */
  keyId?: string;
  /** Where the IV starts, after the magic, the key id's length and the key id. */
  ivStart: number;
}

export class DocumentKeys {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly nameKey: Buffer | undefined;
  /** The key new files are sealed under (the first codec key); undefined without a keyring. */
  readonly currentKeyId: string | undefined;

  constructor(keyring?: CodecKeyring) {
    const keys = keyring?.keys ?? [];
    this.keys = new Map(keys.map((key) => [key.id, derive(key, 'eca-document-store-v1')]));
    this.currentKeyId = keys[0]?.id;
    this.nameKey = keys[0] && derive(keys[0], 'eca-document-name-v1');
  }

  /** Whether new files are sealed (and blobs named by keyed hash). */
  get encrypts(): boolean {
    return this.currentKeyId !== undefined;
  }

  /** The keyed name of a content (64 hex digits); undefined without keys. */
  nameOf(data: Uint8Array): string | undefined {
    return this.nameKey && createHmac('sha256', this.nameKey).update(data).digest('hex');
  }

  /** Seals `data` under the current key, bound to `ref` (the file's reference in the store); as it is without keys. */
  seal(data: Uint8Array, ref: string): Uint8Array {
    const id = this.currentKeyId;
    if (id === undefined) return data;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`eca-document-v2:${id}:${ref}`));
    const idBytes = Buffer.from(id);
    return Buffer.concat([
      MAGIC_V2,
      Buffer.from([idBytes.length]),
      idBytes,
      iv,
      cipher.update(data),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
  }

  header(blob: Buffer): SealHeader {
    const magic = blob.subarray(0, MAGIC_BYTES);
    const version = magic.equals(MAGIC_V2) ? 2 : magic.equals(MAGIC_V1) ? 1 : 0;
    if (version === 0) return { version, ivStart: 0 };
    const idLength = blob[MAGIC_BYTES] ?? 0;
    const ivStart = MAGIC_BYTES + 1 + idLength;
    return { version, keyId: blob.subarray(MAGIC_BYTES + 1, ivStart).toString(), ivStart };
  }

  /**
   * The content of a sealed file at `ref`; a file in the clear as it is. `legacySha1` is the SHA-1 a
   * file sealed before keyed names is bound to (its name).
   */
  unseal(blob: Buffer, ref: string, legacySha1?: string): Buffer {
    const { version, keyId: id, ivStart } = this.header(blob);
    if (version === 0 || id === undefined) return blob;
    const key = this.keys.get(id);
    if (!key) {
      throw new DocumentUndecryptable(
        `document ${ref} is encrypted with key id "${id}", which is not among the configured keys (ECA_CODEC_KEYS)`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(ivStart, ivStart + IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(
      Buffer.from(version === 2 ? `eca-document-v2:${id}:${ref}` : `eca-document-v1:${id}:${legacySha1}`),
    );
    decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(blob.subarray(ivStart + IV_BYTES, blob.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      throw new DocumentUndecryptable(
        `document ${ref} does not authenticate under key id "${id}": another key of that id, or the file was altered`,
      );
    }
  }
}

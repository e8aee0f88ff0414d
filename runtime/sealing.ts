/**
 * Secrets at rest in the engine's database (webhook signing secrets, firms' OpenPGP keys), sealed with keys
 * derived from the payload codec's keyring (`ECA_CODEC_KEYS`).
 *
 * AES-256-GCM under a key derived with HKDF from a codec key under the box's own label (never the codec's or
 * the document store's key), the key id in the clear, the ciphertext bound to the label, the key id and the
 * row's context (a sealed value copied to another row does not authenticate there). Layout:
 * `magic | id length | id | iv | ciphertext | tag`.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { CodecKeyring } from '../codec/keyring.js';

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** Why a sealed value cannot be opened: its key id is not configured, or the bytes do not authenticate. */
export type UnsealFailure = { kind: 'unknown-key'; keyId: string } | { kind: 'not-authentic'; keyId: string };

export class SealedBox {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly currentKeyId: string | undefined;
  private readonly magic: Buffer;

  /** `label` names what the box seals (and derives its keys); `magic`, the bytes a sealed value starts with. */
  constructor(
    keyring: CodecKeyring | undefined,
    private readonly label: string,
    magic: string,
  ) {
    const keys = keyring?.keys ?? [];
    this.keys = new Map(
      keys.map((key) => [key.id, Buffer.from(hkdfSync('sha256', key.key, new Uint8Array(), label, 32))]),
    );
    this.currentKeyId = keys[0]?.id;
    this.magic = Buffer.from(magic);
  }

  /** Whether values are sealed (a keyring is configured). */
  get encrypts(): boolean {
    return this.currentKeyId !== undefined;
  }

  /** Whether `stored` is a sealed value (rather than one kept in the clear). */
  isSealed(stored: Uint8Array): boolean {
    return Buffer.from(stored).subarray(0, this.magic.length).equals(this.magic);
  }

  /** `plain` sealed under the current key for `context`; undefined without a keyring. */
  seal(plain: Uint8Array, context: string): Buffer | undefined {
    const id = this.currentKeyId;
    if (id === undefined) return undefined;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${this.label}:${id}:${context}`));
    const idBytes = Buffer.from(id);
    return Buffer.concat([
      this.magic,
      Buffer.from([idBytes.length]),
      idBytes,
      iv,
      cipher.update(plain),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
  }

  /** The plain bytes of a value sealed for `context`, or why they cannot be had. */
  open(sealed: Uint8Array, context: string): Buffer | UnsealFailure {
    const blob = Buffer.from(sealed);
    const idLength = blob[this.magic.length] ?? 0;
    const ivStart = this.magic.length + 1 + idLength;
    const keyId = blob.subarray(this.magic.length + 1, ivStart).toString();
    const key = this.keys.get(keyId);
    if (!key) return { kind: 'unknown-key', keyId };
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(ivStart, ivStart + IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(`${this.label}:${keyId}:${context}`));
    decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(blob.subarray(ivStart + IV_BYTES, blob.length - TAG_BYTES)),
        decipher.final(),
      ]);
    } catch {
      return { kind: 'not-authentic', keyId };
    }
  }
}

/**
 * The engine's one cipher: AES-256-GCM under the codec keyring (`ECA_CODEC_KEYS`, newest first: the first
 * key seals, every key unseals, so a rotation leaves what an older key sealed readable). Every use of it
 * (the payload codec, the document store, the secrets in the database) holds its own `SealingKeys`:
 *
 * - its keys: the codec keys as they are (the payload codec alone), or each derived with HKDF-SHA-256
 *   under the use's own label, so that no two uses share a key;
 * - its purpose, which the additional data begins with: `<purpose>:<key id>[:<context>]`. The sealed
 *   bytes are bound to their use, to the key id they name and to their place (a row, a file's
 *   reference): relabelled, or copied elsewhere, they do not authenticate.
 *
 * `seal` gives the key id and `nonce | ciphertext | tag` (a random 96-bit nonce, a 128-bit tag). Where
 * the key id travels is the use's: the payload's metadata (the codec), or `frame`'s header before the
 * bytes, `magic | id length | id`, whose magic names the use's format and its version.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { CodecConfigurationError } from './keyring.js';
import type { CodecKey, CodecKeyring } from './keyring.js';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Sealed bytes (`nonce | ciphertext | tag`) and the id of the key they are sealed under. */
export interface Sealed {
  keyId: string;
  bytes: Buffer;
}

/** Why sealed bytes cannot be opened: their key id is not configured, they are too short, or they do not authenticate. */
export type UnsealFailure =
  | { kind: 'unknown-key'; keyId: string }
  | { kind: 'truncated'; keyId: string }
  | { kind: 'not-authentic'; keyId: string };

export interface SealUse {
  /** What the additional data begins with: the use and the version of its format (`eca-payload-v1`). */
  purpose: string;
  /** The HKDF label the use's keys are derived under; without it, the codec keys themselves (the payload codec's). */
  derive?: string;
}

/** A key of the codec keyring derived with HKDF-SHA-256 under `label` (32 bytes). */
export function deriveKey(key: CodecKey, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', key.key, new Uint8Array(), label, 32));
}

/** Each SealingKeys' keys by id: reached by seal and unseal alone. */
const KEYS = new WeakMap<SealingKeys, ReadonlyMap<string, Buffer>>();

/** One use's keys, by id; the first seals. */
export class SealingKeys {
  readonly purpose: string;
  /** The key new values are sealed under (the first codec key); undefined without a keyring. */
  readonly currentKeyId: string | undefined;

  constructor(keyring: CodecKeyring | undefined, use: SealUse) {
    const keys = keyring?.keys ?? [];
    this.purpose = use.purpose;
    this.currentKeyId = keys[0]?.id;
    const byId = new Map(
      keys.map((key): [string, Buffer] => {
        if (use.derive !== undefined) return [key.id, deriveKey(key, use.derive)];
        if (key.key.length !== 32) {
          throw new CodecConfigurationError(`key id ${key.id}: an AES-256 key has 32 bytes, not ${key.key.length}`);
        }
        return [key.id, Buffer.from(key.key)];
      }),
    );
    KEYS.set(this, byId);
  }

  /** Whether values are sealed (a keyring is configured). */
  get encrypts(): boolean {
    return this.currentKeyId !== undefined;
  }

  /** The configured key ids, newest first. */
  get keyIds(): string[] {
    return [...KEYS.get(this)!.keys()];
  }
}

function additionalData(keys: SealingKeys, keyId: string, context: string | undefined): Buffer {
  return Buffer.from(context === undefined ? `${keys.purpose}:${keyId}` : `${keys.purpose}:${keyId}:${context}`);
}

/** `plaintext` sealed under the current key, bound to `context` (its place); a CodecConfigurationError without keys. */
export function seal(keys: SealingKeys, plaintext: Uint8Array, context?: string): Sealed {
  const keyId = keys.currentKeyId;
  if (keyId === undefined) throw new CodecConfigurationError(`${keys.purpose}: nothing to seal with, no codec key`);
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', KEYS.get(keys)!.get(keyId)!, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(keys, keyId, context));
  return { keyId, bytes: Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]) };
}

/** The plaintext of bytes sealed for `context`, or why it cannot be had. */
export function unseal(keys: SealingKeys, sealed: Sealed, context?: string): Buffer | UnsealFailure {
  const { keyId, bytes } = sealed;
  const key = KEYS.get(keys)!.get(keyId);
  if (!key) return { kind: 'unknown-key', keyId };
  if (bytes.length < NONCE_BYTES + TAG_BYTES) return { kind: 'truncated', keyId };
  const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(keys, keyId, context));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(bytes.subarray(NONCE_BYTES, bytes.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return { kind: 'not-authentic', keyId };
  }
}

/** Sealed bytes behind their header: `magic | id length | id | nonce | ciphertext | tag`. */
export function frame(magic: Buffer, sealed: Sealed): Buffer {
  const id = Buffer.from(sealed.keyId);
  return Buffer.concat([magic, Buffer.from([id.length]), id, sealed.bytes]);
}

/** What `frame` wrote, read back; undefined when `stored` does not begin with `magic` (it is no sealed value). */
export function unframe(magic: Buffer, stored: Uint8Array): Sealed | undefined {
  const blob = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (!blob.subarray(0, magic.length).equals(magic)) return undefined;
  const idStart = magic.length + 1;
  const bytesStart = idStart + (blob[magic.length] ?? 0);
  return { keyId: blob.subarray(idStart, bytesStart).toString(), bytes: blob.subarray(bytesStart) };
}

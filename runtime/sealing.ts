/**
 * Values at rest in the engine's database and document store (webhook signing secrets, firms' keys, kept
 * answers, documents), sealed with the codec keyring (`ECA_CODEC_KEYS`) by the engine's one cipher
 * (codec/seal.ts): under keys derived with HKDF under the box's own label (never the codec's key, nor
 * another box's), bound to the label, the key id and the value's place (a sealed value copied to another
 * row does not authenticate there). Layout: `magic | id length | id | nonce | ciphertext | tag`.
 */
import type { CodecKeyring } from '../codec/keyring.js';
import { frame, seal, SealingKeys, unframe, unseal } from '../codec/seal.js';
import type { SealUse, UnsealFailure } from '../codec/seal.js';

export type { UnsealFailure };

export class SealedBox {
  private readonly keys: SealingKeys;
  private readonly magic: Buffer;

  /**
   * `use` names what the box seals (a label, both the additional data's start and its keys' derivation; or
   * both apart); `magic`, the bytes a sealed value starts with.
   */
  constructor(keyring: CodecKeyring | undefined, use: string | Required<SealUse>, magic: string) {
    this.keys = new SealingKeys(keyring, typeof use === 'string' ? { purpose: use, derive: use } : use);
    this.magic = Buffer.from(magic);
  }

  /** Whether values are sealed (a keyring is configured). */
  get encrypts(): boolean {
    return this.keys.encrypts;
  }

  /** The key new values are sealed under; undefined without a keyring. */
  get currentKeyId(): string | undefined {
    return this.keys.currentKeyId;
  }

  /** Whether `stored` is a sealed value (rather than one kept in the clear). */
  isSealed(stored: Uint8Array): boolean {
    return unframe(this.magic, stored) !== undefined;
  }

  /** The key id a sealed value names; undefined for one in the clear. */
  keyIdOf(stored: Uint8Array): string | undefined {
    return unframe(this.magic, stored)?.keyId;
  }

  /** `plain` sealed under the current key for `context`; undefined without a keyring. */
  seal(plain: Uint8Array, context: string): Buffer | undefined {
    return this.keys.encrypts ? frame(this.magic, seal(this.keys, plain, context)) : undefined;
  }

  /** The plain bytes of a value sealed for `context` (`isSealed`), or why they cannot be had. */
  open(sealed: Uint8Array, context: string): Buffer | UnsealFailure {
    return unseal(this.keys, unframe(this.magic, sealed) ?? { keyId: '', bytes: Buffer.alloc(0) }, context);
  }
}

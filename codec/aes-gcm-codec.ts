/**
 * A Temporal payload codec that encrypts every payload with AES-256-GCM. The whole original payload
 * (its metadata too: the `json/plain` encoding would tell what kind of value it is) is serialised as a
 * protobuf and encrypted; the result is a payload with encoding `binary/encrypted` and the key id in
 * its metadata, so that a key rotation leaves older payloads readable.
 *
 * A payload that is not encrypted (a client without the codec sent it, or a history written before the
 * codec was turned on) decodes unchanged with `plaintext: 'accept'` (readers: clients, the codec server;
 * a worker during a migration), and to a refusal value with `plaintext: 'refuse'`, strict mode, a
 * worker's default (see codec/plaintext.ts and workflows/plaintext-guard.ts). The SDK's own patch
 * markers (`{"id": ..., "deprecated": ...}`, written unencrypted by the SDK's core) pass in both modes.
 */
import proto from '@temporalio/proto';
import type { Payload, PayloadCodec } from '@temporalio/common';
import { CODEC_KEYS_ENV, CodecConfigurationError } from './keyring.js';
import { PLAINTEXT_REFUSED, PLAINTEXT_REFUSED_MESSAGE } from './plaintext.js';
import type { CodecKeyring } from './keyring.js';
import { seal, SealingKeys, unseal } from './seal.js';

export const ENCRYPTED_ENCODING = 'binary/encrypted';
export const KEY_ID_METADATA = 'encryption-key-id';
export const CIPHER_METADATA = 'encryption-cipher';
const CIPHER = 'AES-256-GCM';

const { Payload: PayloadProto } = proto.temporal.api.common.v1;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A payload that cannot be decrypted: unknown key id, or a key or ciphertext that does not authenticate. */
export class PayloadDecryptionError extends Error {
  override readonly name = 'EcaPayloadDecryptionError';
}

export function isEncryptedPayload(payload: Payload): boolean {
  const encoding = payload.metadata?.encoding;
  return encoding !== undefined && encoding !== null && decoder.decode(encoding) === ENCRYPTED_ENCODING;
}

export interface AesGcmCodecOptions {
  /** A payload that is not encrypted: decoded unchanged (`accept`, the default) or refused (`refuse`, strict). */
  plaintext?: 'accept' | 'refuse';
}

/** The SDK's patch marker details (core writes them as plain JSON): `{"id": "...", "deprecated": false}`. */
function isPatchMarker(payload: Payload): boolean {
  if (payload.metadata?.encoding === undefined || payload.metadata.encoding === null) return false;
  if (decoder.decode(payload.metadata.encoding) !== 'json/plain') return false;
  try {
    const value = JSON.parse(decoder.decode(payload.data ?? new Uint8Array())) as unknown;
    if (typeof value !== 'object' || value === null) return false;
    const keys = Object.keys(value).sort().join(',');
    const { id, deprecated } = value as { id?: unknown; deprecated?: unknown };
    return keys === 'deprecated,id' && typeof id === 'string' && typeof deprecated === 'boolean';
  } catch {
    return false;
  }
}

/** What a strict codec decodes a plaintext payload to: the refusal alone, nothing of the original. */
const REFUSAL: Payload = {
  metadata: { encoding: encoder.encode('json/plain') },
  data: encoder.encode(JSON.stringify({ [PLAINTEXT_REFUSED]: PLAINTEXT_REFUSED_MESSAGE })),
};

export class AesGcmPayloadCodec implements PayloadCodec {
  /** The codec keys as they are; the sealed bytes bound to the key id a payload's metadata names. */
  private readonly keys: SealingKeys;
  private readonly strict: boolean;

  constructor(keyring: CodecKeyring, options: AesGcmCodecOptions = {}) {
    this.strict = options.plaintext === 'refuse';
    if (keyring.keys.length === 0) {
      throw new CodecConfigurationError(`the payload codec needs at least one key (${CODEC_KEYS_ENV})`);
    }
    this.keys = new SealingKeys(keyring, { purpose: 'eca-payload-v1' });
  }

  /** Id of the key new payloads are encrypted with. */
  get currentKeyId(): string {
    return this.keys.currentKeyId!;
  }

  // async: a payload that does not decrypt is a rejected promise, as the SDK expects.
  // eslint-disable-next-line @typescript-eslint/require-await
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => this.encrypt(payload));
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async decode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      if (isEncryptedPayload(payload)) return this.decrypt(payload);
      return this.strict && !isPatchMarker(payload) ? REFUSAL : payload;
    });
  }

  private encrypt(payload: Payload): Payload {
    const { keyId, bytes } = seal(this.keys, PayloadProto.encode(payload).finish());
    return {
      metadata: {
        encoding: encoder.encode(ENCRYPTED_ENCODING),
        [KEY_ID_METADATA]: encoder.encode(keyId),
        [CIPHER_METADATA]: encoder.encode(CIPHER),
      },
      data: new Uint8Array(bytes),
    };
  }

  private decrypt(payload: Payload): Payload {
    const idBytes = payload.metadata?.[KEY_ID_METADATA];
    const id = idBytes ? decoder.decode(idBytes) : '';
    const data = payload.data ?? new Uint8Array();
    const plaintext = unseal(this.keys, {
      keyId: id,
      bytes: Buffer.from(data.buffer, data.byteOffset, data.byteLength),
    });
    if (Buffer.isBuffer(plaintext)) {
      const decoded = PayloadProto.decode(plaintext);
      return { metadata: decoded.metadata, data: decoded.data };
    }
    switch (plaintext.kind) {
      case 'unknown-key':
        throw new PayloadDecryptionError(
          `payload encrypted with key id "${id}", which is not among the configured keys (${this.keys.keyIds.join(', ')}); ` +
            `add it to ${CODEC_KEYS_ENV}`,
        );
      case 'truncated':
        throw new PayloadDecryptionError(`payload under key id "${id}" is truncated`);
      case 'not-authentic':
        throw new PayloadDecryptionError(
          `payload under key id "${id}" does not authenticate: the configured key of that id is not the one it was encrypted with, or the payload was altered`,
        );
    }
  }
}

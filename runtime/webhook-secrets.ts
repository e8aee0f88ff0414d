/**
 * A webhook endpoint's signing secrets (runtime/webhooks.ts): made here, kept as one list per endpoint,
 * sealed at rest with the payload codec's keyring (`ECA_CODEC_KEYS`).
 *
 * A secret is `whsec_<base64 of 32 random bytes>`, the Standard Webhooks form the `standardwebhooks`
 * package reads. A rotation adds a new secret and gives the others an expiry: until then every
 * delivery carries one signature per live secret, so a receiver can switch at its own pace.
 *
 * Sealing: AES-256-GCM under a key derived with HKDF from the newest codec key under its own label
 * (never the codec's or the document store's key), the key id in the clear, the ciphertext bound to the
 * key id and the endpoint's id (a list copied to another endpoint's row does not authenticate there).
 * Without a keyring the list is stored as JSON in the clear; a sealed list read without its key fails
 * with a typed error rather than signing with nothing.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { CodecKeyring } from '../codec/keyring.js';

/** One secret and, once rotated out, when it stops signing. */
export interface WebhookSecret {
  /** `whsec_<base64>`: never logged, shown once when made. */
  secret: string;
  /** ms since the epoch. */
  createdAt: number;
  /** ms since the epoch; absent for the current secret. */
  expiresAt?: number;
}

/** A sealed list cannot be opened: its key is not configured, or the bytes were altered. */
export class WebhookSecretsUndecryptable extends Error {
  override readonly name = 'WebhookSecretsUndecryptable';
}

const LABEL = 'eca-webhook-secrets-v1';
const MAGIC = Buffer.from('ECA-WHS1');
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A new secret in the Standard Webhooks form. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The secrets that still sign at `now`, newest first. */
export function liveSecrets(secrets: readonly WebhookSecret[], now = Date.now()): WebhookSecret[] {
  return secrets
    .filter((entry) => entry.expiresAt === undefined || entry.expiresAt > now)
    .sort((a, b) => b.createdAt - a.createdAt);
}

/**
 * The list after a rotation at `now`: the new secret first, the live others expiring within
 * `keepPreviousForMs` (never later than they already would), the expired ones dropped.
 */
export function rotated(
  secrets: readonly WebhookSecret[],
  secret: string,
  keepPreviousForMs: number,
  now = Date.now(),
): WebhookSecret[] {
  const until = now + keepPreviousForMs;
  const previous = liveSecrets(secrets, now)
    .map((entry) => ({ ...entry, expiresAt: Math.min(entry.expiresAt ?? until, until) }))
    .filter((entry) => entry.expiresAt > now);
  return [{ secret, createdAt: now }, ...previous];
}

/** Seals and opens endpoints' secret lists with keys derived from the codec keyring. */
export class WebhookSecretBox {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly currentKeyId: string | undefined;

  constructor(keyring?: CodecKeyring) {
    const keys = keyring?.keys ?? [];
    this.keys = new Map(
      keys.map((key) => [key.id, Buffer.from(hkdfSync('sha256', key.key, new Uint8Array(), LABEL, 32))]),
    );
    this.currentKeyId = keys[0]?.id;
  }

  /** Whether new lists are sealed. */
  get encrypts(): boolean {
    return this.currentKeyId !== undefined;
  }

  /** The list's bytes for endpoint `endpointId`: sealed under the current key, JSON without keys. */
  seal(secrets: readonly WebhookSecret[], endpointId: string): Buffer {
    const plain = Buffer.from(JSON.stringify(secrets));
    const id = this.currentKeyId;
    if (id === undefined) return plain;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${LABEL}:${id}:${endpointId}`));
    const idBytes = Buffer.from(id);
    return Buffer.concat([
      MAGIC,
      Buffer.from([idBytes.length]),
      idBytes,
      iv,
      cipher.update(plain),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
  }

  /** The list stored as `stored` for endpoint `endpointId` (sealed or in the clear; empty bytes: none). */
  open(stored: Uint8Array, endpointId: string): WebhookSecret[] {
    const blob = Buffer.from(stored);
    if (blob.length === 0) return [];
    if (!blob.subarray(0, MAGIC.length).equals(MAGIC)) return JSON.parse(blob.toString('utf8')) as WebhookSecret[];
    const idLength = blob[MAGIC.length] ?? 0;
    const ivStart = MAGIC.length + 1 + idLength;
    const id = blob.subarray(MAGIC.length + 1, ivStart).toString();
    const key = this.keys.get(id);
    if (!key) {
      throw new WebhookSecretsUndecryptable(
        `the secrets of webhook endpoint ${endpointId} are sealed with key id "${id}", which is not among the configured keys (ECA_CODEC_KEYS)`,
      );
    }
    const decipher = createDecipheriv('aes-256-gcm', key, blob.subarray(ivStart, ivStart + IV_BYTES), {
      authTagLength: TAG_BYTES,
    });
    decipher.setAAD(Buffer.from(`${LABEL}:${id}:${endpointId}`));
    decipher.setAuthTag(blob.subarray(blob.length - TAG_BYTES));
    try {
      const plain = Buffer.concat([
        decipher.update(blob.subarray(ivStart + IV_BYTES, blob.length - TAG_BYTES)),
        decipher.final(),
      ]);
      return JSON.parse(plain.toString('utf8')) as WebhookSecret[];
    } catch {
      throw new WebhookSecretsUndecryptable(
        `the secrets of webhook endpoint ${endpointId} do not authenticate under key id "${id}": another key of that id, or the row was altered`,
      );
    }
  }
}

/**
 * A webhook endpoint's signing secrets (runtime/webhooks.ts): made here, kept as one list per endpoint,
 * sealed at rest with the payload codec's keyring (`ECA_CODEC_KEYS`).
 *
 * A secret is `whsec_<base64 of 32 random bytes>`, the Standard Webhooks form the `standardwebhooks`
 * package reads. A rotation adds a new secret and gives the others an expiry: until then every
 * delivery carries one signature per live secret, so a receiver can switch at its own pace.
 *
 * Sealing (runtime/sealing.ts): AES-256-GCM under a key derived from the newest codec key under this
 * box's own label, bound to the endpoint's id (a list copied to another endpoint's row does not
 * authenticate there).
 * Without a keyring the list is stored as JSON in the clear; a sealed list read without its key fails
 * with a typed error rather than signing with nothing.
 */
import { randomBytes } from 'node:crypto';
import { SealedBox } from './sealing.js';
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
const MAGIC = 'ECA-WHS1';

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

/** Seals and opens endpoints' secret lists with keys derived from the codec keyring (runtime/sealing.ts). */
export class WebhookSecretBox {
  private readonly box: SealedBox;

  constructor(keyring?: CodecKeyring) {
    this.box = new SealedBox(keyring, LABEL, MAGIC);
  }

  /** Whether new lists are sealed. */
  get encrypts(): boolean {
    return this.box.encrypts;
  }

  /** The list's bytes for endpoint `endpointId`: sealed under the current key, JSON without keys. */
  seal(secrets: readonly WebhookSecret[], endpointId: string): Buffer {
    const plain = Buffer.from(JSON.stringify(secrets));
    return this.box.seal(plain, endpointId) ?? plain;
  }

  /** The list stored as `stored` for endpoint `endpointId` (sealed or in the clear; empty bytes: none). */
  open(stored: Uint8Array, endpointId: string): WebhookSecret[] {
    if (stored.length === 0) return [];
    if (!this.box.isSealed(stored)) return JSON.parse(Buffer.from(stored).toString('utf8')) as WebhookSecret[];
    const opened = this.box.open(stored, endpointId);
    if (!Buffer.isBuffer(opened)) {
      throw new WebhookSecretsUndecryptable(
        opened.kind === 'unknown-key'
          ? `the secrets of webhook endpoint ${endpointId} are sealed with key id "${opened.keyId}", which is not among the configured keys (ECA_CODEC_KEYS)`
          : `the secrets of webhook endpoint ${endpointId} do not authenticate under key id "${opened.keyId}": another key of that id, or the row was altered`,
      );
    }
    return JSON.parse(opened.toString('utf8')) as WebhookSecret[];
  }
}

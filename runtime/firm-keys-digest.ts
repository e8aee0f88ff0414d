/**
 * The digest of a firm's keys kept beside them (`firms.keys_digest`), which tells a change of keys (a new
 * version) from a restart with the same ones: an HMAC-SHA-256 of the CSID and the keys under a key derived
 * with HKDF from a codec key under its own label (never the sealing's, the codec's or the document store's
 * key), written `hmac:<codec key id>:<hex>`. Without the codec keys, no one can test a passphrase or a key
 * against it offline; without a keyring, no digest is stored.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CodecKeyring } from '../codec/keyring.js';
import { deriveKey } from '../codec/seal.js';
import { keysText } from './firm-settings.js';
import type { FirmKeys } from './firm-settings.js';

const LABEL = 'eca-firm-keys-digest-v1';

/**
 * How a stored digest compares with the keys: `current` (theirs, under the current codec key), `stale` (theirs,
 * under an older codec key: to rewrite), `changed` (another keys', or a digest of no form written here), `absent` (none stored), `unverifiable` (an
 * HMAC under a codec key this process does not have, or it has no keyring).
 */
export type DigestComparison = 'current' | 'stale' | 'changed' | 'absent' | 'unverifiable';

export class FirmKeysDigest {
  private readonly keys: ReadonlyMap<string, Buffer>;
  private readonly currentKeyId: string | undefined;

  constructor(keyring: CodecKeyring | undefined) {
    const keys = keyring?.keys ?? [];
    this.keys = new Map(keys.map((key) => [key.id, deriveKey(key, LABEL)]));
    this.currentKeyId = keys[0]?.id;
  }

  /** The digest to store for the firm's keys, under the current codec key; null without a keyring. */
  of(csid: string, keys: FirmKeys): string | null {
    const id = this.currentKeyId;
    return id === undefined ? null : `hmac:${id}:${this.mac(id, csid, keys)}`;
  }

  compare(stored: string | null, csid: string, keys: FirmKeys): DigestComparison {
    if (stored === null) return 'absent';
    const written = /^hmac:(.+):([0-9a-f]{64})$/.exec(stored);
    // A digest of no form this engine writes tells nothing of the keys: they are written again, with it.
    if (!written) return 'changed';
    const [, id = '', mac = ''] = written;
    // Under a codec key this process lacks (a keyring rotated by other processes first): no change can be told.
    if (!this.keys.has(id)) return 'unverifiable';
    if (!equal(mac, this.mac(id, csid, keys))) return 'changed';
    return id === this.currentKeyId ? 'current' : 'stale';
  }

  private mac(id: string, csid: string, keys: FirmKeys): string {
    return createHmac('sha256', this.keys.get(id)!)
      .update(JSON.stringify([csid, keysText(keys)]))
      .digest('hex');
  }
}

function equal(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * Key pairs of the demo firm and of the brokerage. With a data dir they are written once as armored
 * `.asc` files and reused, so the engine's configuration can point at them; without one they live in
 * memory only.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateKeyPair, readPrivateKey, readPublicKey } from './crypto.js';
import type { KeyAlgorithm, PrivateKey, PublicKey } from './crypto.js';
import { writeAtomically } from './persistence.js';

export const KEY_FILES = {
  firmPrivateKey: 'firm-private.asc',
  firmPublicKey: 'firm-public.asc',
  brokeragePrivateKey: 'brokerage-private.asc',
  brokeragePublicKey: 'brokerage-public.asc',
} as const;

export interface ArmoredKeys {
  firmPrivateKey: string;
  firmPublicKey: string;
  brokeragePrivateKey: string;
  brokeragePublicKey: string;
}

export interface BrokerageKeys {
  armored: ArmoredKeys;
  brokeragePrivate: PrivateKey;
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export async function generateFirmKeys(
  firmName: string,
  algorithm?: KeyAlgorithm,
): Promise<{ publicKey: string; privateKey: string }> {
  return generateKeyPair(firmName, `eca@${firmName.toLowerCase()}.example`, algorithm);
}

/** The demo firm's and the brokerage's keys: read from `dir`, or made with `algorithm` (curve25519 unless told). */
export async function loadOrCreateKeys(
  dir: string | undefined,
  firmName: string,
  algorithm?: KeyAlgorithm,
): Promise<BrokerageKeys> {
  let armored: ArmoredKeys | undefined;
  if (dir !== undefined) {
    const texts = await Promise.all(Object.values(KEY_FILES).map((file) => readIfPresent(join(dir, file))));
    const [firmPrivateKey, firmPublicKey, brokeragePrivateKey, brokeragePublicKey] = texts;
    if (firmPrivateKey && firmPublicKey && brokeragePrivateKey && brokeragePublicKey) {
      armored = { firmPrivateKey, firmPublicKey, brokeragePrivateKey, brokeragePublicKey };
    }
  }
  if (!armored) {
    const [firm, brokerage] = await Promise.all([
      generateFirmKeys(firmName, algorithm),
      generateKeyPair('Simulated Brokerage', 'eca@brokerage.example', algorithm),
    ]);
    armored = {
      firmPrivateKey: firm.privateKey,
      firmPublicKey: firm.publicKey,
      brokeragePrivateKey: brokerage.privateKey,
      brokeragePublicKey: brokerage.publicKey,
    };
    if (dir !== undefined) await writeKeys(dir, armored);
  }
  const brokeragePrivate = await readPrivateKey(armored.brokeragePrivateKey);
  return { armored, brokeragePrivate };
}

export async function writeKeys(dir: string, armored: ArmoredKeys): Promise<void> {
  for (const [role, file] of Object.entries(KEY_FILES) as [keyof ArmoredKeys, string][]) {
    await writeAtomically(join(dir, file), armored[role], role.endsWith('PrivateKey') ? 0o600 : 0o644);
  }
}

/** Public keys of firms, parsed once per armored text. */
export class FirmKeyCache {
  readonly #keys = new Map<string, Promise<PublicKey>>();

  get(armored: string): Promise<PublicKey> {
    let key = this.#keys.get(armored);
    if (!key) {
      key = readPublicKey(armored);
      this.#keys.set(armored, key);
    }
    return key;
  }
}

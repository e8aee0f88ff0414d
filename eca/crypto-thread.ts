/**
 * A thread of the crypto pool (crypto-pool.ts): seals and opens envelopes with the keys the pool was made
 * with (given as armored text or file paths, loaded once per thread), off the event loop of the process.
 * An EcaCryptoError comes back as data, for the pool to throw it again as the same error.
 */
import { workerData } from 'node:worker_threads';
import { loadPrivateKey, loadPublicKey, open, RESPONSE_FILE_SIGNATURE, seal } from './crypto.js';
import type { EnvelopeKeys } from './crypto.js';
import { EcaCryptoError } from './errors.js';
import type { EcaCryptoPart } from './errors.js';

/** The firm's keys as the client options give them: armored text or a file's path. */
export interface CryptoThreadKeys {
  firmPrivateKey: string;
  passphrase?: string;
  brokeragePublicKey: string;
}

export type CryptoTask = { op: 'seal'; data: Uint8Array } | { op: 'open'; data: string };

export type CryptoOutcome =
  { sealed: string } | { opened: Uint8Array } | { refused: { key: EcaCryptoPart; message: string; stage?: 'seal' } };

let keys: Promise<EnvelopeKeys> | undefined;

function envelopeKeys(): Promise<EnvelopeKeys> {
  keys ??= (async () => {
    const given = workerData as CryptoThreadKeys;
    const [ownPrivateKey, peerPublicKey] = await Promise.all([
      loadPrivateKey(given.firmPrivateKey, given.passphrase, 'firmPrivateKey'),
      loadPublicKey(given.brokeragePublicKey, 'brokeragePublicKey'),
    ]);
    return { ownPrivateKey, peerPublicKey, side: 'firm' as const };
  })();
  // A failed load is not kept: a corrected key file is read by the next task.
  keys.catch(() => (keys = undefined));
  return keys;
}

export default async function run(task: CryptoTask): Promise<CryptoOutcome> {
  try {
    const loaded = await envelopeKeys();
    // The pool opens only the brokerage's response files.
    return task.op === 'seal'
      ? { sealed: await seal(task.data, loaded) }
      : { opened: await open(task.data, loaded, RESPONSE_FILE_SIGNATURE) };
  } catch (error) {
    if (!(error instanceof EcaCryptoError)) throw error;
    const message = error.message.slice(error.key.length + 2);
    return { refused: { key: error.key, message, ...(error.stage && { stage: error.stage }) } };
  }
}

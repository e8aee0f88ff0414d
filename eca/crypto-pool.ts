/**
 * OpenPGP work off the event loop: a pool of worker threads (piscina) that seal requests and open
 * response files with the firm's keys, so that a worker process's workflow tasks, polls and other
 * activities are not held up by signing, encryption, decryption and verification. Errors are the same
 * EcaCryptoError the calling thread would raise.
 */
import { Piscina } from 'piscina';
import { EcaCryptoError } from './errors.js';
import type { CryptoOutcome, CryptoTask, CryptoThreadKeys } from './crypto-thread.js';

export type { CryptoThreadKeys };

export interface CryptoPool {
  readonly threads: number;
  seal(data: Uint8Array): Promise<string>;
  open(base64: string): Promise<Uint8Array>;
  close(): Promise<void>;
}

/** The thread's module beside this one: TypeScript under tsx, JavaScript once built. */
function threadModule(): string {
  const here = import.meta.url;
  return new URL(here.endsWith('.ts') ? './crypto-thread.ts' : './crypto-thread.js', here).href;
}

export function createCryptoPool(keys: CryptoThreadKeys, threads: number): CryptoPool {
  if (!Number.isInteger(threads) || threads < 1)
    throw new RangeError(`crypto threads: expected an integer ≥ 1, got ${threads}`);
  const pool = new Piscina<CryptoTask, CryptoOutcome>({
    filename: threadModule(),
    workerData: keys,
    minThreads: 0,
    maxThreads: threads,
    // Threads that sat idle a minute end; the next task starts one again (keys are loaded again then).
    idleTimeout: 60_000,
  });
  const run = async (task: CryptoTask): Promise<CryptoOutcome> => {
    const outcome = await pool.run(task);
    if ('refused' in outcome) {
      const { key, message, stage } = outcome.refused;
      throw new EcaCryptoError(key, message, stage ? { stage } : undefined);
    }
    return outcome;
  };
  return {
    threads,
    async seal(data) {
      const outcome = await run({ op: 'seal', data });
      return (outcome as { sealed: string }).sealed;
    },
    async open(base64) {
      const outcome = await run({ op: 'open', data: base64 });
      return (outcome as { opened: Uint8Array }).opened;
    },
    close: () => pool.destroy(),
  };
}

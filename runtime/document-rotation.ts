/**
 * Re-encryption of the document store after a key rotation (`eca keys rotate`): every sealed file not
 * under the current key (the first of `ECA_CODEC_KEYS`), or still in the clear, is sealed anew under it
 * in place, one file at a time (in the filesystem store written anew, then renamed over the old one; in
 * the database store its row updated under a lock), so that the older key can be dropped. Idempotent
 * and resumable: a second run finds the files done as `current`. A file whose key is missing is counted
 * as failed and left as it is, never deleted. References do not change.
 */
import type { CodecKeyring } from '../codec/keyring.js';
import { configuredCodecKeyring, CodecConfigurationError } from '../codec/keyring.js';
import { openDocumentStore } from './document-store-location.js';
import type { MaintainedDocumentStore } from './document-store.js';

export type RotationOutcome = 'reencrypted' | 'current' | 'failed' | 'gone';

export interface RotationFailure {
  /** The file's reference in the store (a keyed name reveals nothing of the content). */
  ref: string;
  /** The error's name, e.g. DocumentUndecryptable. */
  error: string;
  message: string;
}

export interface RotationReport {
  /** Nothing was written: the counts say what a run would do. */
  dryRun: boolean;
  /** The key every file is now sealed under. */
  keyId: string;
  /** Sealed files found: documents and the store's records. */
  total: number;
  reencrypted: number;
  /** Under the current key already. */
  current: number;
  /** Left as they are: their key is missing, or they do not authenticate. */
  failed: number;
  /** Released or handed out while the run went on. */
  gone: number;
  failures: RotationFailure[];
  elapsedMs: number;
}

export interface RotationOptions {
  dryRun?: boolean;
  /** Files re-encrypted at once (default 8). */
  concurrency?: number;
  /** Told the number of files before the first is done. */
  onStart?: (total: number) => void | Promise<void>;
  /** Told each file's outcome, as it is done. */
  onProgress?: (ref: string, outcome: RotationOutcome) => void;
}

/** Re-encrypts every sealed file of `store` not under its current key (see the module's head). */
export async function reencryptStore(
  store: MaintainedDocumentStore,
  options: RotationOptions = {},
): Promise<RotationReport> {
  const keyId = store.currentKeyId;
  if (keyId === undefined) {
    throw new CodecConfigurationError('re-encryption needs the codec keys (ECA_CODEC_KEYS), the new key first');
  }
  const began = Date.now();
  const refs = await store.sealedFiles();
  await options.onStart?.(refs.length);
  const report: RotationReport = {
    dryRun: options.dryRun ?? false,
    keyId,
    total: refs.length,
    reencrypted: 0,
    current: 0,
    failed: 0,
    gone: 0,
    failures: [],
    elapsedMs: 0,
  };
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < refs.length; i = next++) {
      const ref = refs[i]!;
      let outcome: RotationOutcome;
      try {
        outcome = await store.reencrypt(ref, { dryRun: options.dryRun });
      } catch (error) {
        outcome = 'failed';
        const { name, message } = error instanceof Error ? error : new Error(String(error));
        report.failures.push({ ref, error: name, message });
      }
      report[outcome]++;
      options.onProgress?.(ref, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker));
  report.elapsedMs = Date.now() - began;
  return report;
}

/** The store at `location` (a directory or a database URL) with this process's codec keys (ECA_CODEC_KEYS), re-encrypted. */
export async function reencryptStoreAt(
  location: string,
  options: RotationOptions & { keyring?: CodecKeyring; env?: NodeJS.ProcessEnv } = {},
): Promise<RotationReport> {
  const keyring = options.keyring ?? configuredCodecKeyring(options.env);
  if (!keyring) {
    throw new CodecConfigurationError('re-encryption needs the codec keys: ECA_CODEC_DISABLED=true has none');
  }
  const store = await openDocumentStore(location, { keyring });
  try {
    return await reencryptStore(store, options);
  } finally {
    await store.close();
  }
}

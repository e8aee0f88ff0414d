/**
 * The data converter every Temporal client and worker of the engine uses: payloads through the
 * AES-256-GCM codec, failure messages and stack traces moved into (encrypted) payloads.
 *
 *   const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
 */
import { fileURLToPath } from 'node:url';
import type { DataConverter } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec.js';
import type { AesGcmCodecOptions } from './aes-gcm-codec.js';
import { configuredCodecKeyring } from './keyring.js';
import type { CodecKeyring } from './keyring.js';

/** The module with the `failureConverter` export, for `failureConverterPath` and `bundleWorkflowCode`. */
export const FAILURE_CONVERTER_PATH = fileURLToPath(
  // `.ts` run from the sources, `.js` compiled (dist/): the sibling has this module's own extension.
  new URL(`./failure-converter${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url),
);

/**
 * A data converter that encrypts with `keyring` (its first key) and decrypts with any of its keys;
 * `plaintext: 'refuse'` is strict mode (a worker's default, see workers/engine-worker.ts).
 */
export function codecDataConverter(keyring: CodecKeyring, options: AesGcmCodecOptions = {}): DataConverter {
  return {
    payloadCodecs: [new AesGcmPayloadCodec(keyring, options)],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/**
 * The data converter of this process's configuration (`ECA_CODEC_KEYS` or `ECA_CODEC_KEYS_FILE`).
 * Throws {@link CodecConfigurationError} naming the variables when no key is configured or a key is
 * malformed; returns `undefined` only when `ECA_CODEC_DISABLED=true` opts out.
 */
export function dataConverterFromEnv(env: NodeJS.ProcessEnv = process.env): DataConverter | undefined {
  const keyring = configuredCodecKeyring(env);
  return keyring && codecDataConverter(keyring);
}

/**
 * The payload codec's keys. They come from configuration only: `ECA_CODEC_KEYS` (a list in the
 * environment) or `ECA_CODEC_KEYS_FILE` (the same list in a file, e.g. a Docker or Kubernetes secret).
 *
 * Format: `keyId:base64Key` entries separated by commas or new lines, newest first; `#` starts a
 * comment in a file. The first key encrypts every new payload; all of them decrypt, so a rotation is:
 * put the new key first, deploy everywhere, and drop the old key only once no history still needs it.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

export const CODEC_KEYS_ENV = 'ECA_CODEC_KEYS';
export const CODEC_KEYS_FILE_ENV = 'ECA_CODEC_KEYS_FILE';
/** Set to `true` to run without encryption (local experiments only: histories are then readable). */
export const CODEC_DISABLED_ENV = 'ECA_CODEC_DISABLED';

/** A key is missing, malformed or ambiguous: the process must not start. */
export class CodecConfigurationError extends Error {
  override readonly name = 'EcaCodecConfigurationError';
}

export interface CodecKey {
  /** Written into every payload it encrypts (metadata `encryption-key-id`); never secret. */
  id: string;
  /** 32 bytes (AES-256). */
  key: Uint8Array;
}

/** Keys newest first: `keys[0]` encrypts, every key decrypts. */
export interface CodecKeyring {
  keys: readonly CodecKey[];
}

const KEY_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Parses `id:base64` entries; `source` names the variable or file in every error. */
export function parseCodecKeys(text: string, source: string): CodecKeyring {
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '');
  if (entries.length === 0) throw new CodecConfigurationError(`${source} holds no key`);
  const keys: CodecKey[] = [];
  entries.forEach((entry, index) => {
    const separator = entry.indexOf(':');
    const id = separator < 0 ? '' : entry.slice(0, separator).trim();
    const encoded = separator < 0 ? '' : entry.slice(separator + 1).trim();
    const where = `${source}: entry ${index + 1}`;
    if (!KEY_ID.test(id)) {
      throw new CodecConfigurationError(
        `${where} must be "keyId:base64Key" with a key id of letters, digits, '.', '_' or '-' (up to 64)`,
      );
    }
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
      throw new CodecConfigurationError(`${where} (key id ${id}): the key is not base64`);
    }
    const key = Buffer.from(encoded, 'base64');
    if (key.length !== 32) {
      throw new CodecConfigurationError(
        `${where} (key id ${id}): an AES-256 key has 32 bytes, this one has ${key.length}`,
      );
    }
    if (keys.some((existing) => existing.id === id)) {
      throw new CodecConfigurationError(`${where}: key id ${id} is listed twice`);
    }
    keys.push({ id, key: new Uint8Array(key) });
  });
  return { keys };
}

/**
 * The keyring of this process's configuration. Exactly one of `ECA_CODEC_KEYS` and
 * `ECA_CODEC_KEYS_FILE` must be set; with neither, the error names both (and the way to opt out).
 */
export function codecKeyringFromEnv(env: NodeJS.ProcessEnv = process.env): CodecKeyring {
  const inline = env[CODEC_KEYS_ENV];
  const file = env[CODEC_KEYS_FILE_ENV];
  if (inline && file) {
    throw new CodecConfigurationError(`set either ${CODEC_KEYS_ENV} or ${CODEC_KEYS_FILE_ENV}, not both`);
  }
  if (inline) return parseCodecKeys(inline, CODEC_KEYS_ENV);
  if (file) {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new CodecConfigurationError(
        `${CODEC_KEYS_FILE_ENV} ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
    return parseCodecKeys(text, `${CODEC_KEYS_FILE_ENV} ${file}`);
  }
  throw new CodecConfigurationError(
    `payload encryption needs keys: set ${CODEC_KEYS_ENV} or ${CODEC_KEYS_FILE_ENV} ` +
      `("keyId:base64Key", newest first; \`npm run codec-server -- --generate-key\` prints one), ` +
      `or ${CODEC_DISABLED_ENV}=true to run without encryption`,
  );
}

/** A worker accepts payloads that are not encrypted (a migration from plaintext histories); strict by default. */
export const CODEC_ALLOW_PLAINTEXT_ENV = 'ECA_CODEC_ALLOW_PLAINTEXT';

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  return ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase());
}

/** Whether a worker takes plaintext payloads as they are (`ECA_CODEC_ALLOW_PLAINTEXT=true`). */
export function codecAllowsPlaintext(env: NodeJS.ProcessEnv = process.env): boolean {
  return flag(env, CODEC_ALLOW_PLAINTEXT_ENV);
}

/** Whether the configuration opts out of payload encryption (`ECA_CODEC_DISABLED=true`). */
export function codecDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return flag(env, CODEC_DISABLED_ENV);
}

/**
 * The keys of this process's configuration, for payloads and the document store alike: undefined only
 * when `ECA_CODEC_DISABLED=true` opts out; otherwise as {@link codecKeyringFromEnv} (which throws when
 * no key is configured or a key is malformed).
 */
export function configuredCodecKeyring(env: NodeJS.ProcessEnv = process.env): CodecKeyring | undefined {
  return codecDisabled(env) ? undefined : codecKeyringFromEnv(env);
}

/** A fresh random key, as one `keyId:base64Key` entry. */
export function generateCodecKeyEntry(id = `k${new Date().toISOString().slice(0, 10).replaceAll('-', '')}`): string {
  if (!KEY_ID.test(id)) throw new CodecConfigurationError(`invalid key id ${JSON.stringify(id)}`);
  return `${id}:${randomBytes(32).toString('base64')}`;
}

/** A keyring of one fresh key (demo, tests). */
export function generateCodecKeyring(id?: string): CodecKeyring {
  return parseCodecKeys(generateCodecKeyEntry(id), 'generated key');
}

/** The keyring as the `ECA_CODEC_KEYS` value (to hand to a child process). */
export function formatCodecKeys(keyring: CodecKeyring): string {
  return keyring.keys.map((key) => `${key.id}:${Buffer.from(key.key).toString('base64')}`).join(',');
}

/**
 * `npm run codec-server`: the codec server for the Temporal UI and CLI (see codec/server.ts).
 *
 *   ECA_CODEC_KEYS / ECA_CODEC_KEYS_FILE        the payload keys, as for the worker
 *   ECA_CODEC_SERVER_TOKEN / _TOKEN_FILE        the bearer token callers present (≥ 16 characters)
 *   ECA_CODEC_SERVER_PORT (8888), ECA_CODEC_SERVER_HOST (127.0.0.1)
 *   ECA_CODEC_UI_ORIGINS                        UI origins, comma-separated (http://localhost:8233,http://localhost:8080)
 *
 *   npm run codec-server -- --generate-key [id]  prints a new "keyId:base64Key" entry and exits
 */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { codecKeyringFromEnv, CodecConfigurationError, generateCodecKeyEntry } from './keyring.js';
import { startCodecServer } from './server.js';

function token(env: NodeJS.ProcessEnv): string {
  if (env.ECA_CODEC_SERVER_TOKEN) return env.ECA_CODEC_SERVER_TOKEN;
  const file = env.ECA_CODEC_SERVER_TOKEN_FILE;
  if (file) {
    try {
      return readFileSync(file, 'utf8').trim();
    } catch {
      throw new CodecConfigurationError(`ECA_CODEC_SERVER_TOKEN_FILE ${file} cannot be read`);
    }
  }
  throw new CodecConfigurationError('the codec server needs ECA_CODEC_SERVER_TOKEN or ECA_CODEC_SERVER_TOKEN_FILE');
}

async function main(): Promise<void> {
  const options = new Command()
    .name('codec-server')
    .option('--generate-key [id]', 'print a new key entry for ECA_CODEC_KEYS and exit')
    .option('--port <port>', 'port (ECA_CODEC_SERVER_PORT)')
    .option('--host <host>', 'address to bind (ECA_CODEC_SERVER_HOST)')
    .parse()
    .opts<{ generateKey?: string | boolean; port?: string; host?: string }>();
  if (options.generateKey !== undefined) {
    console.log(generateCodecKeyEntry(typeof options.generateKey === 'string' ? options.generateKey : undefined));
    return;
  }
  const env = process.env;
  const port = Number(options.port ?? env.ECA_CODEC_SERVER_PORT ?? 8888);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CodecConfigurationError(`ECA_CODEC_SERVER_PORT: not a port number`);
  }
  const uiOrigin = (env.ECA_CODEC_UI_ORIGINS ?? 'http://localhost:8233,http://localhost:8080')
    .split(',')
    .map((origin) => origin.trim())
    .filter(Boolean);
  const server = await startCodecServer({
    port,
    host: options.host ?? env.ECA_CODEC_SERVER_HOST ?? '127.0.0.1',
    keys: codecKeyringFromEnv(env),
    token: token(env),
    uiOrigin,
    log: (line) => console.error(`[codec-server] ${line}`),
  });
  console.log(`eca codec server on ${server.url} for UI origins ${uiOrigin.join(', ')}`);
  console.log(
    `  temporal workflow show ... --codec-endpoint ${server.url} --codec-auth "Bearer $ECA_CODEC_SERVER_TOKEN"`,
  );
  console.log(`  temporal server start-dev --ui-codec-endpoint ${server.url}/<token>`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof CodecConfigurationError ? error.message : `codec server failed: ${String(error)}`);
  process.exit(1);
});

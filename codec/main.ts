/**
 * `npm run codec-server` / `eca-codec-server`: the codec server for the Temporal UI and CLI (see codec/server.ts).
 *
 *   ECA_CODEC_KEYS / ECA_CODEC_KEYS_FILE        the payload keys, as for the worker
 *   ECA_CODEC_SERVER_TOKEN / _TOKEN_FILE        the bearer token callers present (≥ 16 characters)
 *   ECA_CODEC_SERVER_PORT (8888), ECA_CODEC_SERVER_HOST (127.0.0.1)
 *   ECA_CODEC_UI_ORIGINS                        UI origins, comma-separated (http://localhost:8233,http://localhost:8080)
 *
 *   npm run codec-server -- --generate-key [id]  prints a new "keyId:base64Key" entry and exits
 *
 * `--help` lists them; an unknown argument is refused (exit 2).
 */
import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
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

const DEFAULT_UI_ORIGINS = 'http://localhost:8233,http://localhost:8080';

/** What `--help` lists after the options: the variables the codec server reads. */
const ENVIRONMENT = `
Environment:
  ECA_CODEC_KEYS               payload keys, keyId:base64Key, comma-separated, newest first (the workers')
  ECA_CODEC_KEYS_FILE          the same list in a file, one a line (instead of ECA_CODEC_KEYS)
  ECA_CODEC_SERVER_TOKEN       the bearer token callers present, at least 16 characters
  ECA_CODEC_SERVER_TOKEN_FILE  a file holding that token (instead of ECA_CODEC_SERVER_TOKEN)
  ECA_CODEC_SERVER_PORT        the port to listen on (8888)
  ECA_CODEC_SERVER_HOST        the address to listen on (127.0.0.1)
  ECA_CODEC_UI_ORIGINS         the browser origins allowed, comma-separated (${DEFAULT_UI_ORIGINS})
`;

interface Options {
  generateKey?: string | boolean;
  port?: string;
  host?: string;
}

/** The command line: its options, or the exit code when it was only `--help` (0) or is refused (2). */
function commandLine(argv: string[]): Options | number {
  const program = new Command('eca-codec-server')
    .description(
      "The codec server for the Temporal UI and CLI: decodes and encodes the engine's encrypted payloads " +
        '(POST /decode, /encode) for callers that present its bearer token. Configured by the environment ' +
        'below; SIGINT or SIGTERM stops it.',
    )
    .option('--generate-key [id]', 'print a new key entry for ECA_CODEC_KEYS and exit')
    .option('--port <port>', 'port (ECA_CODEC_SERVER_PORT)')
    .option('--host <host>', 'address to bind (ECA_CODEC_SERVER_HOST)')
    .helpOption('-h, --help', 'print this help and exit')
    .addHelpText('after', ENVIRONMENT)
    .showHelpAfterError('(eca-codec-server --help for usage)')
    .exitOverride();
  try {
    return program.parse(argv).opts<Options>();
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
}

async function main(): Promise<void> {
  const options = commandLine(process.argv);
  if (typeof options === 'number') {
    process.exitCode = options;
    return;
  }
  if (options.generateKey !== undefined) {
    console.log(generateCodecKeyEntry(typeof options.generateKey === 'string' ? options.generateKey : undefined));
    return;
  }
  const env = process.env;
  const port = Number(options.port ?? env.ECA_CODEC_SERVER_PORT ?? 8888);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    throw new CodecConfigurationError(`ECA_CODEC_SERVER_PORT: not a port number`);
  }
  const uiOrigin = (env.ECA_CODEC_UI_ORIGINS ?? DEFAULT_UI_ORIGINS)
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

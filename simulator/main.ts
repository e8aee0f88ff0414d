/**
 * CLI of the stand-in brokerage:
 *   npm run simulator -- --port 8700 --data-dir .data/simulator [--time-scale 1440] [--env qa|prod] [--host 127.0.0.1]
 * The first line printed names the address, the demo firm's CSID and the key directory. Without
 * `--data-dir` the keys (private ones among them) go to a temporary directory, removed when the
 * process ends: on SIGTERM, SIGINT, a failed start or any other exit.
 */
import { rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { isScenarioName, SCENARIO_NAMES, type ScenarioName } from './scenarios.js';
import { startSimulator } from './server.js';
import type { RunningSimulator } from './server.js';
import { LAGGED_OPERATIONS } from './listing-lag.js';
import type { ListingLagSettings } from './listing-lag.js';
import type { RateCapSettings } from './rate-cap.js';
import { UNPROMISED_NAMES } from './unpromised.js';
import type { KeyAlgorithm } from './crypto.js';

function positiveNumber(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a positive number');
  return n;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65_535) throw new InvalidArgumentError('expected a port number');
  return n;
}

/** `MIN-MAX` milliseconds: every lagged look-up lists a write that long after it (listing-lag.ts). */
function lagRange(value: string): ListingLagSettings {
  const match = /^(\d+)-(\d+)$/.exec(value);
  const [min, max] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN];
  if (!(min <= max)) throw new InvalidArgumentError('expected MIN-MAX in milliseconds, e.g. 25000-40000');
  return Object.fromEntries(LAGGED_OPERATIONS.map((operation) => [operation, { minMs: min, maxMs: max }]));
}

/** `N`, `operation=N`, `per-firm=N`, comma-separated: calls a second in all, per operation, per firm (rate-cap.ts). */
function rateCap(value: string): RateCapSettings {
  const settings: { total?: number; perOperation: Record<string, number>; perFirm?: number } = { perOperation: {} };
  for (const part of value.split(',')) {
    const [name, count] = part.includes('=') ? part.split('=', 2) : [undefined, part];
    const n = Number(count);
    if (!Number.isInteger(n) || n <= 0) {
      throw new InvalidArgumentError(
        `expected N, operation=N or per-firm=N (comma-separated) with whole numbers above 0, got "${part}"`,
      );
    }
    if (name === undefined) settings.total = n;
    else if (name.trim() === 'per-firm') settings.perFirm = n;
    else settings.perOperation[name.trim()] = n;
  }
  return settings;
}

interface CliOptions {
  keys: KeyAlgorithm;
  rateCap?: RateCapSettings;
  listingLag?: ListingLagSettings;
  unpromised?: string[];
  port: number;
  host: string;
  publicUrl?: string;
  dataDir?: string;
  timeScale?: number;
  env: 'qa' | 'prod';
  scenario: ScenarioName;
  startTime?: string;
}

const program = new Command()
  .name('simulator')
  .description(
    'A stand-in brokerage: the Account Opening and Maintenance Web Service with a clock, scenarios and faults',
  )
  .option('--port <port>', 'port to listen on (0 picks a free one)', port, 8700)
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option(
    '--public-url <url>',
    'the address clients reach it at, which names its token endpoint (default: the URL it listens on)',
  )
  .option('--data-dir <dir>', 'keep state and keys here across restarts')
  .option('--time-scale <n>', 'simulated time runs n times faster than real time', positiveNumber)
  .addOption(new Option('--env <env>', 'QA or production behaviour').choices(['qa', 'prod']).default('qa'))
  .addOption(
    new Option('--scenario <name>', 'scenario of external ids without assignment or prefix')
      .choices([...SCENARIO_NAMES])
      .default('happy'),
  )
  .option('--start-time <iso>', 'simulated start time on a first start (ISO 8601)')
  .option(
    '--unpromised <names>',
    `break readings the spec does not promise, comma-separated: all or ${UNPROMISED_NAMES.join(', ')}`,
    (value: string) =>
      value
        .split(',')
        .map((name) => name.trim())
        .filter((name) => name !== ''),
  )
  .option('--listing-lag <min-max>', 'look-ups list a processed write MIN-MAX ms late (real time)', lagRange)
  .addOption(
    new Option('--keys <algorithm>', 'algorithm of the keys made on a first start')
      .choices(['curve25519', 'rsa4096'])
      .default('curve25519'),
  )
  .option(
    '--rate-cap <spec>',
    'refuse calls past N a second (real time) with 429: N in all, operation=N each, per-firm=N for each CSID, e.g. 10,create=2,per-firm=5',
    rateCap,
  );

/** The temporary key directory, removed when the process exits however it does (but SIGKILL). */
async function temporaryKeysDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'eca-simulator-keys-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function main(): Promise<void> {
  program.parse();
  const options = program.opts<CliOptions>();
  if (!isScenarioName(options.scenario)) throw new Error('unknown scenario');
  const running: { simulator?: RunningSimulator } = {};
  let stopping = false;
  // Installed before the start: a signal during it still ends the process through `exit`.
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`[simulator] ${signal}: shutting down\n`);
    (running.simulator?.close() ?? Promise.resolve()).then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`[simulator] shutdown failed: ${error instanceof Error ? error.message : 'unknown'}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  // Without a data dir the keys still need a home the engine's configuration can point at.
  const keysDir = options.dataDir === undefined ? await temporaryKeysDir() : undefined;
  const simulator = await startSimulator({
    port: options.port,
    host: options.host,
    ...(options.publicUrl !== undefined && { publicUrl: options.publicUrl }),
    dataDir: options.dataDir,
    keysDir,
    timeScale: options.timeScale,
    env: options.env,
    defaultScenario: options.scenario,
    startTime: options.startTime,
    ...(options.listingLag && { listingLag: options.listingLag }),
    ...(options.unpromised && { unpromised: options.unpromised }),
    ...(options.rateCap && { rateCap: options.rateCap }),
    keyAlgorithm: options.keys,
    log: (line) => process.stderr.write(`[simulator] ${line}\n`),
  });
  running.simulator = simulator;
  process.stdout.write(
    `ECA simulator listening on ${simulator.url} (CSID ${simulator.csid}, keys in ${simulator.keysDir ?? '(memory)'})\n`,
  );
  process.stdout.write(
    `  env ${simulator.env}, preference base ${simulator.preferenceUrl}, control API ${simulator.controlUrl}, ` +
      `time scale ${simulator.control.clock().timeScale}\n`,
  );
}

main().catch((error: unknown) => {
  process.stderr.write(`[simulator] failed to start: ${error instanceof Error ? error.message : 'unknown'}\n`);
  process.exit(1);
});

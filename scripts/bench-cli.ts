/**
 * How fast the installed `eca` command answers `--help`: packs and installs the package into an empty
 * project (scripts/package-install.ts), then runs its `eca --help` and, when the Temporal CLI is cached
 * (npm run servers), `temporal --help` the same number of times. Prints median and slowest wall times.
 *
 *   npm run bench:cli -- [--runs 20]
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packAndInstall } from './package-install.js';
import { cacheRoot } from './cache.js';
import { TEMPORAL_CLI_VERSION } from './temporal-servers.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' } } });
const RUNS = Number(values.runs);

/** Wall-clock milliseconds of each run of `command args`, which must exit 0. */
function time(command: string, args: string[], cwd: string): number[] {
  const times: number[] = [];
  for (let n = 0; n < RUNS; n++) {
    const started = process.hrtime.bigint();
    const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr.toString()}`);
  }
  return times.sort((a, b) => a - b);
}

function summary(label: string, times: number[]): string {
  const median = times[Math.floor(times.length / 2)] ?? NaN;
  return `${label}: median ${(median / 1000).toFixed(3)} s, slowest ${((times.at(-1) ?? NaN) / 1000).toFixed(3)} s (${times.length} runs)`;
}

async function main(): Promise<void> {
  process.stderr.write('packing and installing the package...\n');
  const installed = await packAndInstall();
  try {
    const eca = join(installed.projectDir, 'node_modules', '.bin', 'eca');
    time(eca, ['--help'], installed.projectDir); // the first runs warm the file cache
    console.log(summary('eca --help (installed package)', time(eca, ['--help'], installed.projectDir)));
    const temporal =
      process.env.TEMPORAL_CLI_PATH ?? join(cacheRoot(), 'temporal-cli', TEMPORAL_CLI_VERSION, 'temporal');
    if (existsSync(temporal)) {
      console.log(summary('temporal --help', time(temporal, ['--help'], installed.projectDir)));
    }
  } finally {
    await rm(join(installed.projectDir, '..'), { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(`bench-cli: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});

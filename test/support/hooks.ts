import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Context, Suite } from 'mocha';
import type * as ServersModule from './servers.js';
import { observeOutput } from '../../scripts/processes/child.js';
import { logWatch } from './log-watch.js';
import { FUZZ_SEED, takeFuzzCounts } from './fuzz.js';

export { expectLog } from './expected-logs.js';
export type { ExpectedLog } from './expected-logs.js';

/**
 * Loads a helper as mocha loaded this hook and the test files (required, through tsx), so that it is the
 * instance they share: the servers they started, the lines they expect.
 */
const load = createRequire(import.meta.url);

/**
 * Whether this process has loaded Temporal's worker (a test file or a helper imported it, or
 * `@temporalio/testing`): only then does a file need the runtime's logger and the test servers. A file
 * without Temporal (a unit file) loads neither: the worker's runtime alone costs seconds of CPU.
 */
function temporalLoaded(): boolean {
  return Object.keys(load.cache).some((path) => path.includes('/@temporalio/worker/'));
}

// What every process a test starts writes is searched too (the worker, the API, the simulator, the servers).
observeOutput((name, lines) => logWatch.readOutput(name, lines));

/**
 * The log watch's verdict on the lines read since the last one: a line with an applicant's data fails the file
 * that was running (mocha's parallel workers run the root hooks once per file).
 */
function reportLogWatch(): void {
  const findings = logWatch.takeFindings();
  if (findings.length > 0) {
    const listed = findings.slice(0, 10).map((finding) => `    ${finding.found} in "${finding.message}"`);
    throw new Error(`${findings.length} log line(s) hold personal data:\n${listed.join('\n')}`);
  }
}

/** Whether this process is one of mocha's parallel workers, which run several files each. */
const parallelWorker = process.env.MOCHA_WORKER_ID !== undefined;

/**
 * `TEST_FILE_TIMES=<file>`: for each file npm test runs, a line of its time in ms, the CPU in ms of the test
 * process, the CPU in ms of the processes it started and that have ended (the CLI runs, not the servers;
 * `-` off Linux) and its path.
 */
const fileTimes = process.env.TEST_FILE_TIMES;
let fileStarted = 0;
let fileCpu = process.cpuUsage();
let fileChildrenMs: number | undefined;

/** The CPU in ms of this process's ended children (Linux's cutime + cstime, in 10 ms ticks). */
function childrenCpuMs(): number | undefined {
  try {
    // The fields after the command's closing parenthesis: cutime and cstime are the 14th and 15th of them.
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function recordFileTime(context: Context): void {
  if (!fileTimes) return;
  const files = new Set<string>();
  const visit = (suite: Suite) => {
    if (suite.file) files.add(suite.file);
    suite.suites.forEach(visit);
  };
  if (context.test?.parent) visit(context.test.parent);
  const cpu = process.cpuUsage(fileCpu);
  const cpuMs = Math.round((cpu.user + cpu.system) / 1000);
  const children = childrenCpuMs();
  const childrenMs = children === undefined || fileChildrenMs === undefined ? '-' : children - fileChildrenMs;
  appendFileSync(fileTimes, `${Date.now() - fileStarted}\t${cpuMs}\t${childrenMs}\t${[...files].join(',')}\n`);
}

/** Root hooks (mocha's root hook plugin), loaded through `.mocharc.json`; a parallel worker runs them per file. */
export const mochaHooks = {
  beforeAll() {
    fileStarted = Date.now();
    fileCpu = process.cpuUsage();
    fileChildrenMs = childrenCpuMs();
    // Before the file's first hook: its workers and servers log through the test logger (temporal-runtime.ts).
    if (temporalLoaded()) load('./temporal-runtime.js');
  },
  async afterAll(this: Context) {
    this.timeout(60_000);
    recordFileTime(this);
    // `TEST_TELL_TEMPORAL=1`: says whether the file loaded Temporal's worker (test/e2e/processes/root-hook.test.ts).
    if (process.env.TEST_TELL_TEMPORAL) console.log(`@temporalio/worker loaded: ${temporalLoaded()}`);
    if (temporalLoaded()) {
      const { stopRetiredServers, stopServers } = load('./servers.js') as typeof ServersModule;
      // A worker keeps its servers for its next file (servers.ts kills them as it exits).
      await (parallelWorker ? stopRetiredServers() : stopServers());
    }
    reportLogWatch();
    const counts = [...takeFuzzCounts()];
    if (counts.length) {
      const total = counts.reduce((sum, [, runs]) => sum + runs, 0);
      console.log(`\n  Fuzzing (seed ${FUZZ_SEED}, FUZZ_SEED replays it): ${total} cases`);
      for (const [surface, runs] of counts) console.log(`    ${String(runs).padStart(7)}  ${surface}`);
    }
  },
};

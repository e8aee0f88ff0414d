import { appendFileSync } from 'node:fs';
import type { Context, Suite } from 'mocha';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { temporalLogger } from '../../runtime/logger.js';
import { stopRetiredServers, stopServers } from './servers.js';
import { observeOutput } from '../../scripts/processes/child.js';
import { logWatch, watchedLogger } from './log-watch.js';
import { FUZZ_SEED, takeFuzzCounts } from './fuzz.js';

/** A log line a test provokes on purpose: counted for the test to assert, not printed. */
export interface ExpectedLog {
  readonly pattern: RegExp;
  seen: number;
  /** Stops expecting it: later lines print again. */
  done(): void;
}

const expected = new Set<ExpectedLog>();

/**
 * Declares a log line the running test provokes (an alert it asserts, say): a passing test prints no
 * `[ERROR]` line, and a test that expects a line can check it was logged.
 */
export function expectLog(pattern: RegExp): ExpectedLog {
  const entry: ExpectedLog = { pattern, seen: 0, done: () => expected.delete(entry) };
  expected.add(entry);
  return entry;
}

/** Every line, through the engine's logger, to the watch (log-watch.ts). */
const watched = temporalLogger(watchedLogger('eca-worker'));

/** The runtime's logger: every line to the watch; printed, less the lines a test expects. */
class TestLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    watched.log(level, message, meta);
    // Every expectation that matches counts the line: one a failed test left behind takes none from the next.
    let wasExpected = false;
    for (const entry of expected) {
      if (entry.pattern.test(message)) {
        entry.seen++;
        wasExpected = true;
      }
    }
    if (!wasExpected) super.log(level, message, meta);
  }
}

// Workers log every state change at INFO; tests keep warnings and errors only (TEST_LOG_LEVEL overrides).
Runtime.install({
  logger: new TestLogger((process.env.TEST_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN'),
  // Not the core's lines (the worker forwards them, workers/main.ts): forwarding holds every line 100 ms,
  // and a test that expects a line reads it as soon as it is provoked.
});

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

/** `TEST_FILE_TIMES=<file>`: the time in ms and the path of each file npm test runs (of the whole run in one process). */
const fileTimes = process.env.TEST_FILE_TIMES;
let fileStarted = 0;

function recordFileTime(context: Context): void {
  if (!fileTimes) return;
  const files = new Set<string>();
  const visit = (suite: Suite) => {
    if (suite.file) files.add(suite.file);
    suite.suites.forEach(visit);
  };
  if (context.test?.parent) visit(context.test.parent);
  appendFileSync(fileTimes, `${Date.now() - fileStarted}\t${[...files].join(',')}\n`);
}

/** Root hooks (mocha's root hook plugin), loaded through `.mocharc.json`; a parallel worker runs them per file. */
export const mochaHooks = {
  beforeAll() {
    fileStarted = Date.now();
  },
  async afterAll(this: Context) {
    this.timeout(60_000);
    recordFileTime(this);
    // A worker keeps its servers for its next file (servers.ts kills them as it exits).
    await (parallelWorker ? stopRetiredServers() : stopServers());
    reportLogWatch();
    const counts = [...takeFuzzCounts()];
    if (counts.length) {
      const total = counts.reduce((sum, [, runs]) => sum + runs, 0);
      console.log(`\n  Fuzzing (seed ${FUZZ_SEED}, FUZZ_SEED replays it): ${total} cases`);
      for (const [surface, runs] of counts) console.log(`    ${String(runs).padStart(7)}  ${surface}`);
    }
  },
};

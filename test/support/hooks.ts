import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Context } from 'mocha';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { temporalLogger } from '../../runtime/logger.js';
import { provisionServers, stopServers } from './servers.js';
import { LOG_SITES, logWatch, watchedLogger } from './log-watch.js';
import { FUZZ_SEED, fuzzCounts } from './fuzz.js';

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

/** Whether this run loaded every test file of `npm test` and ran them unfiltered and unfailed. */
function wholeRun(context: Context): boolean {
  const root = context.test?.parent;
  if (!root || process.argv.some((arg) => /^(--grep|-g|--fgrep|-f|--invert|-i)(=|$)/.test(arg))) return false;
  const files = new Set<string>();
  let failed = false;
  const visit = (suite: NonNullable<typeof root>) => {
    if (suite.file) files.add(suite.file);
    if (suite.tests.some((test) => test.state === 'failed')) failed = true;
    suite.suites.forEach(visit);
  };
  visit(root);
  return !failed && files.size >= npmTestFiles().length;
}

/** The test files `npm test` runs (.mocharc.json: every `*.test.ts` under test/, less the fault and cluster suites). */
function npmTestFiles(): string[] {
  return readdirSync(fileURLToPath(new URL('..', import.meta.url)), { recursive: true, encoding: 'utf8' }).filter(
    (file) => file.endsWith('.test.ts') && !/^(faults|cluster)\//.test(file),
  );
}

/**
 * The log watch's verdict: a line with personal data fails the run; so does a whole run that leaves a log call
 * site of log-watch.ts unreached.
 */
function reportLogWatch(context: Context): void {
  const findings = logWatch.findings;
  if (findings.length > 0) {
    const listed = findings.slice(0, 10).map((finding) => `    ${finding.found} in "${finding.message}"`);
    throw new Error(`${findings.length} log line(s) of ${logWatch.lines} hold personal data:\n${listed.join('\n')}`);
  }
  const missed = LOG_SITES.filter((_, index) => !logWatch.counts[index]);
  console.log(
    `\n  Log watch: ${logWatch.lines} lines, no personal data; ` +
      `${LOG_SITES.length - missed.length} of ${LOG_SITES.length} log call sites reached` +
      missed.map((site) => `\n    not reached: ${site.file}: ${site.message}`).join(''),
  );
  if (missed.length > 0 && wholeRun(context)) {
    const listed = missed.map((site) => `    ${site.file}: ${String(site.message)}`);
    throw new Error(`log call sites no test reached:\n${listed.join('\n')}`);
  }
}

/** Root hooks (mocha's root hook plugin), loaded through `.mocharc.json`. */
export const mochaHooks = {
  async beforeAll(this: Context) {
    // A first run builds the dev server with Go (minutes); later runs find it cached.
    this.timeout(30 * 60_000);
    await provisionServers();
  },
  async afterAll(this: Context) {
    this.timeout(60_000);
    await stopServers();
    reportLogWatch(this);
    const counts = [...fuzzCounts()];
    if (counts.length) {
      const total = counts.reduce((sum, [, runs]) => sum + runs, 0);
      console.log(`\n  Fuzzing (seed ${FUZZ_SEED}, FUZZ_SEED replays it): ${total} cases`);
      for (const [surface, runs] of counts) console.log(`    ${String(runs).padStart(7)}  ${surface}`);
    }
  },
};

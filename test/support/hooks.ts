import type { Context } from 'mocha';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { provisionServers, stopServers } from './servers.js';
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

/** The runtime's logger, less the lines a test expects. */
class TestLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    for (const entry of expected) {
      if (entry.pattern.test(message)) {
        entry.seen++;
        return;
      }
    }
    super.log(level, message, meta);
  }
}

// Workers log every state change at INFO; tests keep warnings and errors only (TEST_LOG_LEVEL overrides).
Runtime.install({
  logger: new TestLogger((process.env.TEST_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN'),
});

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
    const counts = [...fuzzCounts()];
    if (counts.length) {
      const total = counts.reduce((sum, [, runs]) => sum + runs, 0);
      console.log(`\n  Fuzzing (seed ${FUZZ_SEED}, FUZZ_SEED replays it): ${total} cases`);
      for (const [surface, runs] of counts) console.log(`    ${String(runs).padStart(7)}  ${surface}`);
    }
  },
};

/**
 * The log lines a test provokes on purpose (hooks.ts `expectLog`): counted for the test to assert, not
 * printed. Light on purpose: the root hook loads it for every file, the Temporal runtime's logger
 * (temporal-runtime.ts) only for files that use Temporal.
 */

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

/** Counts `message` for every expectation it matches; whether any did (then it is not printed). */
export function countExpected(message: string): boolean {
  // Every expectation that matches counts the line: one a failed test left behind takes none from the next.
  let wasExpected = false;
  for (const entry of expected) {
    if (entry.pattern.test(message)) {
      entry.seen++;
      wasExpected = true;
    }
  }
  return wasExpected;
}

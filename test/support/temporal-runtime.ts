/**
 * The Temporal runtime's logger for tests, installed when this module loads: every line to the log watch
 * (log-watch.ts), printed less the lines a test expects (expected-logs.ts). Loaded by the helpers that start
 * servers or workers (servers.ts, engine.ts) and by the root hook before a file that loaded
 * `@temporalio/worker` runs (hooks.ts); a file without Temporal never loads the worker's runtime.
 */
import { DefaultLogger, Runtime } from '@temporalio/worker';
import type { LogLevel, LogMetadata } from '@temporalio/worker';
import { temporalLogger } from '../../runtime/logger.js';
import { watchedLogger } from './log-watch.js';
import { countExpected } from './expected-logs.js';

/** Every line, through the engine's logger, to the watch (log-watch.ts). */
const watched = temporalLogger(watchedLogger('eca-worker'));

/** The runtime's logger: every line to the watch; printed, less the lines a test expects. */
class TestLogger extends DefaultLogger {
  override log(level: LogLevel, message: string, meta?: LogMetadata): void {
    watched.log(level, message, meta);
    if (!countExpected(message)) super.log(level, message, meta);
  }
}

// Workers log every state change at INFO; tests keep warnings and errors only (TEST_LOG_LEVEL overrides).
Runtime.install({
  logger: new TestLogger((process.env.TEST_LOG_LEVEL as 'WARN' | undefined) ?? 'WARN'),
  // Not the core's lines (the worker forwards them, workers/main.ts): forwarding holds every line 100 ms,
  // and a test that expects a line reads it as soon as it is provoked.
});

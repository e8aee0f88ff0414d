/**
 * Defaults of the worker's tunables, read by the configuration (runtime/config.ts) and by the
 * activities that take them as options; the demo and the bench start from them as well.
 */

/**
 * How long a status read waits for others to join its call. Polls of a slot reach a worker spread over
 * the seconds it takes to run their timers; 1 s merges them about ten times better than 50 ms
 * (docs/performance.md) and costs at most a second on a poll. The worker's configuration, the demo
 * and the bench all start from these defaults.
 */
export const DEFAULT_BATCH_WINDOW_MS = 1000;
/**
 * Accounts per getAccountStatus / getPendingTasks call at most (the spec states no maximum): a list the service
 * refuses as a whole is sent again in shorter parts (brokerage/xml/account-lists.ts).
 */
export const DEFAULT_MAX_ACCOUNTS_PER_CALL = 100;
/**
 * How often the firm's status sweep lists its waiting applications from visibility (and compares what
 * each last read itself) rather than its snapshot alone: the snapshot's safety net, an hour.
 */
export const DEFAULT_SWEEP_LISTING_INTERVAL_MS = 60 * 60_000;

export interface StepFailureBounds {
  /** Configuration errors are retried this long (from the step's first attempt), then the application is blocked. */
  blockAfterMs: number;
  /** Anomalies are tried this many times, then the application is blocked. */
  anomalyAttempts: number;
}

/** A day to fix a configuration (each attempt alerts); about half an hour of anomalies (5 s doubling to 10 min). */
export const DEFAULT_STEP_FAILURE_BOUNDS: StepFailureBounds = { blockAfterMs: 24 * 60 * 60_000, anomalyAttempts: 10 };

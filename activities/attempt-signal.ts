/**
 * The activity attempt's abort signal: no attempt outlives its start-to-close timeout. Temporal starts
 * the next attempt when the timeout fires; an HTTP call of the earlier attempt still in flight then could
 * reach the brokerage after the next attempt's lookup (a second account, a second request). Every activity
 * runs with a signal that aborts when the activity is cancelled or a margin before its start-to-close
 * timeout (`attemptSignalInterceptor`, an activity inbound interceptor every engine worker installs:
 * activities/interceptors.ts `engineActivityInterceptors`), and the brokerage client aborts every call with it
 * (`attemptSignal`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';

const current = new AsyncLocalStorage<AbortSignal>();

/** Time kept between the abort and the start-to-close timeout: the abort must land first. */
export const ABORT_MARGIN_MS = 5_000;

/** The abort signal of the activity attempt running now, for the brokerage client's `signal` option. */
export function attemptSignal(): AbortSignal | undefined {
  return current.getStore();
}

/** Runs each activity attempt with a signal that aborts on cancellation and before the start-to-close timeout. */
export const attemptSignalInterceptor: ActivityInterceptorsFactory = (context) => ({
  inbound: {
    execute(input, next) {
      const signals = [context.cancellationSignal];
      const { startToCloseTimeoutMs } = context.info;
      if (startToCloseTimeoutMs > 0) {
        signals.push(AbortSignal.timeout(Math.max(startToCloseTimeoutMs - ABORT_MARGIN_MS, 1_000)));
      }
      return current.run(AbortSignal.any(signals), () => next(input));
    },
  },
});

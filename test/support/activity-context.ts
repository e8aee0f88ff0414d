/**
 * Activity code called by a test, in an activity's context as a worker runs it: the code reads its attempt
 * (write-attempt.ts), heartbeats and logs through the context. Each call runs in a MockActivityEnvironment of
 * its own, whose log is the engine's logger to the log watch (log-watch.ts): a first attempt unless `info`
 * says otherwise. Without the worker's interceptors: a test that needs them gives them to the environment
 * (activities/interceptors.ts `engineActivityInterceptors`).
 */
import type { Info } from '@temporalio/activity';
import type { ApplicationFailure } from '@temporalio/common';
import { stepFailure } from '../../activities/configuration-errors.js';
import { watchedActivityEnvironment } from './log-watch.js';

type AnyFunction = (...args: never[]) => unknown;

/** `activities` with each call run as an activity attempt (`info`) of its own. */
export function inActivity<T extends object>(activities: T, info?: Partial<Info>): T {
  const called: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities) as Array<[string, unknown]>) {
    called[name] =
      typeof activity === 'function'
        ? (...args: unknown[]) =>
            watchedActivityEnvironment(info).run(() =>
              Promise.resolve((activity as AnyFunction).apply(activities, args as never[])),
            )
        : activity;
  }
  return called as T;
}

/** `stepFailure` (activities/configuration-errors.ts) as the worker's interceptor calls it: in an activity, logging there. */
export function stepFailureInActivity(
  ...args: Parameters<typeof stepFailure>
): Promise<ApplicationFailure | undefined> {
  return watchedActivityEnvironment().run(() => Promise.resolve(stepFailure(...args)));
}

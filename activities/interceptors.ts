/**
 * The activity inbound interceptors every activity of an engine worker runs under, apart from the
 * activities themselves (engine.ts): a worker host loads this module, not every activity with it.
 */
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import { DEFAULT_STEP_FAILURE_BOUNDS } from '../runtime/defaults.js';
import type { StepFailureBounds } from '../runtime/defaults.js';
import { attemptSignalInterceptor } from './attempt-signal.js';
import { stepFailureInterceptor } from './configuration-errors.js';
import type { ConfigurationAlert } from './configuration-errors.js';

/** The application's activities that write, validate or read its account: past the bounds they stop it in `blocked`. */
const BLOCKING_STEPS = ['validateApplication', 'createAccount', 'sendApplicationUpdate', 'readAccount'] as const;

export interface EngineInterceptorOptions {
  /** Told of every attempt that meets a configuration error (the worker counts them); they are logged anyway. */
  onConfigurationError?: ConfigurationAlert;
  /**
   * When an application's step stops retrying a configuration error or an anomaly and the application
   * is blocked (configuration-errors.ts); the other workflows keep retrying configuration errors.
   */
  stepFailureBounds?: StepFailureBounds;
}

/**
 * The activity inbound interceptors every activity of an engine worker runs under, outermost first: the
 * step-failure policy, then the attempt's abort signal. Each call makes a policy of its own, which keeps
 * the failure streaks of the worker given it: one call per worker (workers/engine-worker.ts).
 */
export function engineActivityInterceptors(options: EngineInterceptorOptions = {}): ActivityInterceptorsFactory[] {
  return [
    stepFailureInterceptor({
      alert: options.onConfigurationError,
      // An application's steps end in its `blocked` state past the bounds; other workflows keep retrying.
      bounds: options.stepFailureBounds ?? DEFAULT_STEP_FAILURE_BOUNDS,
      bounded: { workflows: [ACCOUNT_APPLICATION_WORKFLOW], activities: BLOCKING_STEPS },
    }),
    attemptSignalInterceptor,
  ];
}

/**
 * What an activity's failure means, decided once for every engine activity.
 *
 * - **Configuration errors**: the worker's keys or its document store are wrong (a wrong passphrase, a
 *   missing key, a store directory the clients do not share). Retrying cannot fix them; fixing the
 *   configuration does. They fail *retryably*, with an alert on every attempt (an error in the worker's
 *   log and `eca_configuration_errors{kind}`), so every application in flight goes on by itself once the
 *   configuration is fixed.
 * - **Anomalies**: an answer of the service the engine cannot read (`EcaSchemaError`), a 4xx refusal of a
 *   request that is not an update (validate, create, reads), a document whose content no longer matches
 *   its reference. They are retried too, with a warning, because a glitch may pass.
 *
 * For activities an application runs (its workflow has a `blocked` state for it), both are bounded: past
 * `blockAfterMs` of configuration errors, or `anomalyAttempts` attempts of an anomaly (a corrupted
 * document at once), the failure becomes non-retryable, and the workflow stops the application in
 * `blocked`, where staff see why and retry, resubmit or abandon. Every other error passes unchanged.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { EcaCryptoError, EcaHttpError, EcaSchemaError } from '../eca/index.js';
import { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable } from './document-store.js';

export type ConfigurationErrorKind = 'keys' | 'document-store';

/** Failures a retry may not mend, which bounded activities turn into a `blocked` application. */
export type AnomalyKind = 'brokerage-answer' | 'brokerage-refusal' | 'document-corrupted';

/** Called on every attempt that meets a configuration error (the worker counts them in a metric). */
export type ConfigurationAlert = (kind: ConfigurationErrorKind, error: Error) => void;

export interface StepFailureBounds {
  /** Configuration errors are retried this long (from the step's first attempt), then the application is blocked. */
  blockAfterMs: number;
  /** Anomalies are tried this many times, then the application is blocked. */
  anomalyAttempts: number;
}

/** A day to fix a configuration (each attempt alerts); about half an hour of anomalies (5 s doubling to 10 min). */
export const DEFAULT_STEP_FAILURE_BOUNDS: StepFailureBounds = { blockAfterMs: 24 * 60 * 60_000, anomalyAttempts: 10 };

export function configurationErrorKind(error: unknown): ConfigurationErrorKind | undefined {
  if (error instanceof EcaCryptoError) return 'keys';
  if (error instanceof DocumentNotFound || error instanceof DocumentUndecryptable) return 'document-store';
  return undefined;
}

export function anomalyKind(error: unknown): AnomalyKind | undefined {
  if (error instanceof EcaSchemaError) return 'brokerage-answer';
  if (error instanceof EcaHttpError && error.status >= 400 && error.status < 500) return 'brokerage-refusal';
  if (error instanceof DocumentCorrupted) return 'document-corrupted';
  return undefined;
}

interface AttemptInfo {
  attempt: number;
  /** Server time from the step's first attempt to this one. */
  elapsedMs: number;
  /** The workflow type that scheduled the activity. */
  workflowType?: string;
}

function attemptInfo(): AttemptInfo {
  try {
    const { attempt, scheduledTimestampMs, currentAttemptScheduledTimestampMs, workflowType } = Context.current().info;
    return {
      attempt,
      elapsedMs: Math.max(currentAttemptScheduledTimestampMs - scheduledTimestampMs, 0),
      workflowType,
    };
  } catch {
    // Outside an activity (tests of the plain functions): a first attempt.
    return { attempt: 1, elapsedMs: 0 };
  }
}

function log(level: 'error' | 'warn', message: string, attributes: Record<string, unknown>): void {
  try {
    Context.current().log[level](message, attributes);
  } catch {
    // Outside an activity: the failure itself says it.
  }
}

function failure(error: Error, message: string, nonRetryable: boolean): ApplicationFailure {
  return ApplicationFailure.create({ type: error.name, message, nonRetryable });
}

/** The failure one attempt's error becomes under the policy; undefined: the error passes unchanged. */
export function stepFailure(
  error: unknown,
  attempt: AttemptInfo,
  bounds: StepFailureBounds | undefined,
  alert?: ConfigurationAlert,
): ApplicationFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const configuration = configurationErrorKind(error);
  if (configuration) {
    log('error', `configuration error (${configuration}): ${error.message}`, { kind: configuration });
    alert?.(configuration, error);
    if (bounds && attempt.elapsedMs >= bounds.blockAfterMs) {
      return failure(
        error,
        `configuration error (${configuration}) for ${Math.round(attempt.elapsedMs / 60_000)} min: ${error.message}; ` +
          'the application is blocked: fix the configuration (or the document), then retry',
        true,
      );
    }
    return failure(
      error,
      `configuration error (${configuration}): ${error.message}; fix the worker's configuration, the step is retried`,
      false,
    );
  }
  const anomaly = anomalyKind(error);
  if (!anomaly) return undefined;
  log('warn', `${anomaly} (attempt ${attempt.attempt}): ${error.message}`, { kind: anomaly });
  if (!bounds) return undefined;
  const last = anomaly === 'document-corrupted' || attempt.attempt >= bounds.anomalyAttempts;
  if (!last) return undefined;
  return failure(error, `${error.message} (${anomaly}, attempt ${attempt.attempt}): the application is blocked`, true);
}

export interface StepFailurePolicy {
  alert?: ConfigurationAlert;
  bounds?: StepFailureBounds;
  /** The workflow types whose activities are bounded (they have a `blocked` state); the others retry. */
  boundedWorkflows?: readonly string[];
}

/**
 * The activities with failures turned by the policy above: configuration errors always alerted and
 * retryable; for the bounded workflows' calls, configuration errors and anomalies past the bounds
 * non-retryable.
 */
export function withStepFailurePolicy<T extends Record<string, unknown>>(activities: T, policy: StepFailurePolicy): T {
  const bounded = new Set(policy.boundedWorkflows ?? []);
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    if (typeof activity !== 'function') {
      wrapped[name] = activity;
      continue;
    }
    wrapped[name] = async (...args: unknown[]): Promise<unknown> => {
      try {
        return await (activity as (...values: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        const attempt = attemptInfo();
        const bounds =
          attempt.workflowType !== undefined && bounded.has(attempt.workflowType) ? policy.bounds : undefined;
        throw stepFailure(error, attempt, bounds, policy.alert) ?? error;
      }
    };
  }
  return wrapped as T;
}

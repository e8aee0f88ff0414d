/**
 * What an activity's failure means, decided once for every engine activity: `stepFailureInterceptor`, an
 * activity inbound interceptor every engine worker installs (activities/interceptors.ts `engineActivityInterceptors`).
 *
 * - **Configuration errors**: the firm's keys or the worker's document store are wrong (a wrong
 *   passphrase, a missing key, a store directory the clients do not share), or the firm is not configured
 *   (runtime/firms.ts: a brokerage URL refused among them), or its brokerage URL answers a redirect or resolves to an address refused before connecting. Retrying cannot fix them; fixing the configuration does. A firm that staff
 *   disabled is a decision, not a mistake: an application's step stops in `blocked` at once, its reason shown. They fail *retryably*, with an alert on every attempt (an error in the worker's
 *   log and `eca_configuration_errors{kind}`), so every application in flight goes on by itself once the
 *   configuration is fixed.
 * - **Anomalies**: an answer of the service the engine cannot read (`EcaSchemaError`), a 4xx refusal
 *   (408, 425 and 429 aside: they are transient) of a request that is not an update, a create answered
 *   `isProcessed` false while the keys are fine (`CreateNotProcessed`), a document whose
 *   content no longer matches its reference, an error entry (or none) for the account in a status read
 *   (`AccountEntryError`). They are retried too, with a warning, because a glitch may pass.
 *
 * For an application's steps that write or validate (its workflow has a `blocked` state for them),
 * both are bounded: past `blockAfterMs` of configuration errors in a row, or `anomalyAttempts` attempts
 * in a row that meet one (a corrupted document at once), the failure becomes non-retryable, and the
 * workflow stops the application in `blocked`, where staff see why and retry, resubmit or abandon.
 * "In a row" is counted per worker from the step's first such failure, so an outage of the brokerage
 * before it does not count. The application's account read is bounded too: a read that never succeeds
 * must show staff why rather than retry unseen.
 * Transport failures (timeouts, 5xx, dropped connections) and every other error pass unchanged.
 */
import type { StepFailureBounds } from '../runtime/defaults.js';
import { log } from '@temporalio/activity';
import type { Info } from '@temporalio/activity';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { ApplicationFailure } from '@temporalio/common';
import { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable } from '../runtime/document-store.js';
import {
  brokerageAnomaly,
  deferredFailure,
  describeError,
  isDeferral,
  retryAfterFailure,
  typedFailure,
} from './brokerage-errors.js';
import type { BrokerageAnomaly } from './brokerage-errors.js';
import { isBrokerageError } from '../domain/brokerage-errors.js';
import { AccountEntryError } from '../brokerage/xml/accounts.js';
import { FirmDisabledError, FirmNotConfiguredError } from '../runtime/firm-errors.js';

export type ConfigurationErrorKind = 'keys' | 'document-store' | 'firm';

/** How often a disabled firm's work other than its applications' steps is tried again. */
export const FIRM_DISABLED_RETRY_MS = 5 * 60_000;

/** Failures a retry may not mend, which bounded activities turn into a `blocked` application. */
export type AnomalyKind = BrokerageAnomaly | 'document-corrupted' | 'account-entry';

/** Called on every attempt that meets a configuration error (the worker counts them in a metric). */
export type ConfigurationAlert = (kind: ConfigurationErrorKind, error: Error) => void;

export function configurationErrorKind(error: unknown): ConfigurationErrorKind | undefined {
  // The firm's keys, or the credentials the service refuses.
  if (isBrokerageError(error, 'credentials')) return 'keys';
  if (error instanceof FirmDisabledError || error instanceof FirmNotConfiguredError) return 'firm';
  // The firm's brokerage URL answers a redirect (never followed), or its address was refused before connecting
  // (runtime/checked-fetch.ts): its settings are what to fix.
  if (isBrokerageError(error, 'address')) return 'firm';
  if (error instanceof DocumentNotFound || error instanceof DocumentUndecryptable) return 'document-store';
  return undefined;
}

/** Brokerage anomalies as brokerage-errors.ts tells them (408, 425 and 429 are not refusals here). */
export function anomalyKind(error: unknown): AnomalyKind | undefined {
  if (error instanceof DocumentCorrupted) return 'document-corrupted';
  if (error instanceof AccountEntryError) return 'account-entry';
  return brokerageAnomaly(error);
}

/** Where a step stands in its run of configuration errors or anomalies. */
export interface FailureStreak {
  /** Attempts in a row that met one, this one included. */
  attempts: number;
  /** Server time from the first of them to this attempt. */
  elapsedMs: number;
}

/**
 * The failure one attempt's error becomes under the policy; undefined: the error passes unchanged.
 * `streak` counts the attempts in a row that met a configuration error or an anomaly, so a transport
 * outage before them does not count towards the bounds.
 */
export function stepFailure(
  error: unknown,
  streak: FailureStreak,
  bounds: StepFailureBounds | undefined,
  alert?: ConfigurationAlert,
): ApplicationFailure | undefined {
  if (!(error instanceof Error)) return undefined;
  const text = describeError(error);
  // A disabled firm is a decision, not a mistake to fix: no alert; its applications stop in `blocked` at
  // once, and its other work (sweep, maintenance, daily documents) waits, tried again now and then.
  if (error instanceof FirmDisabledError) {
    log.warn(text, { kind: 'firm-disabled' });
    if (bounds) return typedFailure(error, { message: `${text}: the application is blocked`, nonRetryable: true });
    return ApplicationFailure.create({
      type: error.name,
      message: `${text}; tried again every ${FIRM_DISABLED_RETRY_MS / 60_000} minutes until it is enabled`,
      nonRetryable: false,
      nextRetryDelay: FIRM_DISABLED_RETRY_MS,
    });
  }
  // The Web API said how long to wait (429, 503): retried then, not counted as an anomaly.
  const waited = retryAfterFailure(error);
  if (waited) return waited;
  const configuration = configurationErrorKind(error);
  if (configuration) {
    log.error(`configuration error (${configuration}): ${text}`, { kind: configuration });
    alert?.(configuration, error);
    if (bounds && streak.elapsedMs >= bounds.blockAfterMs) {
      return typedFailure(error, {
        message:
          `configuration error (${configuration}) for ${Math.round(streak.elapsedMs / 60_000)} min: ${text}; ` +
          'the application is blocked: fix the configuration (or the document), then retry',
        nonRetryable: true,
      });
    }
    return typedFailure(error, {
      message: `configuration error (${configuration}): ${text}; fix the worker's configuration, the step is retried`,
      nonRetryable: false,
    });
  }
  const anomaly = anomalyKind(error);
  if (!anomaly) return undefined;
  log.warn(`${anomaly} (${streak.attempts} attempt(s) in a row): ${text}`, { kind: anomaly });
  const last = bounds && (anomaly === 'document-corrupted' || streak.attempts >= bounds.anomalyAttempts);
  if (!last) return typedFailure(error, { message: `${text} (${anomaly}); the step is retried`, nonRetryable: false });
  return typedFailure(error, {
    message: `${text} (${anomaly}, ${streak.attempts} attempt(s) in a row): the application is blocked`,
    nonRetryable: true,
  });
}

export interface StepFailurePolicy {
  alert?: ConfigurationAlert;
  bounds?: StepFailureBounds;
  /**
   * Which calls are bounded: activities of these types scheduled by these workflow types (the
   * application's steps that may stop in `blocked`); every other call keeps retrying.
   */
  bounded?: { workflows: readonly string[]; activities: readonly string[] };
}

/** Streaks kept per worker; a step retried on another worker starts its count again (never sooner). */
const MAX_STREAKS = 10_000;

/** The streak's key: one activity of one workflow run, whatever its attempt. */
function streakKey(info: Info): string {
  const execution = info.workflowExecution;
  return `${execution?.workflowId ?? ''}/${execution?.runId ?? ''}/${info.activityId}`;
}

/**
 * The policy as an activity inbound interceptor, installed by every engine worker on all its activities
 * (activities/interceptors.ts `engineActivityInterceptors`): configuration errors always alerted and retryable;
 * for the bounded calls, configuration errors and anomalies past the bounds non-retryable.
 */
export function stepFailureInterceptor(policy: StepFailurePolicy): ActivityInterceptorsFactory {
  const workflows = new Set(policy.bounded?.workflows ?? []);
  const boundedActivities = new Set(policy.bounded?.activities ?? []);
  const streaks = new Map<string, { attempt: number; at: number }>();
  return ({ info }) => ({
    inbound: {
      async execute(input, next) {
        const key = streakKey(info);
        try {
          const result = await next(input);
          streaks.delete(key);
          return result;
        } catch (error) {
          // Put off by the call budget: nothing was sent, and a streak neither grows nor ends.
          if (isDeferral(error)) throw deferredFailure(error);
          if (configurationErrorKind(error) === undefined && anomalyKind(error) === undefined) {
            streaks.delete(key);
            throw error;
          }
          const scheduledAt = info.currentAttemptScheduledTimestampMs;
          let first = streaks.get(key);
          if (!first) {
            first = { attempt: info.attempt, at: scheduledAt };
            if (streaks.size >= MAX_STREAKS) streaks.delete(streaks.keys().next().value!);
            streaks.set(key, first);
          }
          const streak = { attempts: info.attempt - first.attempt + 1, elapsedMs: Math.max(scheduledAt - first.at, 0) };
          const isBounded = workflows.has(info.workflowType ?? '') && boundedActivities.has(info.activityType);
          const turned = stepFailure(error, streak, isBounded ? policy.bounds : undefined, policy.alert);
          if (turned?.nonRetryable) streaks.delete(key);
          throw turned ?? error;
        }
      },
    },
  });
}

/**
 * What the brokerage's errors mean for an activity, decided once for every activity that calls it, on either
 * protocol: by the error's kind (domain/brokerage-errors.ts), which each protocol's library gives its errors.
 *
 * - **Invalid requests**: the library refused the input before sending it. A retry sends the same, so the
 *   activity fails at once, non-retryable, typed by the error's name.
 * - **Refusals** (an HTTP 4xx answer): the service said no to this request. A write whose result can say so
 *   (an update, the daily submission) returns it as its outcome, whatever the 4xx: the workflow reads the
 *   answer as given. Anywhere else a refusal (kind `refused`) is an anomaly for the step-failure policy
 *   (configuration-errors.ts), which leaves the 4xx answers that say "later" (408, 425, 429) to the retry policy.
 * - **Unreadable answers** (kind `answer`): an anomaly as well, and so is a create answered `isProcessed`
 *   false while the keys are fine (`CreateNotProcessed`).
 * - **Keys and credentials** (kind `credentials`): configuration errors, retried with an alert.
 * - **The firm's address** (kind `address`: a redirect, never followed, or an address refused before
 *   connecting): a configuration error of the firm, retried with an alert, never a transient fault.
 * - **Deferrals** (kind `put-off`, no status): the firm's call budget put the call off before sending it; the
 *   activity is retried when the budget has room (`deferredFailure`), and the step counts no failure. An
 *   answer that asked to wait (`Retry-After`) is retried then (`retryAfterFailure`).
 * - Anything else (timeouts, 5xx, dropped connections) is transport and is thrown as is: the workflow's
 *   retry policy backs off.
 */
import { ApplicationFailure } from '@temporalio/common';
import { BrokerageError, isBrokerageError, isRefusal } from '../domain/brokerage-errors.js';
import { CREATE_NOT_PROCESSED } from '../domain/error-types.js';

/** Put off before anything was sent (the firm's call budget, the brokerage's maintenance window). */
export function isDeferral(error: unknown): error is BrokerageError & { retryAfterMs: number } {
  return isBrokerageError(error, 'put-off') && error.status === undefined && error.retryAfterMs !== undefined;
}

/** Brokerage failures a retry may not mend: an answer the engine cannot read, a lasting refusal. */
export type BrokerageAnomaly = 'brokerage-answer' | 'brokerage-refusal' | 'create-not-processed';

export function brokerageAnomaly(error: unknown): BrokerageAnomaly | undefined {
  if (error instanceof CreateNotProcessed) return 'create-not-processed';
  if (isBrokerageError(error, 'answer')) return 'brokerage-answer';
  if (isBrokerageError(error, 'refused')) return 'brokerage-refusal';
  return undefined;
}

/**
 * An error as it may be kept and shown (a blocked application's reason, a log line): an HTTP error
 * by its operation and status only, since a response body may echo what was sent.
 */
export function describeError(error: Error): string {
  // Fixed words and the status: no body is quoted.
  if (error instanceof BrokerageError && error.kind !== 'address' && error.status !== undefined) {
    const { operation } = error as { operation?: unknown };
    if (typeof operation === 'string') return `${operation}: HTTP ${error.status}`;
  }
  return error.message;
}

/**
 * The service asked how long to wait (a 429's or a 503's `Retry-After`): the activity is retried then,
 * whatever its retry policy's backoff. Undefined for any other error.
 */
export function retryAfterFailure(error: unknown): ApplicationFailure | undefined {
  if (!(error instanceof BrokerageError) || error.status === undefined || error.retryAfterMs === undefined) {
    return undefined;
  }
  return ApplicationFailure.create({
    type: error.name,
    message: `${describeError(error)}; the service asked to wait ${Math.ceil(error.retryAfterMs / 1000)} s`,
    nonRetryable: false,
    nextRetryDelay: Math.max(error.retryAfterMs, 1),
  });
}

/**
 * The failure a workflow sees for `error`: typed by the error's name, which the workflows' retry
 * policies (domain/error-types.ts) and an application's `blocked` reason read.
 */
export function typedFailure(error: Error, options: { message?: string; nonRetryable: boolean }): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.name,
    message: options.message ?? error.message,
    nonRetryable: options.nonRetryable,
  });
}

/** A failure no retry mends, of a type named in domain/error-types.ts. */
export function finalFailure(type: string, message: string): ApplicationFailure {
  return ApplicationFailure.create({ type, message, nonRetryable: true });
}

/** One brokerage call under the policy above, at a call site whose result cannot say "refused". */
export async function callBrokerage<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw asBrokerageFailure(error);
  }
}

/** One brokerage call under the policy above, at a call site whose outcome reports a refusal (any 4xx). */
export async function callBrokerageOrRefusal<T>(
  call: () => Promise<T>,
): Promise<{ answer: T; refusal?: never } | { refusal: BrokerageError }> {
  try {
    return { answer: await call() };
  } catch (error) {
    if (isRefusal(error, { transient: true })) return { refusal: error };
    throw asBrokerageFailure(error);
  }
}

/**
 * What a call's error is thrown as: a request error fails at once; the rest is thrown as it is, a refused
 * address too (the step-failure policy's configuration error of the firm).
 */
function asBrokerageFailure(error: unknown): unknown {
  return isBrokerageError(error, 'invalid-request') ? typedFailure(error, { nonRetryable: true }) : error;
}

/**
 * A call the firm's call budget put off (runtime/call-budget.ts): nothing was sent, and the activity is
 * retried when the budget has room, whatever its retry policy's backoff. Not a failure of the step.
 */
export function deferredFailure(error: BrokerageError & { retryAfterMs: number }): ApplicationFailure {
  return ApplicationFailure.create({
    type: error.name,
    message: error.message,
    nonRetryable: false,
    nextRetryDelay: Math.max(error.retryAfterMs, 1),
  });
}

/**
 * create answered `isProcessed` false although validateXML accepted the application and accepts a
 * reference application sealed with the same keys. The spec's causes are "the XML format is invalid,
 * wrong keys were used for encryption or signature, or the server is down": which one, the answer does
 * not say. Nothing was processed, so the create is sent again with backoff (an outage passes); past the
 * bound the application stops in `blocked` (an anomaly: activities/configuration-errors.ts).
 */
export class CreateNotProcessed extends Error {
  override readonly name = CREATE_NOT_PROCESSED;
}

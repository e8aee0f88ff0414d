/**
 * What a brokerage call's failure means, on any protocol: one hierarchy, so that a caller classifies a
 * failure once, by its kind, never by which protocol's class it is. Each protocol's library (eca/, webapi/)
 * extends {@link BrokerageError} and says, for each of its failures, what kind it is and whether it proves
 * that nothing was processed; only it knows what its statuses and failures mean.
 */
import type { Protocol } from './protocols.js';

/**
 * - `invalid-request`: refused before anything was sent, for the call's input; a retry sends the same.
 * - `address`: the firm's brokerage address is what is wrong: it answered a redirect (never followed) or was
 *   refused before connecting. Its settings are to fix.
 * - `credentials`: the keys or credentials: sealing or opening with the firm's keys, the service refusing
 *   the firm's client. Its keys are to fix.
 * - `put-off`: not now: the firm's call budget or the brokerage's maintenance window (nothing sent), or the
 *   service said later (HTTP 408, 425, 429).
 * - `refused`: the service refused the request as it was sent (a lasting 4xx, an answer that says it
 *   failed); a retry sends the same.
 * - `answer`: the service answered something the engine cannot read.
 * - `transport`: no usable answer: a timeout, a connection that failed, a 5xx. A retry may mend it.
 */
export type BrokerageErrorKind =
  'invalid-request' | 'address' | 'credentials' | 'put-off' | 'refused' | 'answer' | 'transport';

export abstract class BrokerageError extends Error {
  /** The protocol of the call that failed. */
  abstract readonly protocol: Protocol;
  abstract readonly kind: BrokerageErrorKind;
  /**
   * Whether the failure proves that the service did not process the call: nothing reached it (refused
   * before sending, a connection never opened), or its protocol's document gives this answer for a request
   * refused as it came. A write that failed so may be sent again (activities/write-attempt.ts).
   */
  abstract readonly notProcessed: boolean;
  /** The HTTP status, when the service answered one. */
  declare readonly status?: number;
  /** How long to wait before the call may be made again, when the service or the firm's budget said. */
  declare readonly retryAfterMs?: number;
  /** For a `transport` failure: whether no answer came in time (else the connection failed, or a 5xx came). */
  declare readonly timedOut?: boolean;

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/**
 * An HTTP 4xx answer. `transient`: whether 408, 425 and 429 count as refusals too, as they do for a
 * write that reports the refusal as its outcome; the step-failure policy retries them like a 5xx.
 */
export function isRefusal(error: unknown, options: { transient: boolean }): error is BrokerageError {
  return (
    error instanceof BrokerageError &&
    error.status !== undefined &&
    (error.kind === 'refused' || (options.transient && error.kind === 'put-off'))
  );
}

/** Whether `error` is a brokerage call's failure of `kind`. */
export function isBrokerageError(error: unknown, ...kinds: BrokerageErrorKind[]): error is BrokerageError {
  return error instanceof BrokerageError && (kinds.length === 0 || kinds.includes(error.kind));
}

/**
 * The firm's pacing put a call off before anything was sent (runtime/call-budget.ts): each protocol's client
 * throws it on as its own `put-off` error, which says for which call.
 */
export class CallPutOff extends Error {
  override readonly name = 'CallPutOff';

  constructor(
    readonly retryAfterMs: number,
    /** Why, in fixed words (a call budget spent for now, say). */
    readonly reason: string,
  ) {
    super(putOffWords(retryAfterMs, reason));
  }
}

/** What a call put off says, on any protocol: `not sent, <reason>; again in <s> s`. */
export function putOffWords(retryAfterMs: number, reason: string): string {
  return `not sent, ${reason}; again in ${Math.ceil(retryAfterMs / 1000)} s`;
}

/**
 * A call's wait for its turn in the firm's pacing (`pace`), on any protocol. Whatever stops the wait, nothing
 * was sent, and the caller is told so by `deferred` (the protocol's `put-off` error): a {@link CallPutOff} with
 * its wait, the call's signal aborting while it waited, or a failure of the pacing itself (its database, say),
 * never a failure that would leave a write in doubt.
 */
export async function paceOrDefer(
  pace: () => Promise<void>,
  signal: AbortSignal | undefined,
  deferred: (retryAfterMs: number, reason: string) => BrokerageError,
): Promise<void> {
  let failure: unknown;
  try {
    await pace();
  } catch (error) {
    if (error instanceof BrokerageError && error.kind === 'put-off') throw error;
    failure = error ?? new Error('the pacing failed');
  }
  if (signal?.aborted) throw deferred(0, 'the call was cancelled or timed out while it waited for its slot');
  if (failure === undefined) return;
  if (failure instanceof CallPutOff) throw deferred(failure.retryAfterMs, failure.reason);
  throw deferred(1000, 'the pacing before it failed');
}

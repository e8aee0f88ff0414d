/**
 * A write to the brokerage (create, update) is sent only when no earlier attempt may have sent it.
 *
 * An attempt whose answer is lost cannot tell whether the service processed the write, and the spec
 * promises no time within which a processed write is listed (getResponseFile, getAmRequestStatus). So a
 * write is never sent again on the strength of "not listed yet": it is sent again only when the failure
 * proves that nothing was processed.
 *
 * - An error before the call (a document read, the archive, sealing with the firm's keys), an error of
 *   the call that proves it was not processed (see `provesNotProcessed`) or an answer the spec defines
 *   as not processed (create's `isProcessed` false) leaves a proof in the attempt's heartbeat details:
 *   `{ notSentAttempt: N }`. Temporal hands the last heartbeat details of a failed attempt to the next
 *   one (servers that advertise it; without them the next attempt only looks, which is safe).
 * - Attempt N + 1 may send only when that proof names attempt N; attempt 1 always may. An attempt that
 *   died with the worker, or ran out of time, leaves no proof for itself, so the next one only looks.
 * - Any other error of the call (a timeout, a dropped connection, any HTTP status, an answer that cannot
 *   be read), and any error after it, is an unknown outcome: the attempt does not fail, it says so, and
 *   the workflow records the doubt and looks for the write with the spec's look-ups over its own window,
 *   then stops in `unconfirmed`. An attempt that only looks never fails either: nothing found yet.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { REQUEST_ERROR } from '../domain/error-types.js';
import { BrokerageError } from '../domain/brokerage-errors.js';
import { describeError } from './brokerage-errors.js';
import { FirmLookupError, isFirmError } from '../runtime/firm-errors.js';

/**
 * Whether the failure of a create or update call proves that the service did not process it: the failure
 * says so itself (domain/brokerage-errors.ts `notProcessed`: refused before sending, put off by the call
 * budget, sealing failed, a connection never opened, a status its protocol's document gives for a request
 * refused as it came), or the firm's client was never had. An answer that cannot be read or opened proves
 * nothing, nor does a status the document does not give so.
 */
export function provesNotProcessed(error: unknown): boolean {
  if (error instanceof BrokerageError) return error.notProcessed;
  // The firm's client was never had (runtime/firm-brokerages.ts): no request was made.
  if (isFirmError(error) || error instanceof FirmLookupError) return true;
  return error instanceof ApplicationFailure && error.type === REQUEST_ERROR; // an EcaRequestError, typed
}

interface NotSentProof {
  notSentAttempt: number;
}

/** The outcome of one send: the answer, or why it is unknown whether the service processed it. */
export type Sent<T> = { answer: T } | { unknown: string; cause?: unknown };

export interface WriteAttemptOptions<T> {
  /** The workflow only looks for an earlier write: nothing is sent, and a failure is only "not found yet". */
  lookOnly?: boolean;
  /** The activity's outcome when whether the write was processed stays unknown (`reason`: the failure). */
  inDoubt: (reason: string) => T;
}

/** One attempt of an activity that may write (see the module's head). */
export class WriteAttempt {
  /** Whether this attempt may send: the workflow does not only look, and no earlier attempt may have sent. */
  readonly maySend: boolean;
  private sending = false;
  private readonly attempt: number;

  private constructor(lookOnly: boolean) {
    const { info } = Context.current();
    const { attempt } = info;
    this.attempt = attempt;
    const details = info.heartbeatDetails as NotSentProof | undefined;
    const earlierProvedNothingSent = attempt === 1 || details?.notSentAttempt === attempt - 1;
    this.maySend = !lookOnly && earlierProvedNothingSent;
  }

  /**
   * Runs one attempt. An attempt that may send fails as usual as long as nothing was sent, or the send
   * is proven not processed, and leaves the proof that lets the next attempt send. Any other failure (a
   * send whose outcome is unknown, anything after a send, any failure of an attempt that only looks)
   * is not thrown: the outcome is `inDoubt`, and the workflow looks again.
   */
  static async run<T>(work: (attempt: WriteAttempt) => Promise<T>, options: WriteAttemptOptions<T>): Promise<T> {
    const attempt = new WriteAttempt(options.lookOnly === true);
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt.maySend && !attempt.sending) {
        attempt.leaveProof();
        throw error;
      }
      return options.inDoubt(error instanceof Error ? describeError(error) : String(error));
    }
  }

  /** Sends the write: its answer, or an unknown outcome; an error that proves it was not processed is thrown. */
  async send<T>(call: () => Promise<T>): Promise<Sent<T>> {
    if (!this.maySend) throw new Error('a write was sent by an attempt that may not send');
    this.sending = true;
    try {
      return { answer: await call() };
    } catch (error) {
      if (!provesNotProcessed(error)) {
        return { unknown: error instanceof Error ? describeError(error) : String(error), cause: error };
      }
      this.sending = false;
      throw error;
    }
  }

  /** The answer says the write was not processed (a reason the spec defines): the next attempt may send. */
  answeredNotProcessed(): void {
    this.sending = false;
  }

  private leaveProof(): void {
    Context.current().heartbeat({ notSentAttempt: this.attempt } satisfies NotSentProof);
  }
}

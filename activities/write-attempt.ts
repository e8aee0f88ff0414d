/**
 * A write to the brokerage (create, update) is sent only when no earlier attempt may have sent it.
 *
 * An attempt whose answer is lost cannot tell whether the service processed the write, and the spec
 * promises no time within which a processed write is listed (getResponseFile, getAmRequestStatus). So a
 * write is never sent again on the strength of "not listed yet": it is sent again only when the failure
 * proves that nothing was processed.
 *
 * - An error before the call (a document read, the archive, sealing with the firm's keys) or an error of
 *   the call that proves it was not processed (see `provesNotProcessed`) leaves a proof in the attempt's
 *   heartbeat details: `{ notSentAttempt: N }`. Temporal hands the last heartbeat details of a failed
 *   attempt to the next one.
 * - Attempt N + 1 may send only when that proof names attempt N; attempt 1 always may. An attempt that
 *   died with the worker, or ran out of time, leaves no proof for itself, so the next one only looks.
 * - Any other error of the call (a timeout, a dropped connection, a 5xx, an answer that cannot be read)
 *   is an unknown outcome: the attempt does not fail, it says so, and the workflow looks for the write
 *   with the spec's look-ups over its own window, then stops in `unconfirmed`.
 */
import { Context } from '@temporalio/activity';
import { EcaCryptoError, EcaHttpError, EcaNetworkError, EcaRequestError } from '../eca/index.js';
import { describeError } from './brokerage-errors.js';

/** Network failures that happen before a connection exists: no byte of the request reached the service. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ENETUNREACH', 'EHOSTUNREACH']);

/**
 * Whether the failure of a create or update call proves that the service did not process it: refused
 * before sending (eca/ checks its input and seals the payload before any HTTP request), a connection
 * that never opened, or an HTTP 4xx (the service answered that it refused the request).
 */
export function provesNotProcessed(error: unknown): boolean {
  if (error instanceof EcaRequestError || error instanceof EcaCryptoError) return true;
  if (error instanceof EcaHttpError) return error.status >= 400 && error.status < 500;
  if (error instanceof EcaNetworkError) return NOT_CONNECTED.has(error.detail);
  return false;
}

interface NotSentProof {
  notSentAttempt: number;
}

function attemptInfo(): { attempt: number; details: unknown } {
  try {
    const info = Context.current().info;
    return { attempt: info.attempt, details: info.heartbeatDetails };
  } catch {
    return { attempt: 1, details: undefined }; // outside an activity: the plain functions in tests
  }
}

/** The outcome of one send: the answer, or why it is unknown whether the service processed it. */
export type Sent<T> = { answer: T } | { unknown: string };

/** One attempt of an activity that may write (see the module's head). */
export class WriteAttempt {
  /** Whether this attempt may send: no earlier attempt may have. */
  readonly maySend: boolean;
  private sending = false;
  private readonly attempt: number;

  private constructor() {
    const { attempt, details } = attemptInfo();
    this.attempt = attempt;
    this.maySend = attempt === 1 || (details as NotSentProof | undefined)?.notSentAttempt === attempt - 1;
  }

  /**
   * Runs one attempt. An error thrown out of it before or without a send, or by a send proven not
   * processed, leaves the proof that lets the next attempt send.
   */
  static async run<T>(work: (attempt: WriteAttempt) => Promise<T>): Promise<T> {
    const attempt = new WriteAttempt();
    try {
      return await work(attempt);
    } catch (error) {
      if (attempt.maySend && !attempt.sending) attempt.leaveProof();
      throw error;
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
        return { unknown: error instanceof Error ? describeError(error) : String(error) };
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
    try {
      Context.current().heartbeat({ notSentAttempt: this.attempt } satisfies NotSentProof);
    } catch {
      // Outside an activity there is no next attempt.
    }
  }
}

/**
 * Calls that wait stop when the caller says so: an `EngineContext` with a `signal` (an AbortController's,
 * or `AbortSignal.timeout(ms)` for a time limit) ends every client function that waits (Temporal calls, a
 * bulk job's progress) with the signal's reason: an `AbortError`, or the `TimeoutError` of
 * `AbortSignal.timeout`.
 *
 * - The caller is answered at once when the signal aborts; Temporal calls in flight are cancelled
 *   (Temporal's `Client.withAbortSignal`, through a signal of the call's own, so that a long-lived
 *   signal collects no listeners).
 * - A step that must not stop half-way (a start after its documents are stored, the sweep's restart)
 *   runs `shielded`: it finishes in the background even when the caller has gone. What an abort leaves
 *   is what a lost answer leaves: a start is idempotent by external id; a message already taken is
 *   refused by the application's state when sent again.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { isGrpcCancelledError } from '@temporalio/client';
import type { Client } from '@temporalio/client';

export interface Abortable {
  client: Client;
  /** Ends the call's waits (Temporal calls included) with the signal's reason when it aborts. */
  signal?: AbortSignal;
}

/** Runs a client function's body with the context's signal on every Temporal call it makes. */
export async function within<T>(ctx: Abortable, body: () => Promise<T>): Promise<T> {
  const { signal } = ctx;
  if (!signal) return body();
  signal.throwIfAborted();
  const call = new AbortController();
  let stop: () => void = () => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    stop = () => {
      call.abort(signal.reason);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', stop, { once: true });
  });
  try {
    return await Promise.race([ctx.client.withAbortSignal(call.signal, body), aborted]);
  } catch (error) {
    // Temporal reports a call cancelled by the abort as CANCELLED: the caller hears its own reason.
    if (signal.aborted && (error === signal.reason || isGrpcCancelledError(error))) throw signal.reason;
    throw error;
  } finally {
    signal.removeEventListener('abort', stop);
    // The race's loser must not surface as an unhandled rejection.
    aborted.catch(() => undefined);
  }
}

/** Runs a step to its end whatever the caller's signal does (the caller may be answered before it ends). */
export function shielded<T>(ctx: Abortable, step: () => Promise<T>): Promise<T> {
  return ctx.signal ? ctx.client.withAbortSignal(new AbortController().signal, step) : step();
}

/** A pause between polls that ends early, with the signal's reason, when it aborts. */
export async function pause(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await delay(ms, undefined, { signal });
  } catch (error) {
    if (signal?.aborted) throw signal.reason;
    throw error;
  }
}

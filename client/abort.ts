/**
 * Calls that wait stop when the caller says so: an `EngineContext` with a `signal` (an AbortController's,
 * or `AbortSignal.timeout(ms)` for a deadline) makes every Temporal call of a client function carry it
 * (Temporal's `Client.withAbortSignal`), and the client's own waits (a bulk job's progress) end with it.
 * The call then rejects with the signal's reason: an `AbortError`, or the `TimeoutError` of
 * `AbortSignal.timeout`, whatever it was waiting on. What Temporal already holds stays as it is (a
 * workflow started before the abort runs on; a start is idempotent by external id).
 */
import { setTimeout as delay } from 'node:timers/promises';
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
  try {
    return await ctx.client.withAbortSignal(signal, body);
  } catch (error) {
    // Temporal reports an aborted call as a cancelled gRPC call: the caller hears its own reason.
    if (signal.aborted) throw signal.reason;
    throw error;
  }
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

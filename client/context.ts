/** What every call of the client API is given: the Temporal client, the document store and the firm. */
import type { Client } from '@temporalio/client';
import type { DocumentStore } from '../runtime/document-store.js';
import type { ApplicationInput } from '../workflows/application/messages.js';
import type { SweepInterval } from '../workflows/sweep/messages.js';

export interface EngineContext {
  client: Client;
  store: DocumentStore;
  /** The firm's client service id. */
  csid: string;
  taskQueue?: string;
  /** Lifecycle settings for applications started without their own (e.g. short polls against a simulator). */
  settings?: ApplicationInput['settings'];
  /** One poll interval (ms) for every wait of workflows started here (ECA_POLL_INTERVAL; compressed time only). */
  pollIntervalMs?: number;
  /** Slot of the firm's status sweep when this client starts it (default 5 minutes; ECA_POLL_INTERVAL sets it too). */
  sweepInterval?: SweepInterval;
  /**
   * Ends every call made with this context that waits (Temporal calls, a bulk job's progress) with the
   * signal's reason when it aborts: `{ ...ctx, signal: AbortSignal.timeout(5_000) }` bounds one call.
   */
  signal?: AbortSignal;
}

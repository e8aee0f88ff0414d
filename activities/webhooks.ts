/**
 * Webhook delivery (workflows/webhooks): one activity delivers an endpoint's events for a window of
 * time, in the log's order, each acknowledged event moving the endpoint's cursor (compare-and-set:
 * a replay meanwhile wins, and reading starts again from where it put the cursor).
 *
 * At least once: the cursor moves only after a 2xx, so an event whose answer was lost is sent again,
 * with the same `webhook-id`. A failure is recorded on the endpoint (its count, error and time: what
 * `eca webhooks list` shows) and fails the activity; the workflow's retry policy sends again with
 * backoff and pauses the endpoint when the attempts run out. Nothing is dropped: a paused endpoint
 * keeps its cursor, and its backlog is sent when it is resumed.
 *
 * A disabled firm's endpoints are held (with `firms`): nothing is posted, no failure is counted, and the
 * activity waits out its window as an idle endpoint does, looking again whether the firm was enabled; the
 * cursor stays where the receiver last acknowledged, so the backlog goes out once it is.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { CodecKeyring } from '../codec/keyring.js';
import type { Queryable } from '../runtime/database/index.js';
import { EventLog } from '../runtime/events.js';
import type { EventCursor } from '../runtime/events.js';
import { FirmDisabledError, FirmNotConfiguredError } from '../runtime/firm-errors.js';
import { redactedError } from '../runtime/webhook-input.js';
import { WebhookEndpoints } from '../runtime/webhooks.js';
import type { WebhookTarget } from '../runtime/webhooks.js';
import type { WebhookActivities } from '../workflows/webhooks/activities.js';
import type { WebhookDeliveryReport } from '../workflows/webhooks/messages.js';
import { checkedFetch, postEvent } from './webhook-post.js';

/** The failure type of a delivery the receiver did not acknowledge (retried by the workflow). */
export const WEBHOOK_DELIVERY_FAILED = 'WebhookDeliveryFailed';

export interface WebhookActivityOptions {
  /** The engine's database: the event log and the endpoints. */
  db: Queryable;
  /** The payload codec's keys, which seal the endpoints' secrets (runtime/webhook-secrets.ts). */
  keyring?: CodecKeyring;
  /** HTTP transport (tests); by default `checkedFetch`, which connects only to addresses a receiver may have. */
  fetch?: typeof fetch;
  /** Per request (default 10 seconds). */
  timeoutMs?: number;
  /** How often an idle endpoint looks for new events (default 250 ms). */
  pollMs?: number;
  /** Events read at once (default 100). */
  batch?: number;
  /**
   * Whether a firm may be sent its events: resolves while it may, throws FirmDisabledError while it is
   * disabled (runtime/firms.ts `FirmRegistry.require`, through its cache). Without it nothing is held.
   */
  firms?: { require(csid: string): Promise<unknown> };
}

const HEARTBEAT_MS = 1_000;

/** Why a firm's events are held now: its disable; undefined while it may be sent them. */
function holdOf(firms: WebhookActivityOptions['firms']): (csid: string) => Promise<FirmDisabledError | undefined> {
  return async (csid) => {
    try {
      await firms?.require(csid);
      return undefined;
    } catch (error) {
      if (error instanceof FirmDisabledError) return error;
      // Only a disable holds deliveries: a firm the registry does not know is delivered to as before.
      if (error instanceof FirmNotConfiguredError) return undefined;
      throw error;
    }
  };
}

export function createWebhookActivities(options: WebhookActivityOptions): WebhookActivities {
  const endpoints = new WebhookEndpoints(options.db, options.keyring);
  const log = new EventLog(options.db);
  const send = options.fetch ?? checkedFetch();
  const timeoutMs = options.timeoutMs ?? 10_000;
  const pollMs = options.pollMs ?? 250;
  const batch = options.batch ?? 100;
  const heldFor = holdOf(options.firms);

  /**
   * Sends the events after the endpoint's cursor until it is caught up or the window ends (checked before
   * each request: an attempt never outlives its timeout, which would let a second attempt run beside it).
   * A failure fails the activity when nothing was delivered in it, so that the workflow's attempts count
   * failures in a row; after a delivery it ends the window instead (`failed`), and the next one retries.
   */
  async function drain(target: WebhookTarget, report: WebhookDeliveryReport, signal: AbortSignal, endsAt: number) {
    const { endpoint, secrets } = target;
    let cursor: EventCursor = endpoint.cursor;
    const events = await log.read({ csid: endpoint.csid, after: cursor, limit: batch });
    for (const { cursor: at, event } of events) {
      if (Date.now() >= endsAt) return { idle: false };
      // A disable during the batch holds the rest of it: the caller waits for the firm.
      if (await heldFor(endpoint.csid)) return { idle: false };
      const outcome = await postEvent(endpoint.url, event, secrets, { fetch: send, timeoutMs, signal });
      if (!outcome.ok) {
        const message = `event ${event.id} (${event.type}): ${outcome.error}`;
        await endpoints.recordFailure(endpoint.id, message);
        if (report.delivered > 0) {
          report.failed = redactedError(message);
          return { idle: false };
        }
        throw ApplicationFailure.retryable(redactedError(message), WEBHOOK_DELIVERY_FAILED);
      }
      const state = await endpoints.advance(endpoint.id, cursor, at);
      if (state === undefined) {
        report.rewound++;
        return { idle: false };
      }
      report.delivered++;
      cursor = at;
      if (state !== 'active') return { idle: false };
    }
    return { idle: events.length === 0 };
  }

  return {
    async deliverWebhooks({ endpointId, maxMs }): Promise<WebhookDeliveryReport> {
      const context = Context.current();
      const began = Date.now();
      const report: WebhookDeliveryReport = { state: 'active', delivered: 0, rewound: 0, durationMs: 0 };
      let heldSaid = false;
      /** A poll's wait, within the window: while the endpoint is idle, or its firm disabled. */
      const pause = () => context.sleep(Math.min(pollMs, Math.max(0, maxMs - (Date.now() - began))));
      // A slow receiver must not look like a dead worker: heartbeats go on during each request.
      const beat = setInterval(() => context.heartbeat({ delivered: report.delivered }), HEARTBEAT_MS);
      try {
        while (Date.now() - began < maxMs) {
          context.heartbeat({ delivered: report.delivered });
          const target = await endpoints.target(endpointId).catch(async (error: unknown) => {
            // Secrets that cannot be opened (a key missing from ECA_CODEC_KEYS): shown on the endpoint too.
            await endpoints.recordFailure(endpointId, error instanceof Error ? error.message : String(error));
            throw error;
          });
          report.state = target ? target.endpoint.state : 'missing';
          if (!target || target.endpoint.state !== 'active') break;
          const held = await heldFor(target.endpoint.csid);
          if (held) {
            // Not a failure: the endpoint stays active, its cursor where it was, until the firm is enabled.
            if (!heldSaid) context.log.warn(`webhook delivery held: ${held.message}`, { endpointId });
            heldSaid = true;
            await pause();
            continue;
          }
          const { idle } = await drain(target, report, context.cancellationSignal, began + maxMs);
          if (report.failed !== undefined) break;
          if (idle) await pause();
        }
        return { ...report, durationMs: Date.now() - began };
      } finally {
        clearInterval(beat);
      }
    },

    async pauseWebhook({ endpointId, error }): Promise<boolean> {
      return endpoints.pauseAfterFailures(endpointId, error);
    },

    async webhookState({ endpointId }): Promise<WebhookDeliveryReport['state']> {
      return (await endpoints.stateOf(endpointId)) ?? 'missing';
    },
  };
}

/**
 * `webhookDelivery`: one workflow per webhook endpoint, delivering the firm's lifecycle events to it for
 * as long as it exists. It runs one long activity after another (activities/webhooks.ts): each sends
 * the backlog in the log's order and then waits for new events, for a window of minutes.
 *
 * A delivery the receiver does not acknowledge fails the activity when nothing was delivered in it (after
 * a delivery it ends the window, and the next one starts counting again): Temporal retries it with
 * exponential backoff (from 1 second to 5 minutes by default). So the attempts count failures in a row,
 * and when they run out (25 by default) the endpoint is paused with
 * the last error and the workflow waits for `resumeWebhook` (client/webhooks.ts sends it on resume);
 * nothing is dropped, since the endpoint's cursor stays where the receiver last acknowledged. While
 * paused it reads the endpoint's state now and then, in case it was resumed without a signal. It ends
 * when the endpoint is deleted (`stopWebhook`, or the state the activity reads).
 */
import {
  ActivityFailure,
  condition,
  continueAsNew,
  isCancellation,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import type { WebhookActivities } from './activities.js';
import { DEFAULT_WEBHOOK_RETRY, resumeWebhookSignal, stopWebhookSignal, webhookDeliveryQuery } from './messages.js';
import type { WebhookDeliveryInput, WebhookDeliveryReport, WebhookDeliveryView } from './messages.js';

/** One delivery activity runs this long by default, then hands back (a few history events per window). */
const DEFAULT_WINDOW_MS = 5 * 60_000;
/** Beyond the window: the last request's timeout and the time to write its result. */
const WINDOW_MARGIN_MS = 2 * 60_000;
/** A run continues as new after this many windows (about 6 events each). */
const WINDOWS_PER_RUN = 200;

export async function webhookDelivery(input: WebhookDeliveryInput): Promise<WebhookDeliveryView> {
  const { endpointId } = input;
  const windowMs = input.windowMs ?? DEFAULT_WINDOW_MS;
  const retry = { ...DEFAULT_WEBHOOK_RETRY, ...input.retry };
  const deliveries = proxyActivities<Pick<WebhookActivities, 'deliverWebhooks'>>({
    startToCloseTimeout: windowMs + WINDOW_MARGIN_MS,
    heartbeatTimeout: '30 seconds',
    retry,
  });
  const control = proxyActivities<Omit<WebhookActivities, 'deliverWebhooks'>>({
    startToCloseTimeout: '1 minute',
    retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
  });

  const view: WebhookDeliveryView = {
    endpointId,
    phase: 'delivering',
    runs: input.carried?.runs ?? 0,
    delivered: input.carried?.delivered ?? 0,
    ...(input.carried?.lastError !== undefined && { lastError: input.carried.lastError }),
  };
  let resumed = false;
  let stopped = false;
  setHandler(resumeWebhookSignal, () => void (resumed = true));
  setHandler(stopWebhookSignal, () => void (stopped = true));
  setHandler(webhookDeliveryQuery, () => ({ ...view }));

  for (let slot = 0; !stopped; slot++) {
    // A resume that arrives from here on counts: one before it is about an earlier pause.
    resumed = false;
    view.phase = 'delivering';
    setCurrentDetails(renderDetails(view));
    let state: WebhookDeliveryReport['state'];
    try {
      const report = await deliveries.deliverWebhooks.executeWithOptions({ summary: `deliver to ${endpointId}` }, [
        { endpointId, maxMs: windowMs },
      ]);
      view.delivered += report.delivered;
      if (report.failed !== undefined) view.lastError = report.failed;
      state = report.state;
    } catch (error) {
      if (isCancellation(error)) throw error;
      view.lastError = failureMessage(error);
      log.warn('webhook delivery gave up; pausing the endpoint', { endpointId, error: view.lastError });
      const paused = await control.pauseWebhook({ endpointId, error: view.lastError });
      state = paused ? 'paused' : 'active';
    }
    view.runs++;
    if (state === 'deleted' || state === 'missing') break;
    if (state === 'paused' && !(await waitForResume())) break;
    if (slot + 1 >= WINDOWS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof webhookDelivery>({
        ...input,
        carried: { runs: view.runs, delivered: view.delivered, lastError: view.lastError },
      });
    }
  }
  setCurrentDetails(`**Webhook delivery** to ${endpointId} ended: the endpoint was deleted.`);
  return { ...view };

  /** Waits while the endpoint is paused; false when it was deleted meanwhile. */
  async function waitForResume(): Promise<boolean> {
    view.phase = 'paused';
    setCurrentDetails(renderDetails(view));
    for (;;) {
      if (await condition(() => resumed || stopped, input.pausedCheckInterval ?? '1 hour')) return !stopped;
      const state = await control.webhookState({ endpointId });
      if (state === 'active') return true;
      if (state !== 'paused') return false;
    }
  }
}

/** An activity failure's own message is generic; its cause says what the receiver did. */
function failureMessage(error: unknown): string {
  const cause = error instanceof ActivityFailure ? (error.cause ?? error) : error;
  if (cause instanceof Error) return cause.message;
  return String(cause);
}

function renderDetails(view: WebhookDeliveryView): string {
  const lines = [
    `**Webhook delivery** to endpoint ${view.endpointId}: ${view.phase === 'paused' ? 'paused, waiting for a resume' : 'delivering'}.`,
    `${view.delivered} events acknowledged over ${view.runs} windows.`,
  ];
  if (view.lastError) lines.push(`Last error: ${view.lastError}`);
  return lines.join('\n\n');
}

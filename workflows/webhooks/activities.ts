/** The activities of the webhook delivery workflow, as types only (workflows/webhooks). */
import type { WebhookDeliveryReport } from './messages.js';

export interface WebhookActivities {
  /**
   * Delivers the endpoint's backlog in the log's order, then waits for new events, for up to `maxMs`;
   * returns early when the endpoint is paused or deleted. A delivery that fails records the failure on
   * the endpoint and fails the activity (retryable), the workflow's retry policy sends it again.
   */
  deliverWebhooks(input: { endpointId: string; maxMs: number }): Promise<WebhookDeliveryReport>;
  /** Pauses the endpoint after its last attempt failed, with that error; false when it was no longer failing (resumed meanwhile) or not active. */
  pauseWebhook(input: { endpointId: string; error: string }): Promise<boolean>;
  /** The endpoint's state (`missing` when there is none). */
  webhookState(input: { endpointId: string }): Promise<WebhookDeliveryReport['state']>;
}

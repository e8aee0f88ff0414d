/**
 * Messages of the `webhookDelivery` workflow: one per webhook endpoint, id
 * `webhook-delivery-<endpointId>` (domain/workflow-ids.ts). Definitions only, so the client can import
 * them without workflow code.
 */
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** A duration as Temporal reads it: `'5 minutes'`, `'10s'` or milliseconds. */
export type WebhookDuration = string | number;

/** How deliveries that fail are retried before the endpoint is paused. */
export interface WebhookRetryPolicy {
  /** First wait after a failure (default 1 second). */
  initialInterval?: WebhookDuration;
  /** Each wait is this many times the last (default 2). */
  backoffCoefficient?: number;
  /** Longest wait (default 5 minutes). */
  maximumInterval?: WebhookDuration;
  /** Attempts in a row before the endpoint is paused (default 25: about an hour and a half of failures). */
  maximumAttempts?: number;
}

export const DEFAULT_WEBHOOK_RETRY: Required<WebhookRetryPolicy> = {
  initialInterval: '1 second',
  backoffCoefficient: 2,
  maximumInterval: '5 minutes',
  maximumAttempts: 25,
};

export interface WebhookDeliveryInput {
  endpointId: string;
  retry?: WebhookRetryPolicy;
  /** How long one delivery activity runs before it hands back (default 5 minutes). */
  windowMs?: number;
  /** While paused, how often the endpoint's state is read in case it was resumed without a signal (default 1 hour). */
  pausedCheckInterval?: WebhookDuration;
  /** Set by the workflow itself when it continues as new. */
  carried?: { runs: number; delivered: number; lastError?: string };
}

/** What one delivery activity did, and the state it left the endpoint in. */
export interface WebhookDeliveryReport {
  /** `missing`: no such endpoint (never registered, or its row is gone). */
  state: 'active' | 'paused' | 'deleted' | 'missing';
  /** Events the endpoint acknowledged in this activity. */
  delivered: number;
  /** Times the cursor was found moved (a replay) and reading began again from it. */
  rewound: number;
  durationMs: number;
  /** The window ended on a failure after deliveries (the next window retries; the attempts count again from 1). */
  failed?: string;
}

export interface WebhookDeliveryView {
  endpointId: string;
  /** `delivering`, or `paused` waiting for a resume. */
  phase: 'delivering' | 'paused';
  runs: number;
  delivered: number;
  lastError?: string;
}

/** The endpoint was resumed (client/webhooks.ts): deliver again. */
export const resumeWebhookSignal = defineSignal('resumeWebhook');
/** The endpoint was deleted: end. */
export const stopWebhookSignal = defineSignal('stopWebhook');
export const webhookDeliveryQuery = defineQuery<WebhookDeliveryView>('state');

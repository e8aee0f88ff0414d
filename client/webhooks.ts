/**
 * Webhook delivery from the client side: the API and the CLI change an endpoint in the registry
 * (runtime/webhooks.ts) and then tell its delivery workflow (workflows/webhooks), one per endpoint,
 * `webhook-delivery-<endpointId>`:
 *
 * - register → `startWebhookDelivery` (idempotent: a workflow already running for it is kept);
 * - resume → `resumeWebhookDelivery` (signal-with-start: a paused workflow delivers again, a missing one starts);
 * - delete → `stopWebhookDelivery` (the workflow ends; it would see the deleted state by itself too);
 * - pause and replay need nothing here: the delivery activity reads the endpoint's state and cursor.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { within } from './abort.js';
import type { Abortable } from './abort.js';
import { EcaCsid } from '../domain/search-attributes.js';
import { DEFAULT_TASK_QUEUE, WEBHOOK_DELIVERY_WORKFLOW, webhookDeliveryWorkflowId } from '../domain/workflow-ids.js';
import type { webhookDelivery } from '../workflows/webhooks/workflow.js';
import { resumeWebhookSignal, stopWebhookSignal, webhookDeliveryQuery } from '../workflows/webhooks/messages.js';
import type { WebhookDeliveryInput, WebhookDeliveryView } from '../workflows/webhooks/messages.js';

export interface WebhookDeliveryContext extends Abortable {
  /** The task queue of the engine's workers (the workers need the database: createEngineActivities({ database })). */
  taskQueue?: string;
}

export interface WebhookEndpointRef {
  /** The firm (the workflow's `EcaCsid` search attribute). */
  csid: string;
  endpointId: string;
}

/** Retry policy, window and paused check of the workflow when this call starts it (defaults otherwise). */
export type WebhookDeliveryOptions = Omit<WebhookDeliveryInput, 'endpointId' | 'carried'>;

function startOptions(ctx: WebhookDeliveryContext, ref: WebhookEndpointRef, options: WebhookDeliveryOptions) {
  return {
    taskQueue: ctx.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId: webhookDeliveryWorkflowId(ref.endpointId),
    args: [{ ...options, endpointId: ref.endpointId }] as [WebhookDeliveryInput],
    typedSearchAttributes: [{ key: EcaCsid, value: ref.csid }],
    staticSummary: `Webhook delivery to endpoint ${ref.endpointId} of ${ref.csid}`,
  };
}

/** Starts the endpoint's delivery workflow unless one is running (then that one is kept, with its options). */
export async function startWebhookDelivery(
  ctx: WebhookDeliveryContext,
  ref: WebhookEndpointRef,
  options: WebhookDeliveryOptions = {},
): Promise<{ workflowId: string; runId: string }> {
  return within(ctx, async () => {
    const handle = await ctx.client.workflow.start<typeof webhookDelivery>(WEBHOOK_DELIVERY_WORKFLOW, {
      ...startOptions(ctx, ref, options),
      workflowIdConflictPolicy: 'USE_EXISTING',
    });
    return { workflowId: handle.workflowId, runId: handle.firstExecutionRunId };
  });
}

/**
 * Tells the endpoint's delivery workflow that it was resumed (call after `WebhookEndpoints.resume`):
 * a paused one delivers again, and one that is not running (never started, ended) is started.
 */
export async function resumeWebhookDelivery(
  ctx: WebhookDeliveryContext,
  ref: WebhookEndpointRef,
  options: WebhookDeliveryOptions = {},
): Promise<{ workflowId: string }> {
  return within(ctx, async () => {
    const handle = await ctx.client.workflow.signalWithStart<typeof webhookDelivery>(WEBHOOK_DELIVERY_WORKFLOW, {
      ...startOptions(ctx, ref, options),
      signal: resumeWebhookSignal,
      signalArgs: [],
    });
    return { workflowId: handle.workflowId };
  });
}

/** Ends the endpoint's delivery workflow (call after `WebhookEndpoints.delete`); false when none was running. */
export async function stopWebhookDelivery(ctx: WebhookDeliveryContext, endpointId: string): Promise<boolean> {
  return within(ctx, async () => {
    try {
      await ctx.client.workflow.getHandle(webhookDeliveryWorkflowId(endpointId)).signal(stopWebhookSignal);
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  });
}

/** What the endpoint's delivery workflow is doing (delivering or paused, counts, last error). */
export async function webhookDeliveryState(
  ctx: WebhookDeliveryContext,
  endpointId: string,
): Promise<WebhookDeliveryView> {
  return within(ctx, async () =>
    ctx.client.workflow.getHandle(webhookDeliveryWorkflowId(endpointId)).query(webhookDeliveryQuery),
  );
}

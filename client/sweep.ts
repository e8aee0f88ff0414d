/**
 * The firm's status sweep from the client side: started (or found running) with the first application
 * of a firm, and read by ops. One workflow per CSID, `status-sweep:<CSID>` (workflows/sweep).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { shielded, within } from './abort.js';
import type { EngineContext } from './context.js';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { EcaCsid } from '../domain/search-attributes.js';
import type { firmStatusSweep } from '../workflows/sweep/workflow.js';
import { DEFAULT_SWEEP_INTERVAL, sweepStateQuery } from '../workflows/sweep/messages.js';
import { FIRM_STATUS_SWEEP_WORKFLOW, sweepWorkflowId } from '../domain/workflow-ids.js';
import type { SweepInterval, SweepView } from '../workflows/sweep/messages.js';

/** How long a process trusts that the sweep it started is still running before asking the server again. */
const RECHECK_MS = 60_000;

const ensured = new WeakMap<object, Map<string, number>>();

/**
 * Starts the firm's status sweep unless it is running (conflict policy USE_EXISTING: a running sweep
 * keeps its own interval; one running on another task queue is replaced). Its slot: `sweepInterval`, else the tracking poll interval of the context's
 * settings, else 5 minutes. `startApplication` calls it; at most once a minute per client, firm and task queue.
 */
export async function ensureStatusSweep(
  ctx: Pick<EngineContext, 'client' | 'csid' | 'taskQueue' | 'sweepInterval' | 'settings' | 'signal'>,
  options: { force?: boolean } = {},
): Promise<{ workflowId: string }> {
  return within(ctx, async () => {
    const workflowId = sweepWorkflowId(ctx.csid);
    const taskQueue = ctx.taskQueue ?? DEFAULT_TASK_QUEUE;
    const seen = ensured.get(ctx.client) ?? new Map<string, number>();
    ensured.set(ctx.client, seen);
    const key = `${ctx.csid} ${taskQueue}`;
    const last = seen.get(key);
    if (!options.force && last !== undefined && Date.now() - last < RECHECK_MS) return { workflowId };
    // Compressed time sets short poll intervals: the sweep follows the tracking interval then.
    const tracking = ctx.settings?.pollIntervals?.tracking as SweepInterval | undefined;
    const interval: SweepInterval = ctx.sweepInterval ?? tracking ?? DEFAULT_SWEEP_INTERVAL;
    // A sweep left on another task queue (the workers moved to a new one) would never run again: it is
    // replaced by one on the queue the firm's applications now start on. Both steps run to their end
    // even when the caller's signal aborts, so that the firm is never left without its sweep.
    await shielded(ctx, async () => {
      const running = ctx.client.workflow.getHandle(workflowId);
      try {
        const described = await running.describe();
        if (described.status.name === 'RUNNING' && described.taskQueue !== taskQueue) {
          await running.terminate(`the firm's applications now start on task queue ${taskQueue}`);
        }
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
      await ctx.client.workflow.start<typeof firmStatusSweep>(FIRM_STATUS_SWEEP_WORKFLOW, {
        taskQueue,
        workflowId,
        workflowIdConflictPolicy: 'USE_EXISTING',
        args: [{ csid: ctx.csid, interval }],
        typedSearchAttributes: [{ key: EcaCsid, value: ctx.csid }],
        staticSummary: `Status sweep of ${ctx.csid} every ${String(interval)}`,
      });
    });
    seen.set(key, Date.now());
    return { workflowId };
  });
}

/** What the firm's sweep did at its last slot. */
export async function sweepState(ctx: Pick<EngineContext, 'client' | 'csid' | 'signal'>): Promise<SweepView> {
  return within(ctx, () => ctx.client.workflow.getHandle(sweepWorkflowId(ctx.csid)).query(sweepStateQuery));
}

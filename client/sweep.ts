/**
 * The firm's status sweep from the client side: started (or found running) with the first application
 * of a firm, and read by ops. One workflow per CSID, `status-sweep:<CSID>` (workflows/sweep); a sweep
 * 1.0.0 started as `status-sweep-<CSID>` is stopped once today's runs.
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { shielded, within } from './abort.js';
import type { EngineContext } from './context.js';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { EcaCsid } from '../domain/search-attributes.js';
import type { firmStatusSweep } from '../workflows/sweep/workflow.js';
import { DEFAULT_SWEEP_INTERVAL, sweepStateQuery } from '../workflows/sweep/messages.js';
import { FIRM_STATUS_SWEEP_WORKFLOW, legacySweepWorkflowId, sweepWorkflowId } from '../domain/workflow-ids.js';
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
      await stopLegacySweep(ctx, workflowId);
    });
    seen.set(key, Date.now());
    return { workflowId };
  });
}

/**
 * The firm's sweep under 1.0.0's id (`status-sweep-<CSID>`), when it runs: the firm has one sweep, so it is
 * ended once today's (`replaced`) runs. CSIDs may prefix one another in 1.0.0's ids: its EcaCsid decides.
 */
async function legacySweep(ctx: Pick<EngineContext, 'client' | 'csid'>) {
  const handle = ctx.client.workflow.getHandle(legacySweepWorkflowId(ctx.csid));
  try {
    const described = await handle.describe();
    const ours =
      described.typedSearchAttributes.get(EcaCsid) === ctx.csid && described.type === FIRM_STATUS_SWEEP_WORKFLOW;
    return ours && described.status.name === 'RUNNING' ? handle : undefined;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

async function stopLegacySweep(ctx: Pick<EngineContext, 'client' | 'csid'>, replaced: string): Promise<void> {
  const legacy = await legacySweep(ctx);
  if (legacy === undefined) return;
  try {
    await legacy.terminate(`replaced by the firm's status sweep ${replaced}`);
  } catch (error) {
    // Ended meanwhile (another client replaced it first).
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

/** What the firm's sweep did at its last slot (1.0.0's, while it is the one running). */
export async function sweepState(ctx: Pick<EngineContext, 'client' | 'csid' | 'signal'>): Promise<SweepView> {
  return within(ctx, async () => {
    try {
      return await ctx.client.workflow.getHandle(sweepWorkflowId(ctx.csid)).query(sweepStateQuery);
    } catch (error) {
      const legacy = error instanceof WorkflowNotFoundError ? await legacySweep(ctx) : undefined;
      if (legacy === undefined) throw error;
      return legacy.query(sweepStateQuery);
    }
  });
}

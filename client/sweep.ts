/**
 * The firm's status sweep from the client side: started (or found running) with the first application
 * of a firm, and read by ops. One workflow per CSID, `status-sweep-<CSID>` (workflows/sweep).
 */
import type { EngineContext } from './applications.js';
import { DEFAULT_TASK_QUEUE } from '../workflows/application/messages.js';
import { EcaCsid } from '../workflows/search-attributes.js';
import type { firmStatusSweep } from '../workflows/sweep/workflow.js';
import {
  DEFAULT_SWEEP_INTERVAL,
  FIRM_STATUS_SWEEP_WORKFLOW,
  sweepStateQuery,
  sweepWorkflowId,
} from '../workflows/sweep/messages.js';
import type { SweepInterval, SweepView } from '../workflows/sweep/messages.js';

/** How long a process trusts that the sweep it started is still running before asking the server again. */
const RECHECK_MS = 60_000;

const ensured = new WeakMap<object, Map<string, number>>();

/**
 * Starts the firm's status sweep unless it is running (conflict policy USE_EXISTING: a running sweep
 * keeps its own interval). Its slot: `sweepInterval`, else the tracking poll interval of the context's
 * settings, else 5 minutes. `startApplication` calls it; at most once a minute per client and firm.
 */
export async function ensureStatusSweep(
  ctx: Pick<EngineContext, 'client' | 'csid' | 'taskQueue' | 'sweepInterval' | 'settings'>,
  options: { force?: boolean } = {},
): Promise<{ workflowId: string }> {
  const workflowId = sweepWorkflowId(ctx.csid);
  const seen = ensured.get(ctx.client) ?? new Map<string, number>();
  ensured.set(ctx.client, seen);
  const last = seen.get(ctx.csid);
  if (!options.force && last !== undefined && Date.now() - last < RECHECK_MS) return { workflowId };
  // Compressed time sets short poll intervals: the sweep follows the tracking interval then.
  const tracking = ctx.settings?.pollIntervals?.tracking as SweepInterval | undefined;
  const interval: SweepInterval = ctx.sweepInterval ?? tracking ?? DEFAULT_SWEEP_INTERVAL;
  await ctx.client.workflow.start<typeof firmStatusSweep>(FIRM_STATUS_SWEEP_WORKFLOW, {
    taskQueue: ctx.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowId,
    workflowIdConflictPolicy: 'USE_EXISTING',
    args: [{ csid: ctx.csid, interval }],
    typedSearchAttributes: [{ key: EcaCsid, value: ctx.csid }],
    staticSummary: `Status sweep of ${ctx.csid} every ${String(interval)}`,
  });
  seen.set(ctx.csid, Date.now());
  return { workflowId };
}

/** What the firm's sweep did at its last slot. */
export async function sweepState(ctx: Pick<EngineContext, 'client' | 'csid'>): Promise<SweepView> {
  return ctx.client.workflow.getHandle(sweepWorkflowId(ctx.csid)).query(sweepStateQuery);
}

/**
 * The waiting phase: W stalled applications wait in awaitingClient, and the firm's sweep reads them all
 * every `--sweep-slot`. Progress from visibility counts, never queries.
 */
import { startApplication } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import { EcaLifecycleState } from '../../domain/search-attributes.js';
import { applicationWorkflowId, sweepWorkflowId } from '../../domain/workflow-ids.js';
import { pollNowSignal } from '../../workflows/application/messages.js';
import {
  callsPer,
  cpuSeconds,
  cpuShare,
  metricGrowth,
  mib,
  percentile,
  pool,
  round,
  scrape,
  sleep,
} from './measure.js';
import { SLOTS, SWEEP_SLOT_MS } from './options.js';
import { applicationXml } from './setup.js';
import type { Bench } from './setup.js';

/** Applications of this bench run whose workflow id starts with `prefix`, by visibility (no queries). */
export async function countApplications(bench: Bench, prefix: string, condition: string): Promise<number> {
  const query = `WorkflowId STARTS_WITH '${prefix}' AND ${condition}`;
  return (await bench.client.workflow.count(query)).count;
}

export async function stopSweep(bench: Bench): Promise<void> {
  await bench.client.workflow
    .getHandle(sweepWorkflowId(bench.sim.csid))
    .terminate('bench: next phase')
    .catch(() => undefined);
}

/** The bench's context with a slot of `slotMs` for the firm's sweep, on `taskQueue` if given. */
export function sweepContext(bench: Bench, slotMs: number, options: { taskQueue?: string } = {}): EngineContext {
  const interval = `${slotMs / 1000} seconds`;
  return {
    ...bench.ctx,
    ...(options.taskQueue && { taskQueue: options.taskQueue }),
    sweepInterval: slotMs,
    settings: { pollIntervals: { tracking: interval } },
  };
}

/** Ends a phase: its applications terminated, the firm's sweep stopped. */
export async function endPhase(bench: Bench, ids: string[]): Promise<void> {
  console.log(`  terminating ${ids.length} applications...`);
  await pool(ids.length, 50, async (i) => {
    await bench.client.workflow
      .getHandle(ids[i]!)
      .terminate('benchmark over')
      .catch(() => undefined);
  });
  await stopSweep(bench);
}

/** When each application of `workflowIds` first left awaitingClient after `since` (ms), from its history. */
async function transitionTimes(bench: Bench, workflowIds: string[], since: Map<string, number>): Promise<number[]> {
  const reactions: number[] = [];
  await pool(workflowIds.length, 10, async (i) => {
    const workflowId = workflowIds[i]!;
    const at = since.get(workflowId);
    if (at === undefined) return;
    const events = (await bench.client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
    for (const event of events) {
      const fields = event.upsertWorkflowSearchAttributesEventAttributes?.searchAttributes?.indexedFields;
      const state = fields?.[EcaLifecycleState.name]?.data;
      if (!state || !event.eventTime) continue;
      const time = Number(event.eventTime.seconds) * 1000 + Math.floor((event.eventTime.nanos ?? 0) / 1e6);
      const name = JSON.parse(new TextDecoder().decode(state)) as string;
      if (time >= at && name !== 'awaitingClient') {
        reactions.push(time - at);
        return;
      }
    }
  });
  return reactions;
}

/** Starts `count` stalled applications tagged `tag`, then waits until all of them wait in awaitingClient. */
export async function startWaiting(bench: Bench, phaseCtx: EngineContext, tag: string, count: number) {
  const prefix = applicationWorkflowId(bench.sim.csid, tag);
  const t0 = Date.now();
  const ids: string[] = [];
  const progress = setInterval(() => console.log(`  ${ids.length}/${count} started`), 30_000);
  try {
    await pool(count, 50, async (i) => {
      const { workflowId } = await startApplication(phaseCtx, { applicationXml: applicationXml(`${tag}${i}`) });
      ids[i] = workflowId;
    });
  } finally {
    clearInterval(progress);
  }
  const startSeconds = (Date.now() - t0) / 1000;
  // Waiting means: in awaitingClient, i.e. the account was read once (by the application or the sweep).
  for (let i = 0; ; i++) {
    const waiting = await countApplications(bench, prefix, `EcaLifecycleState = 'awaitingClient'`);
    if (waiting >= count) break;
    if (i % 15 === 0) console.log(`  ${waiting}/${count} waiting after ${round((Date.now() - t0) / 1000)} s`);
    if (Date.now() - t0 > 90 * 60_000) throw new Error(`only ${waiting} of ${count} applications ever waited`);
    await sleep(2000);
  }
  return { ids, startSeconds, settledSeconds: (Date.now() - t0) / 1000 };
}

/** What `slots` whole slots of waiting cost: brokerage calls, workflow tasks, activities, CPU, memory. */
export async function measureSlots(bench: Bench, slotMs: number, slots: number) {
  const { sim, tracker, pids, metricsUrl } = bench;
  // Let a whole slot pass, so that the measured slots hold nothing but waiting (a long slot: start
  // just after its boundary).
  const nextBoundary = () => (Math.floor(Date.now() / slotMs) + 1) * slotMs;
  await sleep(nextBoundary() - Date.now() + (slots > 1 ? slotMs + slotMs / 2 : 5000));
  const callsBefore = await sim.calls();
  const metricsBefore = await scrape(metricsUrl);
  const activitiesBefore = tracker.activities;
  const cpuBefore = await cpuSeconds(pids);
  await sleep(slots * slotMs);
  const cpu = cpuShare(cpuBefore, await cpuSeconds(pids), (slots * slotMs) / 1000);
  const callsAfter = await sim.calls();
  const metricsAfter = await scrape(metricsUrl);
  const memory = process.memoryUsage();
  const perSlot = callsPer(callsBefore, callsAfter, slots);
  return {
    brokerageCallsPerSlot: round(Object.values(perSlot).reduce((sum, n) => sum + n, 0)),
    brokerageCallsPerSlotByOperation: perSlot,
    workflowTasksPerSlot: round(metricGrowth(metricsBefore, metricsAfter, 'workflow_task_execution_latency') / slots),
    activitiesPerSlot: round((tracker.activities - activitiesBefore) / slots),
    cpu,
    memory,
  };
}

/**
 * pollNow → the read's activity starts (applications 100..199), one at a time as staff send them:
 * the next is sent when the read started or 2 s passed; late reads are still counted (60 s at most).
 */
async function pollNowLatencies(bench: Bench, ids: string[]) {
  const pollSent = new Map<string, number>();
  const started = (workflowId: string) => {
    const at = bench.tracker.readStartedAt.get(workflowId);
    return at !== undefined && at >= pollSent.get(workflowId)! ? at : undefined;
  };
  for (const workflowId of ids.slice(100, 200)) {
    pollSent.set(workflowId, Date.now());
    await bench.client.workflow.getHandle(workflowId).signal(pollNowSignal, {});
    for (let i = 0; i < 100 && started(workflowId) === undefined; i++) await sleep(20);
  }
  for (let i = 0; i < 120 && [...pollSent.keys()].some((id) => started(id) === undefined); i++) await sleep(500);
  const latencies = [...pollSent].flatMap(([id, sent]) => {
    const at = started(id);
    return at === undefined ? [] : [at - sent];
  });
  return { latencies, sent: pollSent.size };
}

/**
 * A status change at the brokerage (the client completes the portal task of applications 0..99)
 * → the workflow's transition out of awaitingClient, timed from its history.
 */
async function reactionTimes(bench: Bench, ids: string[], tag: string, slotMs: number): Promise<number[]> {
  const { sim, client } = bench;
  const sample = ids.slice(0, Math.min(100, ids.length));
  const changedAt = new Map<string, number>();
  await pool(sample.length, 20, async (i) => {
    const externalId = `${tag}${i}`;
    const account = await sim.control<{ accountId: string }>('GET', `/external-ids/${externalId}`);
    changedAt.set(sample[i]!, Date.now());
    await sim.control('POST', `/accounts/${account.accountId}/complete-task`, {});
  });
  const sampleQuery = `WorkflowId IN (${sample.map((id) => `'${id}'`).join(', ')})`;
  const giveUpAt = Date.now() + 10 * slotMs + 120_000;
  while (Date.now() < giveUpAt) {
    const still = (await client.workflow.count(`${sampleQuery} AND EcaLifecycleState = 'awaitingClient'`)).count;
    if (still === 0) break;
    await sleep(1000);
  }
  return transitionTimes(bench, sample, changedAt);
}

/** `count` applications waiting, measured (see the module comment), then terminated. */
export async function waitingPhase(bench: Bench, count: number) {
  const slotMs = SWEEP_SLOT_MS;
  const slots = slotMs > 60_000 ? 1 : SLOTS;
  const interval = `${slotMs / 1000} seconds`;
  const tag = `stalled-w${count}-${bench.run}-`;
  const phaseCtx = sweepContext(bench, slotMs);
  await stopSweep(bench);
  await ensureStatusSweep(phaseCtx, { force: true });
  const rssBefore = process.memoryUsage().rss;
  const { ids, startSeconds, settledSeconds } = await startWaiting(bench, phaseCtx, tag, count);
  const { memory, ...perSlot } = await measureSlots(bench, slotMs, slots);
  const pollNow = await pollNowLatencies(bench, ids);
  const reactions = await reactionTimes(bench, ids, tag, slotMs);

  await endPhase(bench, ids);
  return {
    waitingApplications: count,
    slot: interval,
    slotsMeasured: slots,
    startSeconds: round(startSeconds),
    allWaitingAfterSeconds: round(settledSeconds),
    ...perSlot,
    workerRssBeforeMiB: mib(rssBefore),
    workerRssMiB: mib(memory.rss),
    workerHeapUsedMiB: mib(memory.heapUsed),
    reactionSamples: reactions.length,
    reactionP50Ms: percentile(reactions, 50),
    reactionP99Ms: percentile(reactions, 99),
    pollNowSamples: pollNow.latencies.length,
    pollNowNotStartedIn60s: pollNow.sent - pollNow.latencies.length,
    pollNowToActivityP50Ms: percentile(pollNow.latencies, 50),
    pollNowToActivityP99Ms: percentile(pollNow.latencies, 99),
  };
}

export type Waiting = Awaited<ReturnType<typeof waitingPhase>>;

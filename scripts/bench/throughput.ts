/** The ceiling (no-op workflows) and throughput (happy applications start → Open) phases. */
import { startApplication } from '../../client/applications.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import {
  callsPer,
  cpuSeconds,
  cpuShare,
  metricGrowth,
  metricGrowthByType,
  percentile,
  pool,
  round,
  scrape,
} from './measure.js';
import { CONCURRENCY } from './options.js';
import { applicationXml } from './setup.js';
import type { Bench } from './setup.js';

/** `count` workflows with one no-op activity each, `CONCURRENCY` in flight. */
export async function noopPhase(bench: Bench, count: number) {
  const { client, pids, metricsUrl } = bench;
  const latencies: number[] = [];
  const cpuBefore = await cpuSeconds(pids);
  const before = await scrape(metricsUrl);
  const start = Date.now();
  await pool(count, CONCURRENCY, async (i) => {
    const t = Date.now();
    await client.workflow.execute('benchNoop', {
      taskQueue: bench.noopQueue,
      workflowId: `noop-${bench.run}-${count}-${i}`,
    });
    latencies.push(Date.now() - t);
  });
  const seconds = (Date.now() - start) / 1000;
  const after = await scrape(metricsUrl);
  return {
    workflows: count,
    seconds: round(seconds),
    workflowsPerSecond: round(count / seconds),
    workflowTasksPerSecond: round(metricGrowth(before, after, 'workflow_task_execution_latency') / seconds),
    activitiesPerSecond: round(metricGrowth(before, after, 'activity_execution_latency') / seconds),
    latencyP50Ms: percentile(latencies, 50),
    latencyP99Ms: percentile(latencies, 99),
    cpu: cpuShare(cpuBefore, await cpuSeconds(pids), seconds),
  };
}

export type Ceiling = Awaited<ReturnType<typeof noopPhase>>;

/** N happy applications, `CONCURRENCY` in flight, each followed to its result. */
export async function applicationsPhase(bench: Bench, count: number, prefix: string) {
  const { sim, tracker, pids, metricsUrl } = bench;
  const startToOpen: number[] = [];
  const startToActivity: number[] = [];
  const outcomes = new Map<string, number>();
  const callsBefore = await sim.calls();
  const metricsBefore = await scrape(metricsUrl);
  const cpuBefore = await cpuSeconds(pids);
  const activitiesBefore = tracker.activities;
  const byNameBefore = new Map(tracker.byName);
  const start = Date.now();
  await pool(count, CONCURRENCY, async (i) => {
    const externalId = `happy-${prefix}-${bench.run}-${i}`;
    const workflowId = applicationWorkflowId(sim.csid, externalId);
    const t = Date.now();
    tracker.startedAt.set(workflowId, t);
    const { handle } = await startApplication(bench.ctx, { applicationXml: applicationXml(externalId) });
    const result = await handle.result();
    startToOpen.push(Date.now() - t);
    const first = tracker.firstActivityAt.get(workflowId);
    if (first !== undefined) startToActivity.push(first - t);
    outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
  });
  const seconds = (Date.now() - start) / 1000;
  const metricsAfter = await scrape(metricsUrl);
  const perApplication = callsPer(callsBefore, await sim.calls(), count, 2);
  const wft = metricGrowth(metricsBefore, metricsAfter, 'workflow_task_execution_latency');
  const acts = tracker.activities - activitiesBefore;
  const perCount = (n: number) => round(n / count, 2);
  // What the tasks and activities were: the application's own, the retention workflows it leaves, the sweep's.
  const tasksByType = Object.fromEntries(
    Object.entries(metricGrowthByType(metricsBefore, metricsAfter, 'workflow_task_execution_latency')).map(
      ([type, n]) => [type, perCount(n)],
    ),
  );
  const activitiesByName = Object.fromEntries(
    [...tracker.byName]
      .map(([name, n]) => [name, perCount(n - (byNameBefore.get(name) ?? 0))] as const)
      .filter(([, n]) => n > 0),
  );
  return {
    applications: count,
    outcomes: Object.fromEntries(outcomes),
    seconds: round(seconds),
    applicationsPerSecond: round(count / seconds, 2),
    workflowTasksPerSecond: round(wft / seconds),
    activitiesPerSecond: round(acts / seconds),
    workflowTasksPerApplication: round(wft / count),
    activitiesPerApplication: round(acts / count),
    workflowTasksPerApplicationByType: tasksByType,
    activitiesPerApplicationByName: activitiesByName,
    brokerageCallsPerApplication: perApplication,
    startToFirstActivityP50Ms: percentile(startToActivity, 50),
    startToFirstActivityP99Ms: percentile(startToActivity, 99),
    startToOpenP50Ms: percentile(startToOpen, 50),
    startToOpenP99Ms: percentile(startToOpen, 99),
    cpu: cpuShare(cpuBefore, await cpuSeconds(pids), seconds),
  };
}

export type Throughput = Awaited<ReturnType<typeof applicationsPhase>>;

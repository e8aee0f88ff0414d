/**
 * `npm run bench`: the engine under load on this machine, measured the way Temporal's own load tools
 * measure (fixed concurrency, a warm-up left out, p50/p99), all in one run against the Temporal dev
 * server (a process of its own), the simulator (a process of its own, compressed time) and a worker in
 * this process (so that its memory and the status reader can be read):
 *
 * - ceiling: workflows with one no-op activity per second, same server and worker settings;
 * - throughput: N happy applications start → Open, at a fixed number in flight; workflow tasks and
 *   activities per second (from the worker's Prometheus metrics); brokerage calls per operation per
 *   application; start → first activity p50/p99;
 * - waiting applications, in both modes on the same settings: per-application polls (`statusSource:
 *   'poll'`) and the firm's status sweep (`'sweep'`): brokerage calls, workflow tasks and activities
 *   per slot, worker RSS and heap, simulator status change → workflow transition p50/p99 (read from
 *   histories), pollNow → activity start p50/p99. Progress from visibility counts, never queries.
 *
 * Prints a table and writes bench-results/<timestamp>.json. Options (all optional):
 *   --n 100,1000[,10000]   throughput sizes           --waiting 1000[,10000]   waiting applications
 *   --ceiling 1000         no-op workflows            --concurrency 200         applications in flight
 *   --time-scale 200000    simulated/real time        --poll 1s                 poll interval (throughput)
 *   --slots 3              slots measured (1 when a slot is over a minute)
 *   --modes sweep,poll     waiting modes measured     --sweep-slot 10s          the sweep's slot
 *   --polls-per-second 25  sizes the per-application slot: max(10 s, waiting / this)
 *   --batch-window N  --max-cached N   (default: the worker's configuration defaults)
 *   --wft-slots N  --activity-slots N  --wf-threads N (worker threads for workflows)
 *   --db memory|file  --sqlite-pragma P (repeatable)
 *   --label text           names the run in the JSON
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import { activitySignal } from '../activities/deadline.js';
import { FileDocumentStore } from '../runtime/document-store.js';
import { createEngineActivities } from '../activities/engine.js';
import { startApplication } from '../client/applications.js';
import type { EngineContext } from '../client/applications.js';
import { table } from '../client/cli.js';
import { codecDataConverter, generateCodecKeyring } from '../codec/index.js';
import { APPLICATION_XML_EXAMPLE, createEcaClient } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import { pollNowSignal } from '../workflows/application/messages.js';
import { applicationWorkflowId } from '../domain/workflow-ids.js';
import { EcaLifecycleState } from '../domain/search-attributes.js';
import { sweepWorkflowId } from '../domain/workflow-ids.js';
import { parseDurationMs } from '../client/errors.js';
import { ensureStatusSweep } from '../client/sweep.js';
import { loadWorkerConfig } from '../runtime/config.js';
import { createEngineWorker } from '../workers/engine-worker.js';
import { DevServer, freePort, ROOT, SimulatorProcess } from './processes.js';

/** The worker process's configuration defaults: the bench measures what a deployment gets. */
const CONFIG_DEFAULTS = loadWorkerConfig({});

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100,1000' },
    waiting: { type: 'string', default: '1000' },
    ceiling: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '200' },
    'time-scale': { type: 'string', default: '200000' },
    poll: { type: 'string', default: '1s' },
    slots: { type: 'string', default: '3' },
    modes: { type: 'string', default: 'sweep,poll' },
    'sweep-slot': { type: 'string', default: '10s' },
    'polls-per-second': { type: 'string', default: '25' },
    'batch-window': { type: 'string', default: String(CONFIG_DEFAULTS.polling.batchWindowMs) },
    'max-cached': { type: 'string', default: String(CONFIG_DEFAULTS.worker.maxCachedWorkflows) },
    'wft-slots': { type: 'string' },
    'activity-slots': { type: 'string' },
    'wf-threads': { type: 'string' },
    db: { type: 'string', default: 'memory' },
    'sqlite-pragma': { type: 'string', multiple: true, default: [] },
    label: { type: 'string', default: 'default settings' },
  },
});

const list = (text: string) => text.split(',').filter(Boolean).map(Number);
const SIZES = list(values.n);
const WAITING = list(values.waiting);
const CEILING = Number(values.ceiling);
const CONCURRENCY = Number(values.concurrency);
const TIME_SCALE = Number(values['time-scale']);
const POLL = values.poll;
const SLOTS = Number(values.slots);
const BATCH_WINDOW_MS = Number(values['batch-window']);
const MODES = values.modes.split(',').filter(Boolean) as Array<'poll' | 'sweep'>;
for (const mode of MODES as string[])
  if (mode !== 'poll' && mode !== 'sweep') throw new Error(`--modes: unknown mode ${mode}`);
const SWEEP_SLOT_MS = parseDurationMs(values['sweep-slot'], '--sweep-slot', '"10s"');
const POLLS_PER_SECOND = Number(values['polls-per-second']);
const WARM_UP = 20;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
const mib = (bytes: number) => round(bytes / 2 ** 20, 0);

/** Runs `count` jobs with at most `concurrency` in flight. */
async function pool(count: number, concurrency: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** CPU seconds used so far by this process (worker and client) and by the server and simulator processes. */
async function cpuSeconds(pids: { server?: number; simulator?: number }): Promise<Record<string, number>> {
  const { readFile } = await import('node:fs/promises');
  // A process and its children (tsx runs the simulator in a child node process).
  const ticks = async (pid: number | undefined): Promise<number> => {
    if (pid === undefined) return NaN;
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of /proc/<pid>/stat (11 and 12 after the command name).
    let total = (Number(fields[11]) + Number(fields[12])) / 100;
    const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    for (const child of children.split(' ').filter(Boolean)) total += await ticks(Number(child));
    return total;
  };
  const own = process.cpuUsage();
  return {
    bench: (own.user + own.system) / 1e6,
    server: await ticks(pids.server),
    simulator: await ticks(pids.simulator),
  };
}

function cpuShare(before: Record<string, number>, after: Record<string, number>, seconds: number) {
  return Object.fromEntries(
    Object.keys(after).map((key) => [key, `${round(((after[key]! - before[key]!) / seconds) * 100, 0)}%`]),
  );
}

/** Sums of the worker's Prometheus counters and histogram counts, by metric name. */
async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text();
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{[^}]*\})?\s+([-+\d.eE]+|NaN)/.exec(line);
    if (!match) continue;
    sums.set(match[1]!, (sums.get(match[1]!) ?? 0) + Number(match[2]));
  }
  return sums;
}

function metric(sums: Map<string, number>, fragment: string): number {
  for (const [name, value] of sums) if (name.includes(fragment) && name.endsWith('_count')) return value;
  return 0;
}

interface Tracker {
  startedAt: Map<string, number>;
  firstActivityAt: Map<string, number>;
  activities: number;
  /** When each workflow's latest account read (readAccount) started. */
  readStartedAt: Map<string, number>;
}

function track<T extends Record<string, unknown>>(activities: T, tracker: Tracker): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    if (typeof activity !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
      if (!tracker.firstActivityAt.has(workflowId)) tracker.firstActivityAt.set(workflowId, Date.now());
      if (name === 'readAccount') tracker.readStartedAt.set(workflowId, Date.now());
      tracker.activities++;
      return (activity as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return wrapped as T;
}

function applicationXml(externalId: string): string {
  return APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`);
}

async function main(): Promise<void> {
  const began = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'eca-bench-'));
  const metricsPort = await freePort();
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } } },
  });
  const server = new DevServer({
    ...(values.db === 'file' ? { dbFile: join(dir, 'temporal.db') } : {}),
    sqlitePragmas: values['sqlite-pragma'],
  });
  const sim = new SimulatorProcess({ timeScale: TIME_SCALE });
  // The processes are stopped whatever happens, a failed start of the other one included (a stop of
  // a process never started does nothing); processes.ts also kills them if this process exits first.
  const cleanups: Array<() => Promise<unknown>> = [
    () => server.stop(),
    () => sim.stop(),
    () => rm(dir, { recursive: true, force: true }),
  ];
  try {
    console.log('Starting the dev server and the simulator...');
    const started = await Promise.allSettled([server.start(), sim.start()]);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    const keys = generateCodecKeyring('bench');
    const nativeConnection = await NativeConnection.connect({ address: server.address });
    const connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, dataConverter: codecDataConverter(keys) });
    cleanups.unshift(
      () => nativeConnection.close(),
      () => connection.close(),
    );
    const { readFile } = await import('node:fs/promises');
    const eca: EcaClient = createEcaClient({
      baseUrl: sim.url,
      preferenceUrl: `${sim.url}/pref`,
      csid: sim.csid,
      firmPrivateKey: await readFile(join(sim.keysDir, 'firm-private.asc'), 'utf8'),
      brokeragePublicKey: await readFile(join(sim.keysDir, 'brokerage-public.asc'), 'utf8'),
      sso: { allowInsecureLoopback: true },
      signal: activitySignal,
    });
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring: keys });
    const tracker: Tracker = {
      startedAt: new Map(),
      firstActivityAt: new Map(),
      activities: 0,
      readStartedAt: new Map(),
    };
    const { activities } = createEngineActivities({
      eca,
      store,
      client,
      batchWindowMs: BATCH_WINDOW_MS,
      maxAccountsPerCall: CONFIG_DEFAULTS.polling.maxAccountsPerCall,
    });
    const tuning: Partial<WorkerOptions> = {
      ...(values['max-cached'] ? { maxCachedWorkflows: Number(values['max-cached']) } : {}),
      ...(values['wft-slots'] ? { maxConcurrentWorkflowTaskExecutions: Number(values['wft-slots']) } : {}),
      ...(values['activity-slots'] ? { maxConcurrentActivityTaskExecutions: Number(values['activity-slots']) } : {}),
      ...(values['wf-threads'] ? { workflowThreadPoolSize: Number(values['wf-threads']) } : {}),
    };
    const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
    const worker = await createEngineWorker({
      connection: nativeConnection,
      taskQueue,
      codec: keys,
      activities: track(activities as unknown as Record<string, unknown>, tracker),
      tuning,
    });
    const noopQueue = `${taskQueue}-noop`;
    const noopWorker = await Worker.create({
      connection: nativeConnection,
      taskQueue: noopQueue,
      workflowsPath: fileURLToPath(new URL('./bench/noop-workflow.ts', import.meta.url)),
      activities: { benchNoopActivity: () => Promise.resolve() },
      dataConverter: codecDataConverter(keys),
      ...tuning,
    });
    const compiled = (worker as unknown as { options: Record<string, unknown> }).options;
    const settings = {
      maxCachedWorkflows: compiled.maxCachedWorkflows,
      maxConcurrentWorkflowTaskExecutions: compiled.maxConcurrentWorkflowTaskExecutions,
      maxConcurrentActivityTaskExecutions: compiled.maxConcurrentActivityTaskExecutions,
      workflowThreadPoolSize: compiled.workflowThreadPoolSize,
      reuseV8Context: compiled.reuseV8Context,
      tuner: compiled.tuner,
      batchWindowMs: BATCH_WINDOW_MS,
      maxAccountsPerCall: CONFIG_DEFAULTS.polling.maxAccountsPerCall,
      sweepSlotMs: SWEEP_SLOT_MS,
      db: values.db,
      sqlitePragmas: values['sqlite-pragma'],
      timeScale: TIME_SCALE,
      poll: POLL,
      concurrency: CONCURRENCY,
      codec: 'AES-256-GCM',
    };
    const running = Promise.all([worker.run(), noopWorker.run()]);
    cleanups.unshift(async () => {
      worker.shutdown();
      noopWorker.shutdown();
      await running;
    });
    console.log(`Worker settings: ${JSON.stringify(settings)}`);

    const run = randomUUID().slice(0, 6);
    const ctx: EngineContext = {
      client,
      store,
      csid: sim.csid,
      taskQueue,
      sweepInterval: POLL,
      settings: {
        pollIntervals: { tracking: POLL, documents: POLL, portal: POLL, approval: POLL },
      },
    };
    const calls = () => sim.calls();
    const pids = { server: server.child?.process.pid, simulator: sim.child?.process.pid };

    async function noopPhase(count: number) {
      const latencies: number[] = [];
      const cpuBefore = await cpuSeconds(pids);
      const before = await scrape(metricsUrl);
      const start = Date.now();
      await pool(count, CONCURRENCY, async (i) => {
        const t = Date.now();
        await client.workflow.execute('benchNoop', { taskQueue: noopQueue, workflowId: `noop-${run}-${count}-${i}` });
        latencies.push(Date.now() - t);
      });
      const seconds = (Date.now() - start) / 1000;
      const after = await scrape(metricsUrl);
      return {
        workflows: count,
        seconds: round(seconds),
        workflowsPerSecond: round(count / seconds),
        workflowTasksPerSecond: round(
          (metric(after, 'workflow_task_execution_latency') - metric(before, 'workflow_task_execution_latency')) /
            seconds,
        ),
        activitiesPerSecond: round(
          (metric(after, 'activity_execution_latency') - metric(before, 'activity_execution_latency')) / seconds,
        ),
        latencyP50Ms: percentile(latencies, 50),
        latencyP99Ms: percentile(latencies, 99),
        cpu: cpuShare(cpuBefore, await cpuSeconds(pids), seconds),
      };
    }

    /** N happy applications, `CONCURRENCY` in flight, each followed to its result. */
    async function applicationsPhase(count: number, prefix: string) {
      const startToOpen: number[] = [];
      const startToActivity: number[] = [];
      const outcomes = new Map<string, number>();
      const callsBefore = await calls();
      const metricsBefore = await scrape(metricsUrl);
      const cpuBefore = await cpuSeconds(pids);
      const activitiesBefore = tracker.activities;
      const start = Date.now();
      await pool(count, CONCURRENCY, async (i) => {
        const externalId = `happy-${prefix}-${run}-${i}`;
        const workflowId = applicationWorkflowId(sim.csid, externalId);
        const t = Date.now();
        tracker.startedAt.set(workflowId, t);
        const { handle } = await startApplication(ctx, { applicationXml: applicationXml(externalId) });
        const result = await handle.result();
        startToOpen.push(Date.now() - t);
        const first = tracker.firstActivityAt.get(workflowId);
        if (first !== undefined) startToActivity.push(first - t);
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
      });
      const seconds = (Date.now() - start) / 1000;
      const metricsAfter = await scrape(metricsUrl);
      const callsAfter = await calls();
      const perApplication = Object.fromEntries(
        Object.entries(callsAfter)
          .map(([op, n]) => [op, round((n - (callsBefore[op] ?? 0)) / count, 2)] as const)
          .filter(([, n]) => n > 0),
      );
      const wft =
        metric(metricsAfter, 'workflow_task_execution_latency') -
        metric(metricsBefore, 'workflow_task_execution_latency');
      const acts = tracker.activities - activitiesBefore;
      return {
        applications: count,
        outcomes: Object.fromEntries(outcomes),
        seconds: round(seconds),
        applicationsPerSecond: round(count / seconds, 2),
        workflowTasksPerSecond: round(wft / seconds),
        activitiesPerSecond: round(acts / seconds),
        workflowTasksPerApplication: round(wft / count),
        activitiesPerApplication: round(acts / count),
        brokerageCallsPerApplication: perApplication,
        startToFirstActivityP50Ms: percentile(startToActivity, 50),
        startToFirstActivityP99Ms: percentile(startToActivity, 99),
        startToOpenP50Ms: percentile(startToOpen, 50),
        startToOpenP99Ms: percentile(startToOpen, 99),
        cpu: cpuShare(cpuBefore, await cpuSeconds(pids), seconds),
      };
    }

    /** Applications of this bench run whose workflow id starts with `prefix`, by visibility (no queries). */
    async function countApplications(prefix: string, condition: string): Promise<number> {
      const query = `WorkflowId STARTS_WITH '${prefix}' AND ${condition}`;
      return (await client.workflow.count(query)).count;
    }

    async function stopSweep(): Promise<void> {
      await client.workflow
        .getHandle(sweepWorkflowId(sim.csid))
        .terminate('bench: next phase')
        .catch(() => undefined);
    }

    /** When each application of `workflowIds` first left awaitingClient after `since` (ms), from its history. */
    async function transitionTimes(workflowIds: string[], since: Map<string, number>): Promise<number[]> {
      const reactions: number[] = [];
      await pool(workflowIds.length, 10, async (i) => {
        const workflowId = workflowIds[i]!;
        const at = since.get(workflowId);
        if (at === undefined) return;
        const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
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

    /**
     * W stalled applications wait in awaitingClient. `poll`: each reads its own account every slot
     * (max(10 s, W / polls-per-second)). `sweep`: the firm's sweep reads them all every `--sweep-slot`.
     */
    async function waitingPhase(count: number, mode: 'poll' | 'sweep') {
      const slotMs = mode === 'sweep' ? SWEEP_SLOT_MS : Math.max(10_000, Math.ceil(count / POLLS_PER_SECOND) * 1000);
      const slots = slotMs > 60_000 ? 1 : SLOTS;
      const interval = `${slotMs / 1000} seconds`;
      const tag = `stalled-${mode}-w${count}-${run}-`;
      const prefix = applicationWorkflowId(sim.csid, tag);
      const phaseCtx: EngineContext = {
        ...ctx,
        sweepInterval: slotMs,
        settings: {
          statusSource: mode,
          pollIntervals: { tracking: interval, documents: interval, portal: interval, approval: interval },
        },
      };
      await stopSweep();
      if (mode === 'sweep') await ensureStatusSweep(phaseCtx, { force: true });
      const rssBefore = process.memoryUsage().rss;
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
        const waiting = await countApplications(prefix, `EcaLifecycleState = 'awaitingClient'`);
        if (waiting >= count) break;
        if (i % 15 === 0) console.log(`  ${waiting}/${count} waiting after ${round((Date.now() - t0) / 1000)} s`);
        if (Date.now() - t0 > 90 * 60_000) throw new Error(`only ${waiting} of ${count} applications ever waited`);
        await sleep(2000);
      }
      const settledSeconds = (Date.now() - t0) / 1000;
      // Let a whole slot pass, so that the measured slots hold nothing but waiting (a long slot: start
      // just after its boundary).
      const nextBoundary = () => (Math.floor(Date.now() / slotMs) + 1) * slotMs;
      await sleep(nextBoundary() - Date.now() + (slots > 1 ? slotMs + slotMs / 2 : 5000));
      const callsBefore = await calls();
      const metricsBefore = await scrape(metricsUrl);
      const activitiesBefore = tracker.activities;
      const cpuBefore = await cpuSeconds(pids);
      await sleep(slots * slotMs);
      const cpu = cpuShare(cpuBefore, await cpuSeconds(pids), (slots * slotMs) / 1000);
      const callsAfter = await calls();
      const metricsAfter = await scrape(metricsUrl);
      const memory = process.memoryUsage();
      const perSlot = Object.fromEntries(
        Object.entries(callsAfter)
          .map(([op, n]) => [op, round((n - (callsBefore[op] ?? 0)) / slots)] as const)
          .filter(([, n]) => n > 0),
      );
      const brokerageCallsPerSlot = round(Object.values(perSlot).reduce((sum, n) => sum + n, 0));
      const workflowTasksPerSlot = round(
        (metric(metricsAfter, 'workflow_task_execution_latency') -
          metric(metricsBefore, 'workflow_task_execution_latency')) /
          slots,
      );
      const activitiesPerSlot = round((tracker.activities - activitiesBefore) / slots);

      // pollNow → the read's activity starts (applications 100..199), one at a time as staff send them:
      // the next is sent when the read started or 2 s passed; late reads are still counted (60 s at most).
      const pollSent = new Map<string, number>();
      const started = (workflowId: string) => {
        const at = tracker.readStartedAt.get(workflowId);
        return at !== undefined && at >= pollSent.get(workflowId)! ? at : undefined;
      };
      for (const workflowId of ids.slice(100, 200)) {
        pollSent.set(workflowId, Date.now());
        await client.workflow.getHandle(workflowId).signal(pollNowSignal);
        for (let i = 0; i < 100 && started(workflowId) === undefined; i++) await sleep(20);
      }
      for (let i = 0; i < 120 && [...pollSent.keys()].some((id) => started(id) === undefined); i++) await sleep(500);
      const pollLatencies = [...pollSent].flatMap(([id, sent]) => {
        const at = started(id);
        return at === undefined ? [] : [at - sent];
      });

      // A status change at the brokerage (the client completes the portal task of applications 0..99)
      // → the workflow's transition out of awaitingClient, timed from its history.
      const sample = ids.slice(0, Math.min(100, ids.length));
      const changedAt = new Map<string, number>();
      await pool(sample.length, 20, async (i) => {
        const externalId = `${tag}${i}`;
        const account = await sim.control<{ accountId: string }>('GET', `/external-ids/${externalId}`);
        changedAt.set(sample[i]!, Date.now());
        await sim.control('POST', `/accounts/${account.accountId}/complete-task`, {});
      });
      const sampleQuery = `WorkflowId IN (${sample.map((id) => `'${id}'`).join(', ')})`;
      const reactDeadline = Date.now() + 10 * slotMs + 120_000;
      while (Date.now() < reactDeadline) {
        const still = (await client.workflow.count(`${sampleQuery} AND EcaLifecycleState = 'awaitingClient'`)).count;
        if (still === 0) break;
        await sleep(1000);
      }
      const reactions = await transitionTimes(sample, changedAt);

      console.log(`  terminating ${ids.length} applications...`);
      await pool(ids.length, 50, async (i) => {
        await client.workflow
          .getHandle(ids[i]!)
          .terminate('benchmark over')
          .catch(() => undefined);
      });
      await stopSweep();
      return {
        mode,
        waitingApplications: count,
        slot: interval,
        slotsMeasured: slots,
        startSeconds: round(startSeconds),
        allWaitingAfterSeconds: round(settledSeconds),
        brokerageCallsPerSlot,
        brokerageCallsPerSlotByOperation: perSlot,
        workflowTasksPerSlot,
        activitiesPerSlot,
        cpu,
        workerRssBeforeMiB: mib(rssBefore),
        workerRssMiB: mib(memory.rss),
        workerHeapUsedMiB: mib(memory.heapUsed),
        reactionSamples: reactions.length,
        reactionP50Ms: percentile(reactions, 50),
        reactionP99Ms: percentile(reactions, 99),
        pollNowSamples: pollLatencies.length,
        pollNowNotStartedIn60s: pollSent.size - pollLatencies.length,
        pollNowToActivityP50Ms: percentile(pollLatencies, 50),
        pollNowToActivityP99Ms: percentile(pollLatencies, 99),
      };
    }

    console.log(`Warm-up: ${WARM_UP} applications and 100 no-op workflows (not counted)...`);
    await noopPhase(100);
    await applicationsPhase(WARM_UP, 'warmup');

    console.log(`Ceiling: ${CEILING} no-op workflows...`);
    const ceiling = await noopPhase(CEILING);
    console.log(`  ${JSON.stringify(ceiling)}`);
    const throughput = [];
    for (const n of SIZES) {
      console.log(`Throughput: ${n} applications start → Open, ${CONCURRENCY} in flight...`);
      throughput.push(await applicationsPhase(n, `n${n}`));
      console.log(`  ${JSON.stringify(throughput.at(-1))}`);
    }
    const waiting = [];
    for (const w of WAITING) {
      for (const mode of MODES) {
        console.log(`Waiting: ${w} applications in awaitingClient, ${mode} mode...`);
        waiting.push(await waitingPhase(w, mode));
        console.log(`  ${JSON.stringify(waiting.at(-1))}`);
      }
    }

    const result = {
      label: values.label,
      at: new Date().toISOString(),
      machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
      settings,
      ceiling,
      throughput,
      waiting,
      totalSeconds: round((Date.now() - began) / 1000),
    };
    console.log(
      `\nCeiling: ${ceiling.workflowsPerSecond} no-op workflows/s (${ceiling.workflowTasksPerSecond} workflow tasks/s, ${ceiling.activitiesPerSecond} activities/s)`,
    );
    console.log(
      table(
        [
          'N',
          'APPS/S',
          '% OF CEILING',
          'WFT/S',
          'ACT/S',
          'WFT/APP',
          'ACT/APP',
          'START→ACT P50/P99',
          'START→OPEN P50/P99',
        ],
        throughput.map((t) => [
          String(t.applications),
          String(t.applicationsPerSecond),
          `${round((t.applicationsPerSecond / ceiling.workflowsPerSecond) * 100)}%`,
          String(t.workflowTasksPerSecond),
          String(t.activitiesPerSecond),
          String(t.workflowTasksPerApplication),
          String(t.activitiesPerApplication),
          `${t.startToFirstActivityP50Ms} / ${t.startToFirstActivityP99Ms} ms`,
          `${t.startToOpenP50Ms} / ${t.startToOpenP99Ms} ms`,
        ]),
      ),
    );
    for (const t of throughput) {
      console.log(
        `Brokerage calls per application (N=${t.applications}): ${JSON.stringify(t.brokerageCallsPerApplication)}`,
      );
    }
    console.log(
      table(
        [
          'WAITING',
          'MODE',
          'SLOT',
          'CALLS/SLOT',
          'WFT/SLOT',
          'ACT/SLOT',
          'RSS',
          'HEAP',
          'REACTION P50/P99',
          'POLLNOW→ACT P50/P99',
        ],
        waiting.map((w) => [
          String(w.waitingApplications),
          w.mode,
          w.slot,
          String(w.brokerageCallsPerSlot),
          String(w.workflowTasksPerSlot),
          String(w.activitiesPerSlot),
          `${w.workerRssMiB} MiB`,
          `${w.workerHeapUsedMiB} MiB`,
          `${w.reactionP50Ms} / ${w.reactionP99Ms} ms`,
          `${w.pollNowToActivityP50Ms} / ${w.pollNowToActivityP99Ms} ms`,
        ]),
      ),
    );
    const outDir = join(ROOT, 'bench-results');
    await mkdir(outDir, { recursive: true });
    const file = join(outDir, `${result.at.replace(/[:.]/g, '-')}.json`);
    await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
    console.log(`\nWritten: ${file} (${result.totalSeconds} s)`);
  } catch (error) {
    // Said before the cleanup: closing connections can make pending retries throw on their own.
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);

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
 * - waiting applications: status-read calls per poll slot batched, then unbatched (maxBatch 1), in
 *   the same run; worker RSS and heap; simulator status change → workflow reaction p50/p99.
 *
 * Prints a table and writes bench-results/<timestamp>.json. Options (all optional):
 *   --n 100,1000[,10000]   throughput sizes           --waiting 1000[,10000]   waiting applications
 *   --ceiling 1000         no-op workflows            --concurrency 200         applications in flight
 *   --time-scale 200000    simulated/real time        --poll 1s                 poll interval (throughput)
 *   --slots 3              poll slots measured        --batch-window 50         batch window, ms
 *   --max-cached N  --wft-slots N  --activity-slots N  --wf-threads N (worker threads for workflows)
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
import { createStatusReader } from '../activities/application.js';
import type { StatusReader } from '../activities/application.js';
import { Batcher } from '../activities/batcher.js';
import { activitySignal } from '../activities/deadline.js';
import { FileDocumentStore } from '../activities/document-store.js';
import { createEngineActivities } from '../activities/engine.js';
import { getState, startApplication } from '../client/applications.js';
import type { EngineContext } from '../client/applications.js';
import { table } from '../client/cli.js';
import { codecDataConverter, generateCodecKeyring } from '../codec/index.js';
import { APPLICATION_XML_EXAMPLE, createEcaClient } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import type { AccountSnapshot } from '../workflows/lifecycle/types.js';
import { applicationWorkflowId } from '../workflows/application/messages.js';
import { createEngineWorker } from '../workers/engine-worker.js';
import { DevServer, freePort, ROOT, SimulatorProcess } from './processes.js';

const { values } = parseArgs({
  options: {
    n: { type: 'string', default: '100,1000' },
    waiting: { type: 'string', default: '1000' },
    ceiling: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '200' },
    'time-scale': { type: 'string', default: '200000' },
    poll: { type: 'string', default: '1s' },
    slots: { type: 'string', default: '3' },
    'batch-window': { type: 'string', default: '50' },
    'max-cached': { type: 'string' },
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

/** A status reader whose batching can be switched off and on in the middle of a run. */
class SwitchableReader extends Batcher<AccountSnapshot> {
  current: StatusReader;
  constructor(
    readonly batched: StatusReader,
    readonly unbatched: StatusReader,
  ) {
    super({ windowMs: 0, maxBatch: 1, fetch: () => Promise.reject(new Error('unused')) });
    this.current = batched;
  }
  override read(key: string, id: string): Promise<AccountSnapshot> {
    return this.current.read(key, id);
  }
}

interface Tracker {
  startedAt: Map<string, number>;
  firstActivityAt: Map<string, number>;
  activities: number;
  /** Account id per workflow, from the reads. */
  accounts: Map<string, string>;
  polled: Set<string>;
}

function track<T extends Record<string, unknown>>(activities: T, tracker: Tracker): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    if (typeof activity !== 'function') continue;
    wrapped[name] = async (...args: unknown[]) => {
      const workflowId = Context.current().info.workflowExecution?.workflowId ?? '';
      if (!tracker.firstActivityAt.has(workflowId)) tracker.firstActivityAt.set(workflowId, Date.now());
      tracker.activities++;
      const result: unknown = await (activity as (...a: unknown[]) => Promise<unknown>)(...args);
      if (name === 'readAccount') {
        tracker.accounts.set(workflowId, (args[0] as { accountId: string }).accountId);
        tracker.polled.add(workflowId);
      }
      return result;
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
    const store = new FileDocumentStore(join(dir, 'documents'));
    const reader = new SwitchableReader(
      createStatusReader(eca, { windowMs: BATCH_WINDOW_MS, maxBatch: 100 }),
      createStatusReader(eca, { windowMs: BATCH_WINDOW_MS, maxBatch: 1 }),
    );
    const tracker: Tracker = {
      startedAt: new Map(),
      firstActivityAt: new Map(),
      activities: 0,
      accounts: new Map(),
      polled: new Set(),
    };
    const { activities } = createEngineActivities({ eca, store, statusReader: reader });
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
      maxAccountsPerCall: 100,
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

    /** W stalled applications wait in awaitingClient, polling every `interval`. */
    async function waitingPhase(count: number) {
      const intervalMs = Math.max(5_000, Math.ceil(count / 100) * 1000);
      const interval = `${intervalMs / 1000} seconds`;
      const ids: string[] = [];
      const rssBefore = process.memoryUsage().rss;
      const t0 = Date.now();
      await pool(count, 50, async (i) => {
        const externalId = `stalled-w${count}-${run}-${i}`;
        await startApplication(ctx, {
          applicationXml: applicationXml(externalId),
          settings: {
            pollIntervals: { tracking: interval, documents: interval, portal: interval, approval: interval },
          },
        });
        ids.push(applicationWorkflowId(sim.csid, externalId));
      });
      const startSeconds = (Date.now() - t0) / 1000;
      for (let i = 0; ids.some((id) => !tracker.polled.has(id)); i++) {
        if (i > 3600) throw new Error('the waiting applications never all polled');
        await sleep(500);
      }
      const settledSeconds = (Date.now() - t0) / 1000;
      // Let a full slot pass, so that the measured slots hold nothing but polls.
      const nextBoundary = () => (Math.floor(Date.now() / intervalMs) + 1) * intervalMs;
      async function measure(mode: 'batched' | 'unbatched') {
        reader.current = mode === 'batched' ? reader.batched : reader.unbatched;
        await sleep(nextBoundary() - Date.now() + intervalMs + intervalMs / 2);
        const callsBefore = await calls();
        const readsBefore = tracker.activities;
        const statsBefore = { ...reader.current.stats };
        const cpuBefore = await cpuSeconds(pids);
        await sleep(SLOTS * intervalMs);
        const cpu = cpuShare(cpuBefore, await cpuSeconds(pids), (SLOTS * intervalMs) / 1000);
        const callsAfter = await calls();
        const delta = (op: string) => (callsAfter[op] ?? 0) - (callsBefore[op] ?? 0);
        return {
          mode,
          getAccountStatusPerSlot: round(delta('getAccountStatus') / SLOTS),
          getPendingTasksPerSlot: round(delta('getPendingTasks') / SLOTS),
          readsPerSlot: round((reader.current.stats.reads - statsBefore.reads) / SLOTS),
          activitiesPerSlot: round((tracker.activities - readsBefore) / SLOTS),
          largestBatch: reader.current.stats.largestBatch,
          statusCallsPer100Reads: round(
            (delta('getAccountStatus') / Math.max(1, reader.current.stats.reads - statsBefore.reads)) * 100,
          ),
          cpu,
        };
      }
      const batched = await measure('batched');
      const memory = process.memoryUsage();
      const unbatched = await measure('unbatched');
      reader.current = reader.batched;

      // A status change in the simulator (the client completes the portal task) → the workflow reacts.
      const sample = ids.slice(0, Math.min(100, ids.length));
      const changedAt = new Map<string, number>();
      await pool(sample.length, 20, async (i) => {
        const workflowId = sample[i]!;
        const accountId = tracker.accounts.get(workflowId);
        if (!accountId) return;
        changedAt.set(workflowId, Date.now());
        await sim.control('POST', `/accounts/${accountId}/complete-task`, {});
      });
      const reactions: number[] = [];
      for (let round = 0; reactions.length < changedAt.size && round < 600; round++) {
        reactions.length = 0;
        await pool(sample.length, 20, async (i) => {
          const workflowId = sample[i]!;
          const at = changedAt.get(workflowId);
          if (at === undefined) return;
          const state = await getState(ctx, workflowId);
          const reacted = state.transitions.find(
            (transition) => transition.at >= at && transition.state !== 'awaitingClient',
          );
          if (reacted) reactions.push(reacted.at - at);
        });
        if (reactions.length < changedAt.size) await sleep(1000);
      }
      await pool(ids.length, 50, async (i) => {
        await client.workflow
          .getHandle(ids[i]!)
          .terminate('benchmark over')
          .catch(() => undefined);
      });
      return {
        waitingApplications: count,
        pollInterval: interval,
        startSeconds: round(startSeconds),
        allPolledAfterSeconds: round(settledSeconds),
        slotsMeasured: SLOTS,
        batched,
        unbatched,
        workerRssBeforeMiB: mib(rssBefore),
        workerRssMiB: mib(memory.rss),
        workerHeapUsedMiB: mib(memory.heapUsed),
        workerHeapTotalMiB: mib(memory.heapTotal),
        reactionSamples: reactions.length,
        reactionP50Ms: percentile(reactions, 50),
        reactionP99Ms: percentile(reactions, 99),
      };
    }

    console.log(`Warm-up: ${WARM_UP} applications and 100 no-op workflows (not counted)...`);
    await noopPhase(100);
    await applicationsPhase(WARM_UP, 'warmup');

    console.log(`Ceiling: ${CEILING} no-op workflows...`);
    const ceiling = await noopPhase(CEILING);
    const throughput = [];
    for (const n of SIZES) {
      console.log(`Throughput: ${n} applications start → Open, ${CONCURRENCY} in flight...`);
      throughput.push(await applicationsPhase(n, `n${n}`));
      console.log(`  ${JSON.stringify(throughput.at(-1))}`);
    }
    const waiting = [];
    for (const w of WAITING) {
      console.log(`Waiting: ${w} applications in awaitingClient, batched vs unbatched...`);
      waiting.push(await waitingPhase(w));
      console.log(`  ${JSON.stringify(waiting.at(-1))}`);
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
          'INTERVAL',
          'STATUS CALLS/SLOT BATCHED',
          'UNBATCHED',
          'READS/SLOT',
          'RSS',
          'HEAP',
          'REACTION P50/P99',
        ],
        waiting.map((w) => [
          String(w.waitingApplications),
          w.pollInterval,
          `${w.batched.getAccountStatusPerSlot} + ${w.batched.getPendingTasksPerSlot}`,
          `${w.unbatched.getAccountStatusPerSlot} + ${w.unbatched.getPendingTasksPerSlot}`,
          `${w.batched.readsPerSlot} / ${w.unbatched.readsPerSlot}`,
          `${w.workerRssMiB} MiB`,
          `${w.workerHeapUsedMiB} MiB`,
          `${w.reactionP50Ms} / ${w.reactionP99Ms} ms`,
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

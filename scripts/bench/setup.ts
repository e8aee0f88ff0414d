/**
 * The bench's world: the dev server and the simulator started, a client, the engine's worker in this
 * process (its activities tracked) and the no-op worker beside it, on the same settings.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { WorkerOptions } from '@temporalio/worker';
import { attemptSignal } from '../../activities/attempt-signal.js';
import { createEngineActivities } from '../../activities/engine.js';
import type { EngineContext } from '../../client/context.js';
import { codecDataConverter, generateCodecKeyring } from '../../codec/index.js';
import type { CodecKeyring } from '../../codec/index.js';
import { APPLICATION_XML_EXAMPLE, createEcaClient } from '../../eca/index.js';
import type { EcaClient, EcaOperation } from '../../eca/index.js';
import type { SweepReport } from '../../workflows/sweep/messages.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { openDatabase } from '../../runtime/database/index.js';
import type { Database } from '../../runtime/database/index.js';
import { EventLog } from '../../runtime/events.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import type { DevServer, SimulatorProcess } from '../processes.js';
import type { Pids } from './measure.js';
import {
  BATCH_WINDOW_MS,
  CONCURRENCY,
  CONFIG_DEFAULTS,
  KEYS,
  CRYPTO_THREADS,
  POLL,
  SWEEP_SLOT_MS,
  TIME_SCALE,
  values,
} from './options.js';

/** What the engine's activities did, as the phases read it. */
export interface Tracker {
  startedAt: Map<string, number>;
  firstActivityAt: Map<string, number>;
  activities: number;
  /** Activities run, by name. */
  byName: Map<string, number>;
  /** When each workflow's latest account read (readAccount) started. */
  readStartedAt: Map<string, number>;
  /** What each slot of the firm's status sweep did (its reports, in order). */
  sweeps: SweepReport[];
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
      tracker.byName.set(name, (tracker.byName.get(name) ?? 0) + 1);
      return (activity as (...a: unknown[]) => Promise<unknown>)(...args);
    };
  }
  return wrapped as T;
}

export function applicationXml(externalId: string): string {
  return APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`);
}

/** Run last to first when the bench ends, whatever happens. */
export type Cleanups = Array<() => Promise<unknown>>;

/** What the phases share. */
export interface Bench {
  client: Client;
  sim: SimulatorProcess;
  metricsUrl: string;
  pids: Pids;
  tracker: Tracker;
  /** Tells this run's workflow ids from those of earlier runs. */
  run: string;
  /** The engine's task queue, polled at `--poll`. */
  ctx: EngineContext;
  noopQueue: string;
  settings: ReturnType<typeof workerSettings>;
  /** The engine's database (embedded): the event log, the webhook endpoints, the sweep's snapshot. */
  database: Database;
  /** The engine's brokerage client (the sweep-at-scale phase primes the snapshot with it). */
  eca: EcaClient;
  /** The bench's directory (the document store is its `documents`) and the dev server's address. */
  dir: string;
  temporalAddress: string;
  /** The payload codec's keys (they seal the webhook secrets too). */
  keys: CodecKeyring;
}

/** The engine's activities against the simulator, with a document store in `dir`. */
/** The engine's call budget while a phase sets one (polite.ts); calls are not paced otherwise. */
export const pacing: { pace?: (operation: EcaOperation) => Promise<void> } = {};

async function engineActivities(
  sim: SimulatorProcess,
  client: Client,
  keys: CodecKeyring,
  dir: string,
  sweeps: SweepReport[],
) {
  const eca: EcaClient = createEcaClient({
    baseUrl: sim.url,
    preferenceUrl: `${sim.url}/pref`,
    csid: sim.csid,
    firmPrivateKey: await readFile(join(sim.keysDir, 'firm-private.asc'), 'utf8'),
    brokeragePublicKey: await readFile(join(sim.keysDir, 'brokerage-public.asc'), 'utf8'),
    sso: { allowInsecureLoopback: true },
    signal: attemptSignal,
    // Paced only in the politeness phase (polite.ts).
    pace: (operation) => pacing.pace?.(operation) ?? Promise.resolve(),
    cryptoThreads: CRYPTO_THREADS,
  });
  const store = new FileDocumentStore(join(dir, 'documents'), { keyring: keys });
  // The engine's database, embedded, as the worker's default: the applications write their events there.
  const database = await openDatabase(`pglite:${join(dir, 'database')}`);
  const { activities } = createEngineActivities({
    eca,
    store,
    client,
    batchWindowMs: BATCH_WINDOW_MS,
    maxAccountsPerCall: CONFIG_DEFAULTS.polling.maxAccountsPerCall,
    events: new EventLog(database),
    // Webhook delivery (the events phase), its secrets sealed under the bench's codec keys.
    database,
    keyring: keys,
    onSweep: (report) => sweeps.push(report),
  });
  return { store, activities, database, eca };
}

/** The worker tuning the options ask for (the worker's defaults for those not given). */
export function workerTuning(): Partial<WorkerOptions> {
  return {
    ...(values['max-cached'] ? { maxCachedWorkflows: Number(values['max-cached']) } : {}),
    ...(values['wft-slots'] ? { maxConcurrentWorkflowTaskExecutions: Number(values['wft-slots']) } : {}),
    ...(values['activity-slots'] ? { maxConcurrentActivityTaskExecutions: Number(values['activity-slots']) } : {}),
    ...(values['wf-threads'] ? { workflowThreadPoolSize: Number(values['wf-threads']) } : {}),
  };
}

/** The engine's worker and the no-op worker, both with the tuning the options ask for. */
async function createWorkers(connection: NativeConnection, keys: CodecKeyring, activities: Record<string, unknown>) {
  const tuning = workerTuning();
  const taskQueue = `bench-${randomUUID().slice(0, 8)}`;
  const worker = await createEngineWorker({ connection, taskQueue, codec: keys, activities, tuning });
  const noopQueue = `${taskQueue}-noop`;
  const noopWorker = await Worker.create({
    connection,
    taskQueue: noopQueue,
    workflowsPath: fileURLToPath(new URL('./noop-workflow.ts', import.meta.url)),
    activities: { benchNoopActivity: () => Promise.resolve() },
    dataConverter: codecDataConverter(keys),
    ...tuning,
  });
  return { worker, taskQueue, noopWorker, noopQueue };
}

/** The settings in force (the worker's own, once compiled from the options), as the report records them. */
function workerSettings(worker: Worker) {
  const compiled = (worker as unknown as { options: Record<string, unknown> }).options;
  return {
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
    keys: KEYS,
    cryptoThreads: CRYPTO_THREADS,
  };
}

/** Starts the server and the simulator, then the workers; what it starts joins `cleanups`. */
export async function startBench(
  server: DevServer,
  sim: SimulatorProcess,
  dir: string,
  metricsUrl: string,
  cleanups: Cleanups,
): Promise<Bench> {
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
  const sweeps: SweepReport[] = [];
  const { store, activities, database, eca } = await engineActivities(sim, client, keys, dir, sweeps);
  cleanups.push(() => database.close());
  const tracker: Tracker = {
    startedAt: new Map(),
    firstActivityAt: new Map(),
    activities: 0,
    byName: new Map(),
    readStartedAt: new Map(),
    sweeps,
  };
  const { worker, taskQueue, noopWorker, noopQueue } = await createWorkers(
    nativeConnection,
    keys,
    track(activities as unknown as Record<string, unknown>, tracker),
  );
  const settings = workerSettings(worker);
  const running = Promise.all([worker.run(), noopWorker.run()]);
  cleanups.unshift(async () => {
    worker.shutdown();
    noopWorker.shutdown();
    await running;
  });
  console.log(`Worker settings: ${JSON.stringify(settings)}`);
  const ctx: EngineContext = {
    client,
    store,
    csid: sim.csid,
    taskQueue,
    sweepInterval: POLL,
    settings: { pollIntervals: { tracking: POLL } },
  };
  const pids = { server: server.child?.process.pid, simulator: sim.child?.process.pid };
  return {
    client,
    sim,
    metricsUrl,
    pids,
    tracker,
    run: randomUUID().slice(0, 6),
    ctx,
    noopQueue,
    settings,
    database,
    eca,
    keys,
    dir,
    temporalAddress: server.address,
  };
}

/**
 * The many-firms phase (`--firms N`): one worker serves N firms of the simulator, each firm's calls going
 * out on its own keys and call budget (`--calls-per-second`, runtime/call-budget.ts) taken from a
 * FirmRegistry in a database of the phase's own (runtime/firm-brokerages.ts, as the worker process does),
 * while the simulator holds every firm to the same count a second (its per-firm cap, simulator/rate-cap.ts).
 *
 * After a warm-up of one application per firm (not counted: each firm's client built, its status sweep
 * started), M happy applications (`--firm-applications`) of one firm alone, then M of every firm at
 * once, each start → Open: applications/s in all against N × one firm's, and from the simulator's
 * per-firm counts (`/_sim/rates`, `byFirm`) the busiest second and the refusals of each firm. Figures
 * only: nothing here asserts a timing; main.ts fails the run when a firm's busiest second went past the
 * cap.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import { attemptSignal } from '../../activities/attempt-signal.js';
import { createEngineActivities } from '../../activities/engine.js';
import { startApplication } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import { EcaDeferredError } from '../../eca/index.js';
import type { EcaClient } from '../../eca/index.js';
import { openDatabase } from '../../runtime/database/index.js';
import type { Database } from '../../runtime/database/index.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { EventLog } from '../../runtime/events.js';
import { FirmBrokerages } from '../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../runtime/firms.js';
import type { SecondCount } from '../../simulator/rate-cap.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import { cpuSeconds, cpuShare, percentile, pool, round } from './measure.js';
import { BATCH_WINDOW_MS, CONCURRENCY, CONFIG_DEFAULTS, CRYPTO_THREADS } from './options.js';
import { applicationXml, workerTuning } from './setup.js';
import type { Bench } from './setup.js';

/** One measured run: applications of some firms at once, start → Open. */
export interface FirmsRun {
  firms: number;
  applications: number;
  outcomes: Record<string, number>;
  seconds: number;
  applicationsPerSecond: number;
  startToOpenP50Ms: number;
  startToOpenP99Ms: number;
  /** Brokerage calls a second of each firm of the run, on average over the run (the simulator's counts). */
  callsPerSecondPerFirm: number;
  cpu: Record<string, string>;
}

/** One firm over the whole phase (warm-up included), by the simulator's per-firm counts. */
export interface FirmCalls {
  csid: string;
  calls: number;
  /** The same calls per operation (the status sweep's getAccountStatus and getPendingTasks among them). */
  byOperation: Record<string, number>;
  /** The most calls the simulator received from the firm in one second (refused ones included). */
  busiestSecond: number;
  refused: number;
  /** Calls the engine put off (EcaDeferredError): the firm's budget had no slot soon enough. */
  deferred: number;
}

export interface FirmsFigures {
  firms: number;
  applicationsPerFirm: number;
  callsPerSecondCap: number;
  alone: FirmsRun;
  together: FirmsRun;
  /** Applications/s of all firms at once over N × one firm's alone. */
  ratio: number;
  perFirm: FirmCalls[];
  busiestSecond: number;
  refused: number;
  /** Whether some firm's busiest second went past the cap (the run then fails). */
  capExceeded: boolean;
}

/** The dispatcher, counting per CSID the calls the firm's budget put off. */
function countingDeferred(eca: EcaClient, deferred: Map<string, number>): EcaClient {
  const counted = Object.entries(eca).map(([operation, call]): [string, unknown] => [
    operation,
    async (request?: { CSID?: string }) => {
      try {
        return await (call as (request: unknown) => Promise<unknown>)(request);
      } catch (error) {
        if (error instanceof EcaDeferredError && request?.CSID) {
          deferred.set(request.CSID, (deferred.get(request.CSID) ?? 0) + 1);
        }
        throw error;
      }
    },
  ]);
  return Object.fromEntries(counted) as unknown as EcaClient;
}

/** The firms registered at the simulator and in the registry, each with the budget of `cap` calls a second. */
async function registerFirms(bench: Bench, registry: FirmRegistry, count: number, cap: number): Promise<string[]> {
  const { sim } = bench;
  const brokeragePublicKey = await readFile(join(sim.keysDir, 'brokerage-public.asc'), 'utf8');
  const csids: string[] = [];
  for (let i = 0; i < count; i++) {
    const csid = `FIRMS-${bench.run.toUpperCase()}-${count}-${i}`;
    const registered = await sim.control<{ csid: string; keys: { firmPrivateKey: string } }>('POST', '/firms', {
      name: `bench-firm-${i}`,
      csid,
    });
    await registry.add({
      csid,
      name: `Bench firm ${i}`,
      settings: { baseUrl: sim.url, preferenceUrl: `${sim.url}/pref`, callsPerSecond: cap },
      keys: { firmPrivateKey: registered.keys.firmPrivateKey, brokeragePublicKey },
    });
    csids.push(csid);
  }
  return csids;
}

/**
 * A worker on a task queue of its own, its activities' brokerage client the firms' dispatcher: each call
 * on the keys and budget of its firm, from the registry. `stop` drains it.
 */
async function startFirmsWorker(
  bench: Bench,
  registry: FirmRegistry,
  { database, connection, store, taskQueue, deferred }: FirmsWorkerOptions,
) {
  const brokerages = new FirmBrokerages(registry, { signal: attemptSignal, cryptoThreads: CRYPTO_THREADS, database });
  const { activities } = createEngineActivities({
    eca: countingDeferred(brokerages.dispatcher(), deferred),
    store,
    client: bench.client,
    batchWindowMs: BATCH_WINDOW_MS,
    maxAccountsPerCall: CONFIG_DEFAULTS.polling.maxAccountsPerCall,
    events: new EventLog(database),
    database,
    keyring: bench.keys,
  });
  const worker = await createEngineWorker({
    connection,
    taskQueue,
    codec: bench.keys,
    activities,
    tuning: workerTuning(),
  });
  const running = worker.run();
  // A worker that stops ends the phase instead of leaving its applications waiting.
  const stopped = running.then(() => {
    throw new Error('the firms worker stopped');
  });
  const stop = async () => {
    worker.shutdown();
    await running.catch(() => undefined);
  };
  return { stopped, stop };
}

interface FirmsWorkerOptions {
  database: Database;
  connection: NativeConnection;
  store: FileDocumentStore;
  taskQueue: string;
  deferred: Map<string, number>;
}

/** Each firm's calls over the seconds counted, by the simulator's per-firm counts. */
function callsOf(during: SecondCount[], csids: string[], deferred: Map<string, number>): FirmCalls[] {
  return csids.map((csid) => {
    const counts = during.flatMap((second) => second.byFirm[csid] ?? []);
    return {
      csid,
      calls: counts.reduce((sum, second) => sum + second.total, 0),
      byOperation: counts.reduce<Record<string, number>>((sum, second) => {
        for (const [operation, n] of Object.entries(second.byOperation)) sum[operation] = (sum[operation] ?? 0) + n;
        return sum;
      }, {}),
      busiestSecond: Math.max(0, ...counts.map((second) => second.total)),
      refused: counts.reduce((sum, second) => sum + second.refused, 0),
      deferred: deferred.get(csid) ?? 0,
    };
  });
}

/** A run's figures, with its firms' calls a second from the simulator's counts of its seconds. */
function figures({ run, window, csids }: Measured, during: SecondCount[]): FirmsRun {
  const [from, to] = window.map((ms) => Math.floor(ms / 1000)) as [number, number];
  const calls = during
    .filter((second) => second.second >= from && second.second <= to)
    .reduce((sum, second) => sum + csids.reduce((n, csid) => n + (second.byFirm[csid]?.total ?? 0), 0), 0);
  return { ...run, callsPerSecondPerFirm: round(calls / run.seconds / csids.length) };
}

export async function firmsPhase(bench: Bench, count: number, perFirm: number, cap: number): Promise<FirmsFigures> {
  const { sim } = bench;
  const phaseStart = Date.now();
  const database = await openDatabase(`pglite:${join(bench.dir, 'firms-db')}`);
  const connection = await NativeConnection.connect({ address: bench.temporalAddress });
  const store = new FileDocumentStore(join(bench.dir, 'firms-documents'), { keyring: bench.keys });
  const taskQueue = `${bench.ctx.taskQueue}-firms-${count}`;
  const deferred = new Map<string, number>();
  let stopWorker = () => Promise.resolve();
  try {
    const registry = new FirmRegistry(database, { keyring: bench.keys });
    const csids = await registerFirms(bench, registry, count, cap);
    await sim.control('PUT', '/rate-cap', { perFirm: cap });
    const worker = await startFirmsWorker(bench, registry, { database, connection, store, taskQueue, deferred });
    stopWorker = worker.stop;
    const contexts: EngineContext[] = csids.map((csid) => ({ ...bench.ctx, csid, taskQueue, store }));
    const run = (firms: EngineContext[], applications: number, label: string) =>
      Promise.race([applicationsOf(bench, firms, applications, label), worker.stopped]);

    await run(contexts, 1, 'warmup');
    const alone = await run(contexts.slice(0, 1), perFirm, 'alone');
    const together = await run(contexts, perFirm, 'together');

    const { seconds } = await sim.control<{ seconds: SecondCount[] }>('GET', '/rates');
    const during = seconds.filter((second) => second.second >= Math.floor(phaseStart / 1000));
    const perFirmCalls = callsOf(during, csids, deferred);
    const busiestSecond = Math.max(0, ...perFirmCalls.map((firm) => firm.busiestSecond));
    return {
      firms: count,
      applicationsPerFirm: perFirm,
      callsPerSecondCap: cap,
      alone: figures(alone, during),
      together: figures(together, during),
      ratio: round(together.run.applicationsPerSecond / (count * alone.run.applicationsPerSecond), 2),
      perFirm: perFirmCalls,
      busiestSecond,
      refused: perFirmCalls.reduce((sum, firm) => sum + firm.refused, 0),
      capExceeded: busiestSecond > cap,
    };
  } finally {
    await sim.control('PUT', '/rate-cap', {}).catch(() => undefined);
    await stopWorker();
    await connection.close();
    await database.close();
  }
}

/** A run's figures, when it ran (ms) and the CSIDs of its firms. */
interface Measured {
  run: Omit<FirmsRun, 'callsPerSecondPerFirm'>;
  window: [number, number];
  csids: string[];
}

/** `applications` happy applications of each firm at once (`CONCURRENCY` in flight), each followed to its result. */
async function applicationsOf(
  bench: Bench,
  firms: EngineContext[],
  applications: number,
  label: string,
): Promise<Measured> {
  const startToOpen: number[] = [];
  const outcomes = new Map<string, number>();
  const count = firms.length * applications;
  const cpuBefore = await cpuSeconds(bench.pids);
  const start = Date.now();
  await pool(count, CONCURRENCY, async (i) => {
    // Firm after firm, so that every firm has applications in flight from the start. External ids are
    // the brokerage's across firms: each application has its own.
    const firm = i % firms.length;
    const ctx = firms[firm]!;
    const externalId = `happy-firms-${bench.run}-${label}-${firms.length}-${firm}-${Math.floor(i / firms.length)}`;
    const t = Date.now();
    const { handle } = await startApplication(ctx, { applicationXml: applicationXml(externalId) });
    const result = await handle.result();
    startToOpen.push(Date.now() - t);
    outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
  });
  const end = Date.now();
  const seconds = (end - start) / 1000;
  return {
    run: {
      firms: firms.length,
      applications: count,
      outcomes: Object.fromEntries(outcomes),
      seconds: round(seconds),
      applicationsPerSecond: round(count / seconds, 2),
      startToOpenP50Ms: percentile(startToOpen, 50),
      startToOpenP99Ms: percentile(startToOpen, 99),
      cpu: cpuShare(cpuBefore, await cpuSeconds(bench.pids), seconds),
    },
    window: [start, end],
    csids: firms.map((ctx) => ctx.csid),
  };
}

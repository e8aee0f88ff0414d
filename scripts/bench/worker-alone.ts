/**
 * The worker measured alone: the engine's worker as a process of its own (workers/main.ts, configured
 * through its environment as in production, defaults included: cache of 500, crypto threads), on a task
 * queue of its own, with W stalled applications started through the client API and waiting in
 * awaitingClient on the firm's sweep. Its RSS and CPU are read from /proc, its workflow tasks from its
 * own Prometheus endpoint: the bench's process (client and bookkeeping) is not in these figures.
 */
import { chmod, readFile } from 'node:fs/promises';
import { Postgres, postgresInstalled } from '../cluster/postgres.js';
import { join } from 'node:path';
import { ensureStatusSweep } from '../../client/sweep.js';
import { formatCodecKeys } from '../../codec/keyring.js';
import { freePort, ROOT, startWorkerProcess } from '../processes.js';
import { WORKFLOW_BUNDLE_DIR_ENV } from '../../workers/engine-worker.js';
import { runCommand } from '../run-command.js';
import { metricGrowth, mib, processCpuSeconds, processTree, round, scrape, sleep } from './measure.js';
import { ALONE_DB, SLOTS, SWEEP_SLOT_MS } from './options.js';
import type { Bench } from './setup.js';
import { endPhase, startWaiting, stopSweep, sweepContext } from './waiting.js';

/** RSS (bytes) and CPU seconds of a process tree, from /proc. */
async function usage(pid: number): Promise<{ rss: number; cpuSeconds: number }> {
  let rss = 0;
  let cpuSeconds = 0;
  for (const each of await processTree(pid)) {
    const status = await readFile(`/proc/${each}/status`, 'utf8').catch(() => '');
    rss += Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    cpuSeconds += (await processCpuSeconds(each)) || 0;
  }
  return { rss, cpuSeconds };
}

/** The workflow bundles built ahead, as a deployment ships them (a worker bundling at start holds webpack's memory). */
async function prebuiltBundles(bench: Bench): Promise<string> {
  const dir = join(bench.dir, 'workflow-bundles');
  await runCommand(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', 'build-workflow-bundle.ts'), dir]);
  return dir;
}

/**
 * The worker's database: a PostgreSQL server from the machine's packages when there is one (as a
 * deployment has), or embedded PostgreSQL (PGlite, which holds about 700 MiB of the worker's RSS itself).
 */
async function aloneDatabase(bench: Bench, count: number, cleanups: Array<() => Promise<unknown>>): Promise<string> {
  if (ALONE_DB === 'embedded' || !postgresInstalled()) return `pglite:${join(bench.dir, `alone-${count}-database`)}`;
  // PostgreSQL runs as its own user when the bench runs as root: it must be able to pass through.
  await chmod(bench.dir, 0o711);
  const server = new Postgres({ dataDir: join(bench.dir, `alone-${count}-postgres`) });
  await server.start();
  cleanups.push(() => server.stop());
  return server.url('postgres');
}

export async function workerAlonePhase(bench: Bench, count: number) {
  const cleanups: Array<() => Promise<unknown>> = [];
  try {
    return await measureAlone(bench, count, await aloneDatabase(bench, count, cleanups));
  } finally {
    for (const cleanup of cleanups) await cleanup();
  }
}

async function measureAlone(bench: Bench, count: number, databaseUrl: string) {
  const taskQueue = `bench-alone-${bench.run}-w${count}`;
  const metricsPort = await freePort();
  const bundles = await prebuiltBundles(bench);
  const worker = await startWorkerProcess(`worker-alone-${count}`, {
    temporalAddress: bench.temporalAddress,
    taskQueue,
    simulator: bench.sim,
    // The client puts the application XML into the bench's store; the worker reads it there.
    documentStore: join(bench.dir, 'documents'),
    codecKeys: formatCodecKeys(bench.keys),
    // Its own database: the bench's process holds the bench's embedded one.
    databaseUrl,
    env: {
      ECA_METRICS_ADDRESS: `127.0.0.1:${metricsPort}`,
      ECA_METRICS_GAUGE_INTERVAL_MS: '3600000',
      [WORKFLOW_BUNDLE_DIR_ENV]: bundles,
    },
  });
  const pid = worker.process.pid!;
  const metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  try {
    await sleep(5000);
    const idle = await usage(pid);
    const tag = `stalled-alone-w${count}-${bench.run}-`;
    const ctx = sweepContext(bench, SWEEP_SLOT_MS, { taskQueue });
    await stopSweep(bench);
    await ensureStatusSweep(ctx, { force: true });
    const { ids, settledSeconds } = await startWaiting(bench, ctx, tag, count);
    const peak = await usage(pid);
    // Quiet slots, after a whole one has passed.
    await sleep(SWEEP_SLOT_MS + SWEEP_SLOT_MS / 2);
    const before = { usage: await usage(pid), metrics: await scrape(metricsUrl) };
    await sleep(SLOTS * SWEEP_SLOT_MS);
    const after = { usage: await usage(pid), metrics: await scrape(metricsUrl) };
    const seconds = (SLOTS * SWEEP_SLOT_MS) / 1000;
    await endPhase(bench, ids);
    return {
      waitingApplications: count,
      slot: `${SWEEP_SLOT_MS / 1000} seconds`,
      allWaitingAfterSeconds: round(settledSeconds),
      database: databaseUrl.startsWith('pglite:') ? 'embedded' : 'postgres',
      workerRssIdleMiB: mib(idle.rss),
      workerRssAfterStartsMiB: mib(peak.rss),
      workerRssQuietMiB: mib(after.usage.rss),
      workerCpuSecondsPerApplication: round((peak.cpuSeconds - idle.cpuSeconds) / count, 3),
      workerCpuQuiet: `${round(((after.usage.cpuSeconds - before.usage.cpuSeconds) / seconds) * 100, 0)}%`,
      workflowTasksPerQuietSlot: round(
        metricGrowth(before.metrics, after.metrics, 'workflow_task_execution_latency') / SLOTS,
      ),
    };
  } finally {
    await worker.stop();
  }
}

export type WorkerAlone = Awaited<ReturnType<typeof workerAlonePhase>>;

/** The bench's run (see scripts/bench.ts): its processes, then each phase in turn, then the report. */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Runtime } from '@temporalio/worker';
import { createLogger, temporalLogger } from '../../runtime/logger.js';
import { DevServer, freePort, SimulatorProcess } from '../processes.js';
import { apiPhase } from './api.js';
import type { ApiComparison } from './api.js';
import { round } from './measure.js';
import {
  API_READ_CONCURRENCY,
  API_READS,
  API_SIZES,
  CALLS_PER_SECOND,
  CEILING,
  CONCURRENCY,
  EVENT_SIZES,
  FIRM_APPLICATIONS,
  FIRM_COUNTS,
  KEYS,
  POLITE_SIZES,
  SIZES,
  SWEEP_SCALE_SIZES,
  WORKER_ALONE_SIZES,
  TIME_SCALE,
  values,
  WAITING,
  WARM_UP,
} from './options.js';
import { report } from './report.js';
import { startBench } from './setup.js';
import type { Bench, Cleanups } from './setup.js';
import { applicationsPhase, noopPhase } from './throughput.js';
import type { Throughput } from './throughput.js';
import { waitingPhase } from './waiting.js';
import { eventsPhase } from './events.js';
import type { EventsFigures } from './events.js';
import { politePhase } from './polite.js';
import { firmsPhase } from './firms.js';
import type { FirmsFigures } from './firms.js';
import type { PoliteFigures } from './polite.js';
import type { Waiting } from './waiting.js';
import { sweepScalePhase } from './sweep-scale.js';
import { workerAlonePhase } from './worker-alone.js';
import type { WorkerAlone } from './worker-alone.js';
import type { SweepScale } from './sweep-scale.js';

/**
 * The warm-up (not counted), the ceiling, then each throughput size, each onboarding API size and each
 * waiting size.
 */
async function runPhases(bench: Bench) {
  console.log(`Warm-up: ${WARM_UP} applications and 100 no-op workflows (not counted)...`);
  await noopPhase(bench, 100);
  await applicationsPhase(bench, WARM_UP, 'warmup');

  console.log(`Ceiling: ${CEILING} no-op workflows...`);
  const ceiling = await noopPhase(bench, CEILING);
  console.log(`  ${JSON.stringify(ceiling)}`);
  const throughput: Throughput[] = [];
  for (const n of SIZES) {
    console.log(`Throughput: ${n} applications start → Open, ${CONCURRENCY} in flight...`);
    throughput.push(await applicationsPhase(bench, n, `n${n}`));
    console.log(`  ${JSON.stringify(throughput.at(-1))}`);
  }
  const api: ApiComparison[] = [];
  for (const n of API_SIZES) {
    console.log(
      `Onboarding API: ${n} applications started through the client, then through the API, ${CONCURRENCY} in flight; ${API_READS} reads each, ${API_READ_CONCURRENCY} in flight...`,
    );
    api.push(await apiPhase(bench, n));
  }
  const events: EventsFigures[] = [];
  for (const n of EVENT_SIZES) {
    console.log(`Events: ${n} applications start → Open, their events delivered to a webhook receiver...`);
    events.push(await eventsPhase(bench, n));
    console.log(`  ${JSON.stringify(events.at(-1))}`);
  }
  const polite: PoliteFigures[] = [];
  for (const n of POLITE_SIZES) {
    console.log(`Politeness: ${n} applications started at once, ${CALLS_PER_SECOND} brokerage calls/s at most...`);
    polite.push(await politePhase(bench, n, CALLS_PER_SECOND));
    console.log(`  ${JSON.stringify(polite.at(-1))}`);
  }
  const firms: FirmsFigures[] = [];
  for (const n of FIRM_COUNTS) {
    console.log(
      `Many firms: ${n} firms on one worker, ${CALLS_PER_SECOND} calls/s each (the simulator caps each firm); ` +
        `${FIRM_APPLICATIONS} applications of one firm alone, then of every firm at once...`,
    );
    firms.push(await firmsPhase(bench, n, FIRM_APPLICATIONS, CALLS_PER_SECOND));
    console.log(`  ${JSON.stringify(firms.at(-1))}`);
  }
  const waiting: Waiting[] = [];
  for (const w of WAITING) {
    console.log(`Waiting: ${w} applications in awaitingClient...`);
    waiting.push(await waitingPhase(bench, w));
    console.log(`  ${JSON.stringify(waiting.at(-1))}`);
  }
  const workerAlone: WorkerAlone[] = [];
  for (const w of WORKER_ALONE_SIZES) {
    console.log(`Worker alone: ${w} applications waiting on a worker process of its own...`);
    workerAlone.push(await workerAlonePhase(bench, w));
    console.log(`  ${JSON.stringify(workerAlone.at(-1))}`);
  }
  // Last: the seeded accounts stay at the simulator.
  const sweepScale: SweepScale[] = [];
  const seeded = { accounts: 0 };
  for (const w of SWEEP_SCALE_SIZES) {
    console.log(`Sweep at scale: ${w} accounts waited on (seeded), quiet slots of the firm's sweep...`);
    sweepScale.push(await sweepScalePhase(bench, w, seeded));
    console.log(`  ${JSON.stringify(sweepScale.at(-1))}`);
  }
  return { ceiling, throughput, api, events, polite, firms, waiting, workerAlone, sweepScale };
}

export async function main(): Promise<void> {
  const began = Date.now();
  const dir = await mkdtemp(join(tmpdir(), 'eca-bench-'));
  const metricsPort = await freePort();
  Runtime.install({
    logger: temporalLogger(createLogger({ name: 'eca-bench', level: 'ERROR' })),
    telemetryOptions: { metrics: { prometheus: { bindAddress: `127.0.0.1:${metricsPort}` } } },
  });
  const server = new DevServer({
    ...(values.db === 'file' ? { dbFile: join(dir, 'temporal.db') } : {}),
    sqlitePragmas: values['sqlite-pragma'],
  });
  const sim = new SimulatorProcess({ timeScale: TIME_SCALE, keys: KEYS });
  // The processes are stopped whatever happens, a failed start of the other one included (a stop of
  // a process never started does nothing); processes.ts also kills them if this process exits first.
  const cleanups: Cleanups = [() => server.stop(), () => sim.stop(), () => rm(dir, { recursive: true, force: true })];
  try {
    const bench = await startBench(server, sim, dir, `http://127.0.0.1:${metricsPort}/metrics`, cleanups);
    const phases = await runPhases(bench);
    await report({
      label: values.label,
      at: new Date().toISOString(),
      machine: { cpus: cpus().length, node: process.version },
      settings: bench.settings,
      ...phases,
      totalSeconds: round((Date.now() - began) / 1000),
    });
    // The one figure the bench holds the engine to: no firm past the simulator's cap in any second.
    const exceeded = phases.firms.filter((figures) => figures.capExceeded);
    if (exceeded.length > 0) {
      throw new Error(
        `a firm's calls went past the cap of ${CALLS_PER_SECOND} a second: busiest second ` +
          exceeded.map((figures) => `${figures.busiestSecond} (${figures.firms} firms)`).join(', '),
      );
    }
  } catch (error) {
    // Said before the cleanup: closing connections can make pending retries throw on their own.
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    throw error;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

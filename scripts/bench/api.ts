/**
 * The onboarding API phase, on the bench's worker and simulator. Starts: N `stalled` applications on
 * each side in turn, CONCURRENCY in flight (after a warm-up of WARM_UP starts and reads, not counted),
 * each side with its own external ids (the idempotency key: a start that finds one fails):
 *
 * - `client`: `startApplication` (the TypeScript client in this process);
 * - `api`: `POST /v1/applications` with JSON `{applicationXml}` to the service (api/) built in this
 *   process on 127.0.0.1, on the bench's Temporal connection, document store, task queue and database,
 *   with one onboarding key.
 *
 * Reads: once every application of the `api` side waits (the others are terminated), M reads through
 * the client (`getState`) and M through the API (`GET /v1/applications/{externalId}`) of those same
 * applications (each read once before, not counted), in alternating blocks, so that both meet the same
 * applications and the same moments of a shared machine. Stalled applications wait in awaitingClient for ever: the reads meet
 * applications at rest (woken only by the firm's status sweep, every `--sweep-slot`), as an onboarding
 * system's reads mostly do.
 */
import { Agent, request as httpRequest } from 'node:http';
import { performance } from 'node:perf_hooks';
import { getState, startApplication } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import type { Database } from '../../runtime/database/index.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { cpuSeconds, cpuShare, percentile, pool, round, sleep } from './measure.js';
import { API_READ_CONCURRENCY, API_READS, CONCURRENCY, SWEEP_SLOT_MS, WARM_UP } from './options.js';
import { startLocalApi } from '../local-api.js';
import { applicationXml } from './setup.js';
import type { Bench } from './setup.js';
import { countApplications, stopSweep, sweepContext } from './waiting.js';

/** High enough never to answer 429 during the phase (the default is 600 a minute and key). */
const RATE_LIMIT_PER_MINUTE = 1_000_000_000;

/** The service as the phase drives it, with the time each API key check took (ms). */
interface Service {
  base: string;
  key: string;
  keyChecks: number[];
  agent: Agent;
  close(): Promise<void>;
}

/** The API in this process over `ctx` (scripts/local-api.ts), with one onboarding key and its checks timed. */
async function startService(ctx: EngineContext, database: Database): Promise<Service> {
  const keyChecks: number[] = [];
  const { csid, ...engine } = ctx;
  const api = await startLocalApi(engine, {
    csid,
    database,
    roles: ['onboarding'],
    rateLimitPerMinute: RATE_LIMIT_PER_MINUTE,
    verifyKey: (verify) => async (presented) => {
      const t = performance.now();
      try {
        return await verify(presented);
      } finally {
        keyChecks.push(performance.now() - t);
      }
    },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const close = async () => {
    agent.destroy();
    await api.close();
  };
  return { base: api.url, key: api.keys.onboarding!, keyChecks, agent, close };
}

/**
 * One request with the service's key; its JSON. Through node:http with keep-alive connections: Node's
 * `fetch` (undici) costs the caller about four times the CPU a request, and the caller shares this
 * process with the worker, so the API's figures would carry the caller's HTTP client.
 */
function call(service: Service, method: string, path: string, expected: number, body?: unknown): Promise<unknown> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${service.base}${path}`,
      {
        method,
        agent: service.agent,
        headers: {
          authorization: `Bearer ${service.key}`,
          ...(payload === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', reject);
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (response.statusCode !== expected) {
            reject(new Error(`${method} ${path}: ${response.statusCode} (expected ${expected}) ${text.slice(0, 300)}`));
          } else resolve(JSON.parse(text) as unknown);
        });
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

export const SIDES = ['client', 'api'] as const;
export type Side = (typeof SIDES)[number];

/** How a side starts and reads an application, by external id. */
interface SideOps {
  start(externalId: string): Promise<unknown>;
  read(externalId: string): Promise<unknown>;
}

function sideOps(side: Side, ctx: EngineContext, service: Service): SideOps {
  const start = async (externalId: string) => {
    const started = await startApplication(ctx, { applicationXml: applicationXml(externalId) });
    if (started.existed) throw new Error(`${externalId}: already started (external ids must be new)`);
    return started;
  };
  const read = (externalId: string) => getState(ctx, externalId);
  switch (side) {
    case 'client':
      return { start, read };
    case 'api':
      return {
        start: (externalId) =>
          call(service, 'POST', '/v1/applications', 201, { applicationXml: applicationXml(externalId) }),
        read: (externalId) => call(service, 'GET', `/v1/applications/${encodeURIComponent(externalId)}`, 200),
      };
  }
}

/** Runs `count` jobs, `concurrency` in flight; each job's time (ms) and the whole run's (s). */
async function timed(count: number, concurrency: number, job: (index: number) => Promise<unknown>) {
  const latencies: number[] = [];
  const began = performance.now();
  await pool(count, concurrency, async (i) => {
    const t = performance.now();
    await job(i);
    latencies.push(performance.now() - t);
  });
  return { latencies, seconds: (performance.now() - began) / 1000 };
}

/** Waits until the `total` applications whose workflow ids start with `prefix` wait in awaitingClient. */
async function settle(bench: Bench, prefix: string, total: number): Promise<number> {
  const t0 = Date.now();
  for (let i = 0; ; i++) {
    const waiting = await countApplications(bench, prefix, `EcaLifecycleState = 'awaitingClient'`);
    if (waiting >= total) return (Date.now() - t0) / 1000;
    if (i % 15 === 14) console.log(`  ${waiting}/${total} waiting after ${round((Date.now() - t0) / 1000)} s`);
    if (Date.now() - t0 > 15 * 60_000) throw new Error(`only ${waiting} of ${total} applications ever waited`);
    await sleep(1000);
  }
}

const ms = (latencies: number[], p: number) => round(percentile(latencies, p));
const maxMs = (latencies: number[]) => round(Math.max(...latencies));

/** The external ids a side starts: its warm-up's, then the measured ones. */
function sideIds(bench: Bench, side: Side, count: number, roundIndex: number) {
  const tag = `stalled-api-${side}-n${count}-r${roundIndex}-${bench.run}-`;
  const warm = Array.from({ length: WARM_UP }, (_, i) => `${tag}warm-${i}`);
  const measured = Array.from({ length: count }, (_, i) => `${tag}${i}`);
  return { tag, warm, measured, all: [...warm, ...measured] };
}

async function terminate(bench: Bench, externalIds: string[]): Promise<void> {
  await pool(externalIds.length, 50, (i) =>
    bench.client.workflow
      .getHandle(applicationWorkflowId(bench.sim.csid, externalIds[i]!))
      .terminate('benchmark over')
      .catch(() => undefined),
  );
}

/**
 * One side's starts: a warm-up (WARM_UP starts and reads, not counted), then `count` starts at
 * CONCURRENCY in flight; done when every application of the side waits in awaitingClient.
 */
async function measureStarts(bench: Bench, side: Side, ops: SideOps, count: number, roundIndex: number) {
  const ids = sideIds(bench, side, count, roundIndex);
  await pool(WARM_UP, CONCURRENCY, (i) => ops.start(ids.warm[i]!));
  await pool(WARM_UP, API_READ_CONCURRENCY, (i) => ops.read(ids.warm[i]!));
  const cpuBefore = await cpuSeconds(bench.pids);
  const starts = await timed(count, CONCURRENCY, (i) => ops.start(ids.measured[i]!));
  const cpu = cpuShare(cpuBefore, await cpuSeconds(bench.pids), starts.seconds);
  const allWaitingAfterSeconds = await settle(bench, applicationWorkflowId(bench.sim.csid, ids.tag), ids.all.length);
  const result = {
    side,
    round: roundIndex,
    applications: count,
    latencies: starts.latencies,
    seconds: starts.seconds,
    startSeconds: round(starts.seconds),
    startsPerSecond: round(count / starts.seconds),
    startP50Ms: ms(starts.latencies, 50),
    startP99Ms: ms(starts.latencies, 99),
    startMaxMs: maxMs(starts.latencies),
    allWaitingAfterSeconds: round(allWaitingAfterSeconds),
    cpu,
  };
  return { ids, result };
}

export type ApiStarts = ReturnType<typeof sideTotal>;

/** Reads in a block: alternating blocks keep both readers on the same moments of a shared machine. */
const READ_BLOCK = 100;

/**
 * API_READS reads by each reader, spread over `externalIds` (applications at rest), in alternating
 * blocks of READ_BLOCK at API_READ_CONCURRENCY in flight: both readers read the same applications.
 */
async function interleavedReads(readers: Record<'client' | 'api', SideOps>, externalIds: string[]) {
  const names = ['client', 'api'] as const;
  const samples = { client: { latencies: [] as number[], seconds: 0 }, api: { latencies: [] as number[], seconds: 0 } };
  for (let done = 0, block = 0; done < API_READS; done += READ_BLOCK, block++) {
    const size = Math.min(READ_BLOCK, API_READS - done);
    for (const name of block % 2 === 0 ? names : [...names].reverse()) {
      const run = await timed(size, API_READ_CONCURRENCY, (i) =>
        readers[name].read(externalIds[(done + i) % externalIds.length]!),
      );
      samples[name].latencies.push(...run.latencies);
      samples[name].seconds += run.seconds;
    }
  }
  const summary = ({ latencies, seconds }: { latencies: number[]; seconds: number }) => ({
    reads: latencies.length,
    readSeconds: round(seconds),
    readsPerSecond: round(latencies.length / seconds),
    readP50Ms: ms(latencies, 50),
    readP99Ms: ms(latencies, 99),
    readMaxMs: maxMs(latencies),
  });
  return { client: summary(samples.client), api: summary(samples.api) };
}

/** How much lower the API's start rate is than the client's, in % of the client's (negative: higher). */
const costPercent = (client: number, api: number) => round(((client - api) / client) * 100);

/** Rounds of starts: each side starts count / START_ROUNDS applications a round, the order alternating. */
const START_ROUNDS = 4;

/** One side's rounds as one figure: all its starts over all its rounds' time. */
function sideTotal(side: Side, rounds: Array<Awaited<ReturnType<typeof measureStarts>>['result']>) {
  const mine = rounds.filter((r) => r.side === side);
  const latencies = mine.flatMap((r) => r.latencies);
  const seconds = mine.reduce((sum, r) => sum + r.seconds, 0);
  const cpu = (part: 'bench' | 'server') =>
    `${Math.round(mine.reduce((sum, r) => sum + parseFloat(r.cpu[part] ?? '0'), 0) / mine.length)}%`;
  return {
    side,
    applications: latencies.length,
    rounds: mine.map((r) => r.startsPerSecond),
    startSeconds: round(seconds),
    startsPerSecond: round(latencies.length / seconds),
    startP50Ms: ms(latencies, 50),
    startP99Ms: ms(latencies, 99),
    startMaxMs: maxMs(latencies),
    cpu: { bench: cpu('bench'), server: cpu('server') },
  };
}

/**
 * Each side's starts in START_ROUNDS alternating rounds (client then API, API then client...), so that
 * both sides meet the same moments of a shared machine; the API's applications are kept for the reads,
 * the client's terminated.
 */
async function allStarts(bench: Bench, ctx: EngineContext, service: Service, count: number) {
  const rounds: Array<Awaited<ReturnType<typeof measureStarts>>['result']> = [];
  const kept = { measured: [] as string[], all: [] as string[] };
  const perRound = Math.max(1, Math.round(count / START_ROUNDS));
  for (let r = 0; r < START_ROUNDS; r++) {
    for (const side of r % 2 === 0 ? SIDES : [...SIDES].reverse()) {
      console.log(`  round ${r + 1}/${START_ROUNDS}, ${side}: ${perRound} starts, ${CONCURRENCY} in flight...`);
      const { ids, result } = await measureStarts(bench, side, sideOps(side, ctx, service), perRound, r);
      rounds.push(result);
      const { latencies: _latencies, seconds: _seconds, ...shown } = result;
      console.log(`  ${JSON.stringify(shown)}`);
      if (side === 'api') {
        kept.measured.push(...ids.measured);
        kept.all.push(...ids.all);
      } else await terminate(bench, ids.all);
    }
  }
  return { starts: SIDES.map((side) => sideTotal(side, rounds)), kept };
}

/** The phase (see the module comment): each side's starts, then the reads, then the API's cost. */
export async function apiPhase(bench: Bench, count: number) {
  const ctx = sweepContext(bench, SWEEP_SLOT_MS);
  await stopSweep(bench);
  await ensureStatusSweep(ctx, { force: true });
  const service = await startService(ctx, bench.database);
  try {
    const { starts, kept } = await allStarts(bench, ctx, service, count);
    console.log(`  reads: ${API_READS} through the client and ${API_READS} through the API, alternating...`);
    const cpuBefore = await cpuSeconds(bench.pids);
    const readsBegan = performance.now();
    const readers = { client: sideOps('client', ctx, service), api: sideOps('api', ctx, service) };
    // Every application read once first (not counted): no reader meets an application's first read.
    await pool(kept.measured.length, API_READ_CONCURRENCY, (i) => readers.client.read(kept.measured[i]!));
    const reads = await interleavedReads(readers, kept.measured);
    const readCpu = cpuShare(cpuBefore, await cpuSeconds(bench.pids), (performance.now() - readsBegan) / 1000);
    console.log(`  ${JSON.stringify({ ...reads, readCpu })}`);
    await terminate(bench, kept.all);
    const [client, api] = starts as [ApiStarts, ApiStarts];
    return {
      applications: count,
      concurrency: CONCURRENCY,
      readConcurrency: API_READ_CONCURRENCY,
      sweepSlot: `${SWEEP_SLOT_MS / 1000} seconds`,
      starts,
      reads,
      readCpu,
      startCostPercent: costPercent(client.startsPerSecond, api.startsPerSecond),
      keyChecks: service.keyChecks.length,
      keyCheckP50Ms: ms(service.keyChecks, 50),
      keyCheckP99Ms: ms(service.keyChecks, 99),
    };
  } finally {
    await service.close();
    await stopSweep(bench);
  }
}

export type ApiComparison = Awaited<ReturnType<typeof apiPhase>>;

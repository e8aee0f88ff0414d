/**
 * What the contract tests share: the real onboarding API (dev server, worker, simulator, embedded
 * database, as test/e2e/api/api.test.ts runs it), clients generated from a snapshot of docs/openapi.json with
 * the cached OpenAPI Generator (scripts/contract-tools.ts), and a proxy in front of the API that answers
 * as a newer server would (an unknown field, a new lifecycle state, a new event type).
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import { EventLog } from '../../../runtime/events.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { generateClient as generate } from '../../../scripts/contract-tools.js';
import { startEngine } from '../../support/engine.js';
import type { EngineHarness } from '../../support/engine.js';
import { devServerEnv } from '../../support/servers.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

export const REPO = join(import.meta.dirname, '..', '..', '..');
/** The document under test: docs/openapi.json, or another (a candidate fix) named by ECA_CONTRACT_DOCUMENT. */
export const DOCUMENT = process.env.ECA_CONTRACT_DOCUMENT || join(REPO, 'docs', 'openapi.json');

/** How long a step took, printed (the contract tests report their timings). */
export async function timed<T>(label: string, step: () => Promise<T>): Promise<T> {
  const started = Date.now();
  try {
    return await step();
  } finally {
    process.stderr.write(`      [contract] ${label}: ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  }
}

/**
 * Runs a command to its end (standard input closed: a program that exits before reading it, as javac does,
 * would otherwise fail the write); resolves with its output, rejects with the end of it.
 */
export function sh(command: string, args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  return new Promise<string>((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString()).slice(-64_000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.slice(-8000)}`));
    });
  });
}

/**
 * Compiles the Java client generated into `client` with `programs` beside it (javac alone, against the jars
 * of `lib`) into `classes`; a failure says what does not compile, under `what`.
 */
export async function compileJava(options: {
  client: string;
  programs: string[];
  lib: string;
  classes: string;
  what: string;
}): Promise<void> {
  const listing = await sh('find', [join(options.client, 'src', 'main', 'java'), '-name', '*.java']);
  const sources = join(options.classes, '..', `${basename(options.classes)}-sources.txt`);
  await writeFile(sources, [...listing.trim().split('\n'), ...options.programs].join('\n'));
  await timed('javac', () =>
    sh('javac', [
      '-J-XX:+UseSerialGC',
      '-J-XX:TieredStopAtLevel=1',
      '-nowarn',
      '-proc:none',
      '-encoding',
      'UTF-8',
      '-d',
      options.classes,
      '-cp',
      `${options.lib}/*`,
      `@${sources}`,
    ]).catch((error: Error) => {
      throw new Error(`${options.what} does not compile:\n${error.message.split('\n').slice(1).join('\n')}`);
    }),
  );
}

/** A temporary directory holding a copy of the document (docs/openapi.json may be regenerated meanwhile). */
export async function workDir(prefix: string): Promise<{ dir: string; spec: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `eca-contract-${prefix}-`));
  const spec = join(dir, 'openapi.json');
  await copyFile(DOCUMENT, spec);
  return { dir, spec, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Generates a client of `spec` with the cached OpenAPI Generator into `out` (scripts/contract-tools.ts). */
export function generateClient(generator: string, spec: string, out: string): Promise<void> {
  return timed(`generate ${generator}`, () => generate(generator, spec, out));
}

export interface RealApi {
  base: string;
  csid: string;
  keys: { onboarding: string; staff: string };
  /** What a program of the engine's client API needs to reach the same engine (`connectEngine`). */
  engineEnv: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

/** The real API on a dev server with a worker, the simulator (time scale 20 000) and an embedded database. */
export interface RealApiOptions {
  /** Requests a minute per key, and per address without a valid key (the limits have their own tests). */
  rateLimitPerMinute?: number;
  /** Serve the admin routes too (a firm registry on the database), as a deployment does. */
  admin?: boolean;
}

export async function startRealApi(options: RealApiOptions = {}): Promise<RealApi> {
  const env: TestWorkflowEnvironment = await devServerEnv();
  const dir = await mkdtemp(join(tmpdir(), 'eca-contract-api-'));
  const db: Database = await openSeededDatabase(join(dir, 'database'));
  const engine: EngineHarness = await startEngine(env, {
    simulator: { timeScale: 20_000 },
    events: new EventLog(db),
    database: db,
  });
  const running = engine.worker.run();
  const keyring = generateCodecKeyring('contract');
  const csid = engine.sim.csid;
  const key = async (role: 'onboarding' | 'staff') =>
    (await createApiKey(db, { csid, role, name: `contract ${role}` })).key;
  const keys = { onboarding: await key('onboarding'), staff: await key('staff') };
  const app: FastifyInstance = await buildApi({
    logger: watchedLogger('eca-api'),
    engine: {
      client: env.client,
      store: engine.store,
      taskQueue: engine.taskQueue,
      settings: {
        pollIntervals: { tracking: '1 second' },
        requestPollInterval: '1 second',
      },
    },
    verifyKey: databaseKeyVerifier(db),
    brokerage: { csid, eca: engine.eca },
    database: db,
    eventStream: { pollMs: 100 },
    ...(options.rateLimitPerMinute && {
      rateLimitPerMinute: options.rateLimitPerMinute,
      failedKeysPerMinute: options.rateLimitPerMinute,
    }),
    ...(options.admin && { registry: new FirmRegistry(db, { keyring, cacheMs: 0 }), keyring }),
  });
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    base,
    csid,
    keys,
    engineEnv: {
      TEMPORAL_ADDRESS: env.address,
      ECA_CSID: csid,
      ECA_TASK_QUEUE: engine.taskQueue,
      ECA_DOCUMENT_STORE: engine.store.root,
      ECA_CODEC_DISABLED: 'true',
    },
    async close() {
      await app.close();
      await db.close();
      engine.worker.shutdown();
      await running;
      await engine.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A unique external id of the simulator's scenario `scenario` (its prefix). */
export function externalIdOf(scenario: string): string {
  return `${scenario}-${randomUUID().slice(0, 8)}`;
}

/** A receiver of webhook deliveries (answers 204 to every request). */
export async function webhookReceiver(): Promise<{ url: string; received: number; close(): Promise<void> }> {
  const state = { received: 0 };
  const server = createServer((request, response) => {
    request.resume();
    state.received++;
    response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    get received() {
      return state.received;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** What the proxy adds to the real answers: a newer server's lifecycle state, event type and fields. */
export const FUTURE = {
  state: 'underFutureReview',
  eventType: 'application.future_happened',
  field: 'futureField',
} as const;

type Json = Record<string, unknown>;

/** A newer server's application: a new lifecycle state, unknown fields at the top and in a task. */
export function futureApplication(application: Json): Json {
  const tasks = Array.isArray(application.pendingTasks) ? (application.pendingTasks as Json[]) : [];
  return {
    ...application,
    lifecycleState: FUTURE.state,
    [FUTURE.field]: { nested: [1, 'two'] },
    pendingTasks: tasks.map((task) => ({ ...task, [FUTURE.field]: true })),
  };
}

/** A newer server's page of events: one more event of a new type into a new state, with unknown fields. */
export function futureEventPage(page: Json): Json {
  const events = Array.isArray(page.events) ? (page.events as Array<{ cursor: string; event: Json }>) : [];
  const last = events.at(-1);
  const added = last && {
    cursor: `${last.cursor}-future`,
    [FUTURE.field]: 1,
    event: {
      ...last.event,
      id: `${String(last.event.id)}-future`,
      type: FUTURE.eventType,
      from: last.event.to,
      to: FUTURE.state,
      seq: Number(last.event.seq ?? 0) + 1,
      [FUTURE.field]: 'x',
      data: { ...(last.event.data as Json | undefined), [FUTURE.field]: [] },
    },
  };
  return { ...page, [FUTURE.field]: 'page', events: added ? [...events, added] : events };
}

/**
 * A proxy in front of the real API that answers as a newer server would: an application read, and a
 * page of an application's events, are changed by {@link futureApplication} and {@link futureEventPage}.
 */
export async function futureServerProxy(target: string): Promise<{ base: string; close(): Promise<void> }> {
  const forward = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) {
      if (typeof value === 'string' && !['host', 'connection', 'content-length'].includes(name)) {
        headers.set(name, value);
      }
    }
    const answer = await fetch(`${target}${request.url ?? '/'}`, {
      method: request.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    let body = Buffer.from(await answer.arrayBuffer());
    const path = new URL(request.url ?? '/', target).pathname;
    const json = answer.status === 200 && answer.headers.get('content-type')?.includes('application/json');
    if (json && request.method === 'GET' && /^\/v1\/applications\/[^/]+$/.test(path)) {
      body = Buffer.from(JSON.stringify(futureApplication(JSON.parse(body.toString()) as Json)));
    } else if (json && request.method === 'GET' && /^\/v1\/applications\/[^/]+\/events$/.test(path)) {
      body = Buffer.from(JSON.stringify(futureEventPage(JSON.parse(body.toString()) as Json)));
    }
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'text/plain' });
    response.end(body);
  };
  const server = createServer((request, response) => {
    forward(request, response).catch((error: unknown) => {
      response.writeHead(502, { 'content-type': 'text/plain' }).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Starts an application over plain HTTP (no documents) and waits until its first events are written. */
export async function startedWithEvents(api: RealApi, externalId: string, xml: string): Promise<void> {
  const headers = { authorization: `Bearer ${api.keys.onboarding}`, 'content-type': 'application/json' };
  const started = await fetch(`${api.base}/v1/applications`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ applicationXml: xml }),
  });
  if (started.status !== 201) throw new Error(`starting ${externalId}: HTTP ${started.status} ${await started.text()}`);
  for (let i = 0; i < 300; i++) {
    const answer = await fetch(`${api.base}/v1/applications/${externalId}/events?after=start`, { headers });
    const page = (await answer.json()) as { events?: unknown[] };
    if ((page.events?.length ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${externalId} wrote no event in 30 s`);
}

/** The JSON object a client program printed last. */
export function printed(output: string): Record<string, unknown> {
  const line = output.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    throw new Error(`the program printed no JSON object:\n${output}`);
  }
}

/**
 * A disabled firm's routes that push its events out (api/webhooks.ts, api/events.ts, activities/webhooks.ts):
 * the API over real HTTP on an embedded PostgreSQL (PGlite) with the firms' registry and real API keys,
 * Temporal's time-skipping test server with a worker running the webhook delivery activities, and a
 * receiver over real HTTP. The firm is disabled and enabled by an admin key, over HTTP too.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../../activities/webhooks.js';
import { registeredFirms } from '../../../api/firm.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { buildApi } from '../../../api/server.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { generateKeyPair } from '../../../eca/crypto.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { EventLog, formatCursor, LOG_START } from '../../../runtime/events.js';
import type { NewEvent } from '../../../runtime/events.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { createEngineWorker } from '../../../workers/engine-worker.js';
import { expectLog } from '../../support/hooks.js';
import { endTestWorkflows, timeSkippingEnv } from '../../support/servers.js';
import { until } from '../../support/until.js';
import { watchedLogger } from '../../support/log-watch.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';
import type { WebhookReceiver } from '../../support/webhook-receiver.js';
import { openSeededDatabase } from '../../support/database-template.js';

const CSID = 'FIRM-D';
const REASON = 'contract ended';

interface Endpoint {
  id: string;
  state: string;
  backlog: number;
  delivered: number;
  failures: number;
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
  contentType: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('onboarding API: a disabled firm registers, replays, resumes and streams nothing, and is delivered nothing', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let dir: string;
  let db: Database;
  let log: EventLog;
  let app: FastifyInstance;
  let url: string;
  let worker: Worker;
  let running: Promise<void>;
  let taskQueue: string;
  let receiver: WebhookReceiver;
  const keys = { admin: '', staff: '', ops: '' };

  before(async function () {
    env = await timeSkippingEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-disabled-firm-'));
    db = await openSeededDatabase(join(dir, 'database'));
    log = new EventLog(db);
    const keyring = generateCodecKeyring('disabled-firm');
    // No cache: a disable or an enable is seen by the next request and the next delivery.
    const registry = new FirmRegistry(db, { keyring, cacheMs: 0 });
    const [firm, brokerage] = await Promise.all([
      generateKeyPair({ name: 'Firm D', email: 'firm-d@example.test', passphrase: 'firm d secret' }),
      generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' }),
    ]);
    await registry.add({
      csid: CSID,
      name: 'Firm D',
      settings: {},
      keys: { firmPrivateKey: firm.privateKey, passphrase: 'firm d secret', brokeragePublicKey: brokerage.publicKey },
    });
    keys.admin = (await createApiKey(db, { role: 'admin', name: 'operator' })).key;
    keys.staff = (await createApiKey(db, { csid: CSID, role: 'staff', name: 'staff' })).key;
    keys.ops = (await createApiKey(db, { csid: CSID, role: 'ops', name: 'ops' })).key;
    taskQueue = `disabled-firm-${randomUUID()}`;
    worker = await createEngineWorker({
      connection: env.nativeConnection,
      taskQueue,
      activities: createWebhookActivities({ db, keyring, firms: registry, pollMs: 50, timeoutMs: 2_000 }),
    });
    running = worker.run();
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: env.client, store: new FileDocumentStore(join(dir, 'documents')), taskQueue },
      verifyKey: databaseKeyVerifier(db, { cacheMs: 0 }),
      firms: registeredFirms(new FirmBrokerages(registry, { database: db })),
      registry,
      database: db,
      keyring,
      eventStream: { pollMs: 50 },
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
    receiver = await startWebhookReceiver();
  });

  after(async function () {
    await app?.close();
    // The delivery workflow still running ends with the file (it would hold the server's time skipping).
    if (taskQueue) await endTestWorkflows(env, taskQueue, worker);
    await running;
    await receiver?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  // A test that failed while the firm was disabled leaves it enabled for the next.
  afterEach(async function () {
    await call(keys.admin, 'POST', `/v1/firms/${CSID}/enable`);
  });

  async function call<T = Record<string, unknown>>(
    key: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<Answer<T>> {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      body: (text ? JSON.parse(text) : undefined) as T,
      contentType: response.headers.get('content-type') ?? '',
    };
  }

  let seq = 0;
  function events(externalId: string, count: number): NewEvent[] {
    return Array.from({ length: count }, () => ({
      application: `wf-${externalId}/run`,
      seq: ++seq,
      type: 'application.needs_documents' as const,
      csid: CSID,
      externalId,
      from: 'tracking' as const,
      to: 'needsDocuments' as const,
      at: Date.now(),
      data: { tasks: ['8001'] },
    }));
  }

  const disable = async () => {
    const answer = await call(keys.admin, 'POST', `/v1/firms/${CSID}/disable`, { reason: REASON });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };
  const enable = async () => {
    const answer = await call(keys.admin, 'POST', `/v1/firms/${CSID}/enable`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };

  /** The problem every route of new work answers a disabled firm with. */
  function assertDisabled(answer: Answer, route: string): void {
    assert.equal(answer.status, 403, `${route}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.contentType, /^application\/problem\+json/, route);
    assert.equal(answer.body.code, 'FIRM_DISABLED', route);
    assert.match(String(answer.body.detail), new RegExp(`firm ${CSID} is disabled \\(${REASON}\\)`), route);
  }

  it('refuses register, replay and resume while disabled, holds the deliveries, and delivers them all once enabled', async function () {
    // While the firm works: an endpoint is registered and receives its events.
    const registered = await call<{ endpoint: Endpoint; secret: string }>(keys.staff, 'POST', '/v1/webhooks', {
      url: receiver.url,
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    receiver.secret = registered.body.secret;
    const { id } = registered.body.endpoint;
    let written = 0;
    await log.append(events('D-1', 1));
    await until('the first delivery', () => receiver.acknowledged().length === 1);

    // The worker says why it holds the firm's deliveries (counted here, not printed).
    const heldLine = expectLog(/^webhook delivery held: firm FIRM-D is disabled \(contract ended\)/);
    try {
      await disable();
      await refusedWhileDisabled(id);
      written = await heldWhileDisabled(id);
      assert.ok(heldLine.seen > 0, 'the worker did not say the delivery was held');
    } finally {
      heldLine.done();
    }

    // Enabled: the held events arrive, in the log's order, each once; nothing was lost.
    await enable();
    await until('the held deliveries', () => receiver.acknowledged().length === 4);
    const logged = (await log.read({ csid: CSID, after: LOG_START })).map((entry) => entry.event.id);
    assert.equal(logged.length, written);
    assert.deepEqual(
      receiver.acknowledged().map((delivery) => delivery.id),
      logged,
    );
    for (const delivery of receiver.deliveries) assert.equal(delivery.verified, true);
    const caughtUp = await until('the endpoint to catch up', async () => {
      const endpoint = (await call<Endpoint>(keys.ops, 'GET', `/v1/webhooks/${id}`)).body;
      return endpoint.backlog === 0 ? endpoint : undefined;
    });
    assert.equal(caughtUp.delivered, 4);
    // And the routes open again.
    assert.equal((await call(keys.staff, 'POST', `/v1/webhooks/${id}/replay`, { after: 'start' })).status, 200);
    await until('the replay', () => receiver.acknowledged().length === 8);
  });

  async function refusedWhileDisabled(id: string): Promise<void> {
    // Every route that would send the firm's log somewhere: refused with the problem of the other routes.
    assertDisabled(await call(keys.staff, 'POST', '/v1/webhooks', { url: `${receiver.url}/new` }), 'register');
    assertDisabled(
      await call(keys.staff, 'POST', '/v1/webhooks', { url: `${receiver.url}/all`, after: 'start' }),
      'register from the start',
    );
    assertDisabled(await call(keys.staff, 'POST', `/v1/webhooks/${id}/replay`, { after: 'start' }), 'replay');
    assertDisabled(await call(keys.staff, 'POST', `/v1/webhooks/${id}/resume`), 'resume');
    // Nothing was made by the refusals: the firm has its one endpoint still.
    const listed = await call<{ endpoints: Endpoint[] }>(keys.ops, 'GET', '/v1/webhooks');
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.endpoints.map((endpoint) => endpoint.id),
      [id],
    );
  }

  /** Events written while the firm is disabled are held: none is posted, none counted as a failure. */
  async function heldWhileDisabled(id: string): Promise<number> {
    const before = (await log.read({ csid: CSID, after: LOG_START })).length;
    await log.append(events('D-2', 3));
    await sleep(2_000);
    assert.equal(receiver.deliveries.length, 1, 'an event of the disabled firm was posted to its receiver');
    const held = (await call<Endpoint>(keys.ops, 'GET', `/v1/webhooks/${id}`)).body;
    assert.equal(held.state, 'active');
    assert.equal(held.backlog, 3);
    assert.equal(held.failures, 0);
    return before + 3;
  }

  it('answers a stream opened while disabled with 403 FIRM_DISABLED before any event byte', async function () {
    const written = events('D-3', 3);
    await log.append(written);
    const ids = (await log.read({ csid: CSID, after: LOG_START })).map((entry) => entry.event.id);
    assert.ok(ids.length >= 3);
    await disable();
    try {
      // From the start of the log, and as an EventSource reconnects (Last-Event-ID): both refused at once.
      const requests: Array<{ path: string; headers: Record<string, string> }> = [
        { path: '/v1/events?after=start', headers: {} },
        { path: '/v1/events', headers: { 'last-event-id': formatCursor(LOG_START) } },
      ];
      for (const { path, headers } of requests) {
        const controller = new AbortController();
        try {
          const response = await fetch(`${url}${path}`, {
            headers: { authorization: `Bearer ${keys.ops}`, accept: 'text/event-stream', ...headers },
            signal: controller.signal,
          });
          assert.equal(response.status, 403, `${path}: a stream was opened`);
          assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
          const text = await response.text();
          const problem = JSON.parse(text) as { code: string; detail: string };
          assert.equal(problem.code, 'FIRM_DISABLED');
          assert.match(problem.detail, new RegExp(`firm ${CSID} is disabled \\(${REASON}\\)`));
          assert.doesNotMatch(text, /^(?:id|event|data|retry):/m);
          for (const eventId of ids) assert.ok(!text.includes(eventId), `${path}: event ${eventId} was sent`);
        } finally {
          controller.abort();
        }
      }
    } finally {
      await enable();
    }

    // Enabled again: the stream opens and sends the firm's events; a disable during it ends it with an error event.
    const response = await fetch(`${url}/v1/events?after=start`, {
      headers: { authorization: `Bearer ${keys.ops}`, accept: 'text/event-stream' },
    });
    assert.equal(response.status, 200);
    const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    let text = '';
    while (!ids.every((eventId) => text.includes(eventId))) {
      const chunk = await chunks.next();
      assert.ok(!chunk.done, `the stream ended before its events: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
    await disable();
    try {
      for (;;) {
        const chunk = await chunks.next();
        if (chunk.done) break;
        text += decoder.decode(chunk.value, { stream: true });
      }
      assert.match(
        text,
        /event: error\ndata: \{"code":"FIRM_DISABLED","detail":"firm FIRM-D is disabled \(contract ended\)/,
      );
    } finally {
      await enable();
    }
  });
});

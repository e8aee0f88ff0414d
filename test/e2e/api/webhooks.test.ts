/**
 * The onboarding API's webhook endpoints and deadline policies, with real parts: the API on an embedded
 * PostgreSQL (PGlite) with real API keys, Temporal's time-skipping test server with a worker running the
 * webhook delivery activities (secrets sealed under the same codec keys as the API's), and a receiver
 * over real HTTP that verifies every delivery with the `standardwebhooks` package. Then `eca webhooks`
 * and `eca deadlines` as child processes against the served API.
 */
import { until } from '../../support/until.js';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { Webhook } from 'standardwebhooks';
import { createWebhookActivities } from '../../../activities/webhooks.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { buildApi } from '../../../api/server.js';
import type { CodecKeyring } from '../../../codec/keyring.js';
import { DEFAULT_DEADLINE_POLICY } from '../../../domain/deadlines.js';
import { webhookDeliveryWorkflowId } from '../../../domain/workflow-ids.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { EventLog, formatCursor, LOG_START } from '../../../runtime/events.js';
import type { NewEvent } from '../../../runtime/events.js';
import { createEngineWorker } from '../../../workers/engine-worker.js';
import { expectLog } from '../../support/hooks.js';
import type { ExpectedLog } from '../../support/hooks.js';
import { endTestWorkflows, timeSkippingEnv } from '../../support/servers.js';
import { startWebhookReceiver } from '../../support/webhook-receiver.js';
import type { WebhookReceiver } from '../../support/webhook-receiver.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

interface Endpoint {
  id: string;
  csid: string;
  url: string;
  state: string;
  cursor: string;
  backlog: number;
  delivered: number;
  failures: number;
  lastError?: string;
  lastErrorAt?: string;
}

interface Answer<T = Record<string, unknown>> {
  status: number;
  body: T;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('onboarding API: webhook endpoints and deadline policies (PGlite, Temporal, a real receiver)', function () {
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
  let failedAttempts: ExpectedLog;
  let receiver: WebhookReceiver;
  const keyring: CodecKeyring = { keys: [{ id: 'api-webhooks', key: new Uint8Array(randomBytes(32)) }] };
  const keys = { staff: '', ops: '', onboarding: '', otherStaff: '', otherOnboarding: '' };

  before(async function () {
    env = await timeSkippingEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-api-webhooks-'));
    db = await openSeededDatabase(join(dir, 'database'));
    log = new EventLog(db);
    keys.staff = (await createApiKey(db, { csid: 'FIRM-W', role: 'staff', name: 'staff' })).key;
    keys.ops = (await createApiKey(db, { csid: 'FIRM-W', role: 'ops', name: 'ops' })).key;
    keys.onboarding = (await createApiKey(db, { csid: 'FIRM-W', role: 'onboarding', name: 'system' })).key;
    keys.otherStaff = (await createApiKey(db, { csid: 'FIRM-X', role: 'staff', name: 'other firm' })).key;
    keys.otherOnboarding = (await createApiKey(db, { csid: 'FIRM-X', role: 'onboarding', name: 'other system' })).key;
    taskQueue = `api-webhooks-${randomUUID()}`;
    // Failed deliveries (on purpose): the worker's warning for each attempt is counted, not printed.
    failedAttempts = expectLog(/^Activity failed$/);
    worker = await createEngineWorker({
      connection: env.nativeConnection,
      taskQueue,
      activities: createWebhookActivities({ db, keyring, pollMs: 50, timeoutMs: 2_000 }),
    });
    running = worker.run();
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: env.client, store: new FileDocumentStore(join(dir, 'documents')), taskQueue },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      keyring,
    });
    url = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  after(async function () {
    await app?.close();
    // Delivery workflows still running end with the file (they would hold the server's time skipping).
    if (taskQueue) await endTestWorkflows(env, taskQueue, worker);
    await running;
    failedAttempts?.done();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async function () {
    receiver = await startWebhookReceiver();
  });

  afterEach(async function () {
    await receiver.close();
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
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
  }

  let seq = 0;
  function events(csid: string, externalId: string, count: number): NewEvent[] {
    return Array.from({ length: count }, () => ({
      application: `wf-${externalId}/run`,
      seq: ++seq,
      type: 'application.needs_documents' as const,
      csid,
      externalId,
      from: 'tracking' as const,
      to: 'needsDocuments' as const,
      at: Date.now(),
      data: { tasks: ['8001'] },
    }));
  }

  /** An endpoint of FIRM-W at the receiver, registered through the API. */
  async function register(body: Record<string, unknown> = {}): Promise<Endpoint> {
    const answer = await call<{ endpoint: Endpoint; secret: string }>(keys.staff, 'POST', '/v1/webhooks', {
      url: receiver.url,
      ...body,
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.match(answer.body.secret, /^whsec_/);
    receiver.secret = answer.body.secret;
    return answer.body.endpoint;
  }

  const read = async (id: string) => (await call<Endpoint>(keys.ops, 'GET', `/v1/webhooks/${id}`)).body;

  const caughtUp = (id: string) =>
    until('the endpoint to catch up', async () => {
      const endpoint = await read(id);
      return endpoint.backlog === 0 && endpoint.state === 'active' ? endpoint : undefined;
    });

  const eventIds = async (csid: string) => (await log.read({ csid, after: LOG_START })).map((e) => e.event.id);

  function assertAllVerified(): void {
    assert.ok(receiver.deliveries.length > 0);
    for (const delivery of receiver.deliveries) assert.equal(delivery.verified, true, `${delivery.id} did not verify`);
  }

  it('registers an endpoint that receives the firm’s events, signed; another firm sees none of it', async function () {
    const before = await eventIds('FIRM-W');
    const endpoint = await register({ description: 'the onboarding system' });
    assert.equal(endpoint.csid, 'FIRM-W');
    assert.equal(endpoint.backlog, 0);
    await log.append([...events('FIRM-W', 'W-1', 2), ...events('FIRM-X', 'X-1', 1), ...events('FIRM-W', 'W-2', 1)]);
    await until('three deliveries', () => receiver.acknowledged().length === 3);
    const record = await caughtUp(endpoint.id);
    assert.equal(record.delivered, 3);
    assertAllVerified();
    const expected = (await eventIds('FIRM-W')).filter((id) => !before.includes(id));
    assert.deepEqual(
      receiver.acknowledged().map((delivery) => delivery.id),
      expected,
    );

    const listed = await call<{ endpoints: Endpoint[] }>(keys.onboarding, 'GET', '/v1/webhooks');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.endpoints.some((item) => item.id === endpoint.id && item.delivered === 3));

    // Another firm's key: no such endpoint, whatever it asks.
    const other = await call<{ endpoints: Endpoint[] }>(keys.otherStaff, 'GET', '/v1/webhooks');
    assert.deepEqual(other.body.endpoints, []);
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${endpoint.id}`, undefined],
      ['POST', `/v1/webhooks/${endpoint.id}/pause`, {}],
      ['POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {}],
      ['POST', `/v1/webhooks/${endpoint.id}/replay`, { after: 'start' }],
      ['DELETE', `/v1/webhooks/${endpoint.id}`, undefined],
    ] as const) {
      const answer = await call<{ code: string }>(keys.otherStaff, method, path, body);
      assert.equal(answer.status, 404, `${method} ${path}`);
      assert.equal(answer.body.code, 'NOT_FOUND');
    }
    assert.equal((await read(endpoint.id)).state, 'active');

    // Reads are for every role, changes for onboarding and staff keys: not for ops.
    const forbidden = await call<{ code: string }>(keys.ops, 'POST', '/v1/webhooks', { url: receiver.url });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.code, 'FORBIDDEN');
  });

  it('lets an onboarding key register, list and manage its firm’s endpoints; another firm’s sees none of them', async function () {
    const registered = await call<{ endpoint: Endpoint; secret: string }>(keys.onboarding, 'POST', '/v1/webhooks', {
      url: receiver.url,
      description: 'registered by the onboarding system',
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    assert.match(registered.body.secret, /^whsec_/);
    const { endpoint } = registered.body;
    assert.equal(endpoint.csid, 'FIRM-W');
    const listed = await call<{ endpoints: Endpoint[] }>(keys.onboarding, 'GET', '/v1/webhooks');
    assert.equal(listed.status, 200);
    assert.ok(listed.body.endpoints.some((item) => item.id === endpoint.id));
    assert.equal((await call<Endpoint>(keys.onboarding, 'GET', `/v1/webhooks/${endpoint.id}`)).status, 200);

    // Another firm's onboarding key: its list is its own, this endpoint is not found whatever it asks.
    const other = await call<{ endpoints: Endpoint[] }>(keys.otherOnboarding, 'GET', '/v1/webhooks');
    assert.ok(!other.body.endpoints.some((item) => item.id === endpoint.id));
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${endpoint.id}`, undefined],
      ['POST', `/v1/webhooks/${endpoint.id}/pause`, {}],
      ['POST', `/v1/webhooks/${endpoint.id}/resume`, {}],
      ['POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {}],
      ['POST', `/v1/webhooks/${endpoint.id}/replay`, { after: 'start' }],
      ['DELETE', `/v1/webhooks/${endpoint.id}`, undefined],
    ] as const) {
      assert.equal((await call(keys.otherOnboarding, method, path, body)).status, 404, `${method} ${path}`);
    }

    // Each change, with the firm's own onboarding key.
    const paused = await call<Endpoint>(keys.onboarding, 'POST', `/v1/webhooks/${endpoint.id}/pause`, {});
    assert.equal(paused.body.state, 'paused');
    const resumed = await call<Endpoint>(keys.onboarding, 'POST', `/v1/webhooks/${endpoint.id}/resume`, {});
    assert.equal(resumed.body.state, 'active');
    const rotated = await call<{ secret: string }>(
      keys.onboarding,
      'POST',
      `/v1/webhooks/${endpoint.id}/rotate-secret`,
      {},
    );
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.secret, /^whsec_/);
    const replayed = await call(keys.onboarding, 'POST', `/v1/webhooks/${endpoint.id}/replay`, { after: 'start' });
    assert.equal(replayed.status, 200, JSON.stringify(replayed.body));
    assert.equal((await call(keys.onboarding, 'DELETE', `/v1/webhooks/${endpoint.id}`)).status, 204);
    // Deleted is gone for its readers (404), as for any other resource deleted.
    assert.equal((await call(keys.onboarding, 'GET', `/v1/webhooks/${endpoint.id}`)).status, 404);
  });

  it('refuses a bad URL, cursor or duration with 400 naming the field', async function () {
    for (const bad of ['not a url', 'ftp://example.com/hooks', 'https://user:pw@example.com/hooks']) {
      const answer = await call<{ code: string; field: string; detail: string }>(keys.staff, 'POST', '/v1/webhooks', {
        url: bad,
      });
      assert.equal(answer.status, 400, bad);
      assert.equal(answer.body.code, 'INVALID_INPUT');
      assert.equal(answer.body.field, 'body.url');
      assert.match(answer.body.detail, /^body\.url: is not an absolute http or https URL/);
    }
    // Not a cursor, or one past what the log's columns hold (a query error, 500, before): the schema's pattern.
    for (const after of ['yesterday', '18446744073709551616-1', '1-9223372036854775808']) {
      const cursor = await call<{ field: string; detail: string }>(keys.staff, 'POST', '/v1/webhooks', {
        url: receiver.url,
        after,
      });
      assert.equal(cursor.status, 400, after);
      assert.equal(cursor.body.field, 'body.after');
      assert.match(cursor.body.detail, /is not `start`, `now` or an event cursor/);
    }
    // A host no delivery may reach: the registry's own check, past the schema.
    const metadata = await call<{ field: string }>(keys.staff, 'POST', '/v1/webhooks', {
      url: 'http://169.254.169.254/latest',
    });
    assert.equal(metadata.status, 400);
    assert.equal(metadata.body.field, 'url');
    const endpoint = await register();
    for (const keep of ['forever', '31d', '-1h']) {
      const answer = await call<{ field: string }>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
        keepPreviousFor: keep,
      });
      assert.equal(answer.status, 400, keep);
      assert.equal(answer.body.field, 'body.keepPreviousFor');
    }
    const replay = await call<{ field: string }>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/replay`, {
      after: 'nope',
    });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.field, 'body.after');
  });

  it('shows the backlog and last error while the receiver fails, then catches up', async function () {
    const seenBefore = failedAttempts.seen;
    const endpoint = await register();
    receiver.respond = (request) => (request <= 2 ? 500 : 204);
    await log.append(events('FIRM-W', 'W-3', 2));
    const failing = await until('a failure on the list', async () => {
      const { body } = await call<{ endpoints: Endpoint[] }>(keys.ops, 'GET', '/v1/webhooks');
      const item = body.endpoints.find((entry) => entry.id === endpoint.id);
      return item && item.failures > 0 ? item : undefined;
    });
    assert.equal(failing.backlog, 2);
    assert.match(failing.lastError ?? '', /HTTP 500/);
    assert.ok(failing.lastErrorAt);
    const record = await caughtUp(endpoint.id);
    assert.equal(record.failures, 0);
    assert.equal(record.delivered, 2);
    assert.match(record.lastError ?? '', /HTTP 500/);
    assert.ok(failedAttempts.seen - seenBefore >= 2);
    const ids = receiver.deliveries.map((delivery) => delivery.id);
    // The first event three times (two failures), then the second: same webhook-id on each retry.
    assert.deepEqual(ids, [ids[0], ids[0], ids[0], ids[3]]);
    assertAllVerified();
  });

  it('rotates the secret: deliveries carry both signatures, each verifies', async function () {
    const endpoint = await register();
    const previous = receiver.secret;
    const rotated = await call<{ endpoint: Endpoint; secret: string }>(
      keys.staff,
      'POST',
      `/v1/webhooks/${endpoint.id}/rotate-secret`,
      { keepPreviousFor: '1h' },
    );
    assert.equal(rotated.status, 200);
    assert.notEqual(rotated.body.secret, previous);
    receiver.secret = rotated.body.secret;
    await log.append(events('FIRM-W', 'W-4', 1));
    const [delivery] = await until('a delivery', () =>
      receiver.acknowledged().length === 1 ? receiver.acknowledged() : undefined,
    );
    assert.equal(delivery!.headers['webhook-signature']!.split(' ').length, 2);
    for (const secret of [previous, rotated.body.secret]) new Webhook(secret).verify(delivery!.body, delivery!.headers);
    // Without keeping the previous one: one signature, the new secret's.
    const again = await call<{ secret: string }>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/rotate-secret`, {
      keepPreviousFor: '0',
    });
    receiver.secret = again.body.secret;
    await log.append(events('FIRM-W', 'W-4', 1));
    await until('a second delivery', () => receiver.acknowledged().length === 2);
    const last = receiver.acknowledged()[1]!;
    assert.equal(last.headers['webhook-signature']!.split(' ').length, 1);
    assert.throws(() => new Webhook(rotated.body.secret).verify(last.body, last.headers));
    assertAllVerified();
  });

  it('pauses, resumes, replays with the same webhook-ids, and deletes', async function () {
    const endpoint = await register();
    const paused = await call<Endpoint>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/pause`, {});
    assert.equal(paused.body.state, 'paused');
    await log.append(events('FIRM-W', 'W-5', 2));
    await sleep(1_000);
    assert.equal(receiver.deliveries.length, 0);
    assert.equal((await read(endpoint.id)).backlog, 2);
    const resumed = await call<Endpoint>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/resume`, {});
    assert.equal(resumed.body.state, 'active');
    await caughtUp(endpoint.id);
    const first = receiver.acknowledged().map((delivery) => delivery.id);
    assert.equal(first.length, 2);

    // A replay from the endpoint's starting cursor sends both again, with their ids.
    const replayed = await call<Endpoint>(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/replay`, {
      after: endpoint.cursor,
    });
    assert.equal(replayed.status, 200);
    assert.equal(replayed.body.backlog, 2);
    await caughtUp(endpoint.id);
    assert.deepEqual(
      receiver.acknowledged().map((delivery) => delivery.id),
      [...first, ...first],
    );
    // A cursor after the endpoint's would skip events: paused, the endpoint's stays behind the new event's.
    await call(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/pause`, {});
    const [latest] = (await log.read({ csid: 'FIRM-W', after: LOG_START })).slice(-1);
    await log.append(events('FIRM-W', 'W-5', 1));
    const [next] = await log.read({ csid: 'FIRM-W', after: latest!.cursor });
    const ahead = await call<{ field: string; detail: string }>(
      keys.staff,
      'POST',
      `/v1/webhooks/${endpoint.id}/replay`,
      { after: formatCursor(next!.cursor) },
    );
    // The endpoint's state, not the input's form: a conflict.
    assert.equal(ahead.status, 409);
    assert.equal(ahead.body.field, 'after');
    assert.match(ahead.body.detail, /a replay only goes back/);
    await call(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/resume`, {});
    await caughtUp(endpoint.id);
    assertAllVerified();

    const deleted = await fetch(`${url}/v1/webhooks/${endpoint.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${keys.staff}` },
    });
    assert.equal(deleted.status, 204);
    await env.client.workflow.getHandle(webhookDeliveryWorkflowId(endpoint.id)).result();
    const count = receiver.deliveries.length;
    await log.append(events('FIRM-W', 'W-5', 1));
    await sleep(500);
    assert.equal(receiver.deliveries.length, count);
    assert.equal((await call(keys.ops, 'GET', `/v1/webhooks/${endpoint.id}`)).status, 404);
    assert.equal((await call(keys.staff, 'DELETE', `/v1/webhooks/${endpoint.id}`)).status, 404);
    assert.equal((await call(keys.staff, 'POST', `/v1/webhooks/${endpoint.id}/resume`, {})).status, 404);
  });

  it('deletes an endpoint while Temporal is out of reach: 204, the endpoint deleted, its delivery ends by itself', async function () {
    const endpoint = await register();
    // The same service on a Temporal that cannot be reached: the stop signal waits past its call timeout.
    // The connection stays open: a stop left behind keeps retrying for about 20 s, and a retry timer that fires
    // on a closed connection throws where no test can catch it.
    const unreachable = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'documents')),
        taskQueue,
      },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      keyring,
      callTimeoutMs: 300,
    });
    try {
      const deleted = await unreachable.inject({
        method: 'DELETE',
        url: `/v1/webhooks/${endpoint.id}`,
        headers: { authorization: `Bearer ${keys.staff}` },
      });
      assert.equal(deleted.statusCode, 204, deleted.body);
    } finally {
      await unreachable.close();
    }
    assert.equal((await call(keys.ops, 'GET', `/v1/webhooks/${endpoint.id}`)).status, 404);
    // Never told, the delivery workflow reads the deleted state and ends.
    await env.client.workflow.getHandle(webhookDeliveryWorkflowId(endpoint.id)).result();
  });

  it('sets, shows and clears the firm’s deadline policy; a bad one is refused naming each problem', async function () {
    const bad = await call<{ code: string; field: string; detail: string }>(keys.staff, 'PUT', '/v1/deadlines', {
      policy: {
        needsDocuments: { deadline: '10d', reminders: ['12d'], escalation: 'none' },
        waiting: null,
      },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'INVALID_INPUT');
    assert.equal(bad.body.field, 'policy.needsDocuments.reminders[0]');
    assert.match(bad.body.detail, /needsDocuments\.reminders\[0\]: "12d" is not before the deadline "10d"/);
    assert.match(bad.body.detail, /waiting: not a state with a deadline/);
    const notObject = await call<{ field: string }>(keys.staff, 'PUT', '/v1/deadlines', { policy: 'soon' });
    assert.equal(notObject.status, 400);
    assert.equal((await call(keys.ops, 'PUT', '/v1/deadlines', { policy: {} })).status, 403);

    const policy = {
      needsDocuments: { deadline: '20d', reminders: ['7d', '14d'], escalation: 'alert' },
      blocked: null,
    };
    const set = await call<{ policy: unknown; effective: Record<string, unknown> }>(
      keys.staff,
      'PUT',
      '/v1/deadlines',
      { policy },
    );
    assert.equal(set.status, 200);
    const shown = await call<{ policy: unknown; effective: Record<string, unknown>; defaults: unknown }>(
      keys.onboarding,
      'GET',
      '/v1/deadlines',
    );
    assert.deepEqual(shown.body.policy, policy);
    assert.deepEqual(shown.body.effective.needsDocuments, policy.needsDocuments);
    assert.equal(shown.body.effective.blocked, null);
    assert.deepEqual(shown.body.effective.awaitingClient, DEFAULT_DEADLINE_POLICY.awaitingClient);
    assert.deepEqual(shown.body.defaults, JSON.parse(JSON.stringify(DEFAULT_DEADLINE_POLICY)));
    // Another firm keeps the defaults.
    const other = await call<{ policy: unknown }>(keys.otherStaff, 'GET', '/v1/deadlines');
    assert.deepEqual(other.body.policy, {});

    const cleared = await call<{ policy: unknown; effective: unknown }>(keys.staff, 'DELETE', '/v1/deadlines');
    assert.equal(cleared.status, 200);
    assert.deepEqual(cleared.body.policy, {});
    assert.deepEqual(cleared.body.effective, JSON.parse(JSON.stringify(DEFAULT_DEADLINE_POLICY)));
  });

  describe('the eca CLI through the API', function () {
    function eca(args: string[], env: Record<string, string> = {}) {
      return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const { ECA_API_URL: _url, ECA_API_KEY: _key, ECA_OUTPUT: _output, ...inherited } = process.env;
        execFile(
          process.execPath,
          [ECA, ...args],
          { env: { ...inherited, NO_COLOR: '1', ECA_API_URL: url, ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });
    }

    it('`webhooks create|list|show|delete`: the secret once, the table, typed exit codes', async function () {
      const created = await eca(['webhooks', 'create', receiver.url, '--description', 'cli', '-o', 'json'], {
        ECA_API_KEY: keys.staff,
      });
      assert.equal(created.code, 0, created.stderr);
      const { endpoint, secret } = JSON.parse(created.stdout) as { endpoint: Endpoint; secret: string };
      assert.match(secret, /^whsec_/);

      const listed = await eca(['webhooks', 'list', '-o', 'json'], { ECA_API_KEY: keys.ops });
      assert.equal(listed.code, 0, listed.stderr);
      const endpoints = JSON.parse(listed.stdout) as Endpoint[];
      assert.ok(endpoints.some((item) => item.id === endpoint.id && item.url === receiver.url));

      const table = await eca(['webhooks', 'list', '--api-key', keys.ops]);
      assert.equal(table.code, 0, table.stderr);
      assert.match(table.stdout, /^ID +URL +STATE +BACKLOG +DELIVERED +FAILURES +LAST ERROR\n/);
      assert.match(table.stdout, new RegExp(`${endpoint.id} +\\S+ +active `));

      const missing = await eca(['webhooks', 'show', 'wh_aaaaaaaaaaaaaaaa'], { ECA_API_KEY: keys.ops });
      assert.equal(missing.code, 15);
      assert.match(missing.stderr, /no webhook endpoint wh_aaaaaaaaaaaaaaaa/);

      const unconfirmed = await eca(['webhooks', 'delete', endpoint.id], { ECA_API_KEY: keys.staff });
      assert.equal(unconfirmed.code, 13);
      const forbidden = await eca(['webhooks', 'delete', endpoint.id, '--yes'], { ECA_API_KEY: keys.ops });
      assert.equal(forbidden.code, 11);
      assert.match(forbidden.stderr, /roles: onboarding, staff\): give a key of one of those roles/);
      const deleted = await eca(['webhooks', 'delete', endpoint.id, '--yes', '-o', 'json'], {
        ECA_API_KEY: keys.staff,
      });
      assert.equal(deleted.code, 0, deleted.stderr);
      assert.deepEqual(JSON.parse(deleted.stdout), { id: endpoint.id, deleted: true });
    });

    it('`deadlines show|set`: the policy as JSON, a bad file refused with its problems', async function () {
      const shown = await eca(['deadlines', 'show', '-o', 'json'], { ECA_API_KEY: keys.ops });
      assert.equal(shown.code, 0, shown.stderr);
      const view = JSON.parse(shown.stdout) as { effective: unknown };
      assert.deepEqual(view.effective, JSON.parse(JSON.stringify(DEFAULT_DEADLINE_POLICY)));

      const file = join(dir, 'policy.json');
      await writeFile(file, JSON.stringify({ unconfirmed: { deadline: '2h', reminders: ['3h'], escalation: 'none' } }));
      const refused = await eca(['deadlines', 'set', file], { ECA_API_KEY: keys.staff });
      assert.equal(refused.code, 3);
      assert.match(refused.stderr, /unconfirmed\.reminders\[0\]: "3h" is not before the deadline "2h"/);

      await writeFile(
        file,
        JSON.stringify({ unconfirmed: { deadline: '2h', reminders: ['1h'], escalation: 'alert' } }),
      );
      const set = await eca(['deadlines', 'set', file], { ECA_API_KEY: keys.staff });
      assert.equal(set.code, 0, set.stderr);
      assert.match(set.stdout, /unconfirmed +2h +1h +- +alert +firm/);
      const cleared = await eca(['deadlines', 'clear'], { ECA_API_KEY: keys.staff });
      assert.equal(cleared.code, 0, cleared.stderr);
      assert.match(cleared.stdout, /unconfirmed +1d +4h +- +none +default/);

      const unreachable = await eca(['deadlines', 'show', '--api-url', 'http://127.0.0.1:9'], {
        ECA_API_KEY: keys.ops,
      });
      assert.equal(unreachable.code, 1);
      assert.match(unreachable.stderr, /cannot reach the onboarding API at http:\/\/127\.0\.0\.1:9/);
    });
  });
});

/**
 * Webhook delivery end to end with real components: the `webhookDelivery` workflow on Temporal's
 * time-skipping test server, its activities against an embedded PostgreSQL (PGlite) holding the event
 * log and the endpoints, and a receiver over real HTTP that verifies every delivery with the
 * `standardwebhooks` package. Counted from the receiver's own records.
 */
import { until } from '../support/until.js';
import { recordFixture } from '../support/replay-fixtures.js';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createWebhookActivities } from '../../activities/webhooks.js';
import {
  resumeWebhookDelivery,
  startWebhookDelivery,
  stopWebhookDelivery,
  webhookDeliveryState,
} from '../../client/webhooks.js';
import type { WebhookDeliveryContext, WebhookDeliveryOptions } from '../../client/webhooks.js';
import type { CodecKeyring } from '../../codec/keyring.js';
import { webhookDeliveryWorkflowId } from '../../domain/workflow-ids.js';
import type { Database } from '../../runtime/database/index.js';
import { EventLog, LOG_START } from '../../runtime/events.js';
import type { LoggedEvent, NewEvent } from '../../runtime/events.js';
import { WebhookEndpoints } from '../../runtime/webhooks.js';
import type { WebhookEndpointRecord } from '../../runtime/webhooks.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import { expectLog } from '../support/hooks.js';
import type { ExpectedLog } from '../support/hooks.js';
import { endTestWorkflows, timeSkippingEnv } from '../support/servers.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { openSeededDatabase } from '../support/database-template.js';

/** Short waits, so that a test's retries take seconds of real time. */
const FAST: WebhookDeliveryOptions = {
  retry: { initialInterval: '200 ms', maximumInterval: '1 second', maximumAttempts: 20 },
  windowMs: 3_000,
};

let sequence = 0;

/** `count` events of application `externalId`, numbered on from `from`. */
function events(csid: string, externalId: string, count: number, from = 1): NewEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    application: `application-${csid}-${externalId}/run-1`,
    seq: from + index,
    type: index % 2 ? 'application.validated' : 'application.validating',
    csid,
    externalId,
    from: 'validating',
    to: index % 2 ? 'creating' : 'validating',
    at: Date.UTC(2026, 0, 1) + sequence++,
    data: {},
  }));
}

describe('webhook delivery (workflows/webhooks)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let dir: string;
  let db: Database;
  let log: EventLog;
  let endpoints: WebhookEndpoints;
  let receiver: WebhookReceiver;
  let worker: Worker;
  let ctx: WebhookDeliveryContext;
  let failedAttempts: ExpectedLog;
  const keyring: CodecKeyring = { keys: [{ id: 'webhooks-test', key: new Uint8Array(randomBytes(32)) }] };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-webhooks-'));
    db = await openSeededDatabase(join(dir, 'db'));
    log = new EventLog(db);
    endpoints = new WebhookEndpoints(db, keyring);
  });

  after(async function () {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async function () {
    // Each test asks: a test that left the shared server's clock held has had the server replaced.
    env = await timeSkippingEnv();
    // Deliveries that fail on purpose: the worker's warning for each attempt is counted, not printed.
    failedAttempts = expectLog(/^Activity failed$/);
    receiver = await startWebhookReceiver();
    const taskQueue = `webhooks-${randomUUID()}`;
    ctx = { client: env.client, taskQueue };
    worker = await createEngineWorker({
      connection: env.nativeConnection,
      taskQueue,
      activities: createWebhookActivities({ db, keyring, pollMs: 50, timeoutMs: 2_000 }),
    });
  });

  afterEach(async function () {
    failedAttempts.done();
    await receiver.close();
    // A test that failed half-way leaves its delivery workflow running (it would hold the server's time skipping).
    await endTestWorkflows(env, ctx.taskQueue!, worker);
  });

  /** A new firm's endpoint at the receiver, delivery started. */
  async function registered(options: WebhookDeliveryOptions = FAST): Promise<WebhookEndpointRecord> {
    const csid = `F${randomBytes(4).toString('hex')}`;
    const { endpoint, secret } = await endpoints.register({ csid, url: receiver.url });
    receiver.secret = secret;
    const first = await startWebhookDelivery(ctx, { csid, endpointId: endpoint.id }, options);
    // A second start (an API retry) finds the running workflow.
    assert.deepEqual(await startWebhookDelivery(ctx, { csid, endpointId: endpoint.id }, options), first);
    return endpoint;
  }

  /** Deletes the endpoint and waits for its workflow to end. */
  async function deleted(endpoint: WebhookEndpointRecord): Promise<void> {
    await endpoints.delete(endpoint.csid, endpoint.id);
    assert.equal(await stopWebhookDelivery(ctx, endpoint.id), true);
    await env.client.workflow.getHandle(webhookDeliveryWorkflowId(endpoint.id)).result();
  }

  async function caughtUp(endpoint: WebhookEndpointRecord): Promise<WebhookEndpointRecord> {
    return until('the endpoint to catch up', async () => {
      const record = await endpoints.get(endpoint.csid, endpoint.id);
      return record && record.backlog === 0 && record.state === 'active' ? record : undefined;
    });
  }

  function assertAllVerified(): void {
    assert.ok(receiver.deliveries.length > 0);
    for (const delivery of receiver.deliveries) {
      assert.equal(delivery.verified, true, `delivery ${delivery.id} did not verify`);
      assert.equal(delivery.id, delivery.event.id);
    }
  }

  const ids = (logged: readonly LoggedEvent[]) => logged.map((entry) => entry.event.id);

  it('delivers the events appended to the log, in its order, each with its stable webhook-id', async function () {
    await worker.runUntil(async () => {
      const endpoint = await registered();
      await log.append(events(endpoint.csid, 'A', 3));
      await log.append(events(endpoint.csid, 'B', 2));
      await log.append([...events(endpoint.csid, 'A', 2, 4), ...events(endpoint.csid, 'B', 2, 3)]);
      await log.append(events('SOMEONE-ELSE', 'Z', 2));
      const logged = await log.read({ csid: endpoint.csid, after: LOG_START });
      assert.equal(logged.length, 9);
      const record = await caughtUp(endpoint);
      assert.deepEqual(
        receiver.acknowledged().map((delivery) => delivery.id),
        ids(logged),
      );
      assert.deepEqual(receiver.acknowledged()[0]!.event, logged[0]!.event);
      assertAllVerified();
      assert.equal(record.delivered, 9);
      for (const app of ['A', 'B']) {
        const seqs = receiver.deliveries.filter((d) => d.event.externalId === app).map((d) => d.event.seq);
        assert.deepEqual(
          seqs,
          [...seqs].sort((a, b) => a - b),
        );
      }
      await deleted(endpoint);
    });
  });

  it('retries a receiver that answers 500 for a while: no event lost, duplicates with the same webhook-id', async function () {
    await worker.runUntil(async () => {
      const endpoint = await registered();
      // The second event meets three 500s, the fourth request is acknowledged.
      receiver.respond = (request) => (request >= 2 && request <= 4 ? 500 : 204);
      await log.append(events(endpoint.csid, 'A', 3));
      const logged = await log.read({ csid: endpoint.csid, after: LOG_START });
      const record = await caughtUp(endpoint);
      assertAllVerified();
      const [e1, e2, e3] = ids(logged);
      assert.deepEqual(
        receiver.deliveries.map((delivery) => [delivery.id, delivery.status]),
        [
          [e1, 204],
          [e2, 500],
          [e2, 500],
          [e2, 500],
          [e2, 204],
          [e3, 204],
        ],
      );
      assert.equal(record.failures, 0);
      // The first 500 came after a delivery: it ended that window (no failed attempt); the next two
      // failed their attempts, which count failures in a row.
      assert.equal(failedAttempts.seen, 2);
      assert.match(record.lastError ?? '', new RegExp(`event ${e2} \\(application.validated\\): HTTP 500`));
      await deleted(endpoint);
    });
  });

  it('pauses an endpoint failing past its attempts, shows error and backlog; a resume delivers the backlog', async function () {
    const gaveUp = expectLog(/webhook delivery gave up/);
    try {
      await worker.runUntil(async () => {
        const endpoint = await registered({ ...FAST, retry: { ...FAST.retry, maximumAttempts: 3 } });
        receiver.respond = () => 503;
        await log.append(events(endpoint.csid, 'A', 2));
        const paused = await until('the endpoint to pause', async () => {
          const record = await endpoints.get(endpoint.csid, endpoint.id);
          return record?.state === 'paused' ? record : undefined;
        });
        assert.equal(receiver.deliveries.length, 3);
        assert.equal(failedAttempts.seen, 3);
        assert.match(paused.lastError ?? '', /HTTP 503/);
        assert.equal(paused.backlog, 2);
        assert.equal(paused.failures, 3);
        const view = await until('the workflow to wait', async () => {
          const state = await webhookDeliveryState(ctx, endpoint.id);
          return state.phase === 'paused' ? state : undefined;
        });
        assert.match(view.lastError ?? '', /HTTP 503/);
        // While paused, events keep coming: none is dropped.
        await log.append(events(endpoint.csid, 'A', 1, 3));
        assert.equal((await endpoints.get(endpoint.csid, endpoint.id))?.backlog, 3);
        receiver.respond = () => 200;
        await endpoints.resume(endpoint.csid, endpoint.id);
        await resumeWebhookDelivery(ctx, { csid: endpoint.csid, endpointId: endpoint.id }, FAST);
        await caughtUp(endpoint);
        assert.deepEqual(
          receiver.acknowledged().map((delivery) => delivery.id),
          ids(await log.read({ csid: endpoint.csid, after: LOG_START })),
        );
        assertAllVerified();
        await deleted(endpoint);
        // Failed, paused, resumed and deleted: the replay fixture of the delivery workflow.
        await recordFixture('webhook-delivery-paused-resumed', () =>
          env.client.workflow.getHandle(webhookDeliveryWorkflowId(endpoint.id)).fetchHistory(),
        );
      });
      assert.ok(gaveUp.seen >= 1);
    } finally {
      gaveUp.done();
    }
  });

  it('re-sends the events after a replay cursor, with their webhook-ids', async function () {
    await worker.runUntil(async () => {
      const endpoint = await registered();
      await log.append(events(endpoint.csid, 'A', 4));
      const logged = await log.read({ csid: endpoint.csid, after: LOG_START });
      await caughtUp(endpoint);
      const replayed = await endpoints.replay(endpoint.csid, endpoint.id, logged[1]!.cursor);
      assert.equal(replayed.backlog, 2);
      const record = await caughtUp(endpoint);
      const all = ids(logged);
      assert.deepEqual(
        receiver.acknowledged().map((delivery) => delivery.id),
        [...all, all[2], all[3]],
      );
      assertAllVerified();
      assert.equal(record.delivered, 6);
      await deleted(endpoint);
    });
  });
});

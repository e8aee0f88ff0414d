import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { createApiMetrics } from '../../../api/metrics.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { PutOptions } from '../../../runtime/document-store.js';
import type { DocumentRef } from '../../../domain/documents.js';
import { applicationXml } from '../../support/engine.js';
import { applicationWorkflowId } from '../../../domain/workflow-ids.js';
import { devServerEnv } from '../../support/servers.js';
import { logWatch, watchedLogger } from '../../support/log-watch.js';
import { applicant, personalXml } from '../../support/history-privacy.js';
import { until } from '../../support/until.js';
import { sharedEmbeddedDatabase } from '../../support/databases.js';
import type { Database } from '../../../runtime/database/index.js';

describe('onboarding API: every wait on the engine is bounded (dev server, no worker)', function () {
  this.timeout(60_000);
  const run = randomUUID().slice(0, 6);
  const csid = `CALL-TIMEOUT-${run}`;
  let env: TestWorkflowEnvironment;
  let app: FastifyInstance;
  let dir: string;
  let base: string;

  before(async function () {
    // The embedded database opens first: seconds of initdb, more on a loaded machine.
    this.timeout(120_000);
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-call-timeout-'));
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      // No worker polls this task queue: a read of an application waits for one.
      engine: {
        client: env.client,
        store: new FileDocumentStore(join(dir, 'documents')),
        taskQueue: `nobody-${run}`,
        settings: {},
      },
      verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid, role: 'staff' } : undefined),
      database: await sharedEmbeddedDatabase(),
      callTimeoutMs: 400,
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  after(async function () {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers a start without waiting for a worker, and a read past the call timeout with 504 TIMEOUT', async function () {
    const externalId = `idle-${run}`;
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${base}${path}`, {
        method,
        headers: { authorization: 'Bearer k', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const started = await call('POST', '/v1/applications', { applicationXml: applicationXml(externalId) });
    assert.equal(started.status, 201);
    const { application } = (await started.json()) as { application: Record<string, unknown> };
    assert.equal(application.lifecycleState, 'validating');
    assert.deepEqual(application.transitions, []);

    const began = Date.now();
    const read = await call('GET', `/v1/applications/${externalId}`);
    const waited = Date.now() - began;
    assert.equal(read.status, 504);
    const problem = (await read.json()) as { code: string; requestId: string };
    assert.equal(problem.code, 'TIMEOUT');
    assert.match(problem.requestId, /\S/);
    assert.ok(waited >= 350 && waited < 10_000, `answered after ${waited} ms`);
    await env.client.workflow.getHandle(applicationWorkflowId(csid, externalId)).terminate('test finished');
  });
});

describe('onboarding API: a caller that leaves (Temporal out of reach)', function () {
  this.timeout(60_000);
  let dir: string;
  let app: FastifyInstance | undefined;
  let database: Database;

  before(async function () {
    // The embedded database opens first: seconds of initdb, more on a loaded machine.
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), 'eca-caller-gone-'));
    database = await sharedEmbeddedDatabase();
  });

  after(async function () {
    await app?.close();
    // The connection stays open: the start the caller left goes on in the background (a start is shielded once
    // its application is stored) and keeps retrying for about 20 s; a retry timer that fires on a closed
    // connection throws where no test can catch it.
    await rm(dir, { recursive: true, force: true });
  });

  /** A document store that tells when a put is done: the start stores its application before it calls Temporal. */
  class TellingStore extends FileDocumentStore {
    stored!: () => void;
    readonly putDone = new Promise<void>((resolve) => (this.stored = resolve));
    override async put(data: Uint8Array, options?: PutOptions): Promise<DocumentRef> {
      const ref = await super.put(data, options);
      this.stored();
      return ref;
    }
  }

  it('stops waiting on the engine once the caller has left: the wait ends with the caller, not with the retries', async function () {
    const store = new TellingStore(join(dir, 'documents'));
    // Nothing listens there: a start waits on the client's retries (about 20 s).
    const connection = Connection.lazy({ address: '127.0.0.1:1' });
    const metrics = createApiMetrics();
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      metrics,
      engine: { client: new Client({ connection }), store },
      verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid: 'FIRM-GONE', role: 'staff' } : undefined),
      database,
    });
    // The service's only sign that its wait ended with the caller (the reply goes nowhere): its line.
    const gone = logWatch.count(/^the caller closed the connection before the answer$/);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    // An applicant's application: the run's log watch checks that what the service logs of it holds none of it.
    const person = applicant('apigone', randomBytes(4).toString('hex'));
    const caller = new AbortController();
    const answer = fetch(`${url}/v1/applications`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ applicationXml: personalXml(`apigone-${randomBytes(4).toString('hex')}`, person) }),
      signal: caller.signal,
    });
    // The application is stored: the request now waits on Temporal, which does not answer.
    await store.putDone;
    caller.abort();
    await assert.rejects(answer, { name: 'AbortError' });
    // Within 5 s of the caller leaving, where the client's retries would hold it about 20 s.
    await until('the wait to end with the caller', () => gone.seen > 0, 5_000);
    assert.equal(gone.seen, 1);
    // Counted once, as a request the caller closed (499), and no longer in flight.
    const value = async (name: string, labels: Record<string, string> = {}) =>
      (await metrics.registry.getSingleMetric(name)!.get()).values
        .filter((sample) => Object.entries(labels).every(([key, v]) => String(sample.labels[key]) === v))
        .reduce((sum, sample) => sum + sample.value, 0);
    await until('the request to be counted', async () => (await value('eca_api_requests_in_flight')) === 0, 5_000);
    assert.equal(await value('eca_api_requests', { route: '/v1/applications', method: 'POST', status: '499' }), 1);
    assert.equal(await value('eca_api_requests', { route: '/v1/applications', method: 'POST' }), 1);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/server.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { applicationXml } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { watchedLogger } from '../support/log-watch.js';

describe('onboarding API: every wait on the engine is bounded (dev server, no worker)', function () {
  this.timeout(60_000);
  const run = randomUUID().slice(0, 6);
  const csid = `CALL-TIMEOUT-${run}`;
  let env: TestWorkflowEnvironment;
  let app: FastifyInstance;
  let dir: string;
  let base: string;

  before(async function () {
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-call-timeout-'));
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      // No worker polls this task queue: a read of an application waits for one.
      engine: {
        client: env.client,
        store: new FileDocumentStore(join(dir, 'documents')),
        taskQueue: `nobody-${run}`,
        settings: { statusSource: 'poll' },
      },
      verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid, role: 'staff' } : undefined),
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
    await env.client.workflow.getHandle(`application-${csid}-${externalId}`).terminate('test finished');
  });
});

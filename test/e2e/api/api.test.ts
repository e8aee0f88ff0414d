import assert from 'node:assert/strict';
import { EventLog } from '../../../runtime/events.js';
import { followEvents } from '../../../client/event-stream.js';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { applicationOf } from '../../../api/applications.js';
import { ApplicationConflictError, getState, startApplication } from '../../../client/index.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { createApiKey, revokeApiKey } from '../../../runtime/api-keys.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { applicationWorkflowId } from '../../../domain/workflow-ids.js';
import { applicationXml, pdf, startEngine } from '../../support/engine.js';
import type { EngineHarness } from '../../support/engine.js';
import { devServerEnv } from '../../support/servers.js';
import { until } from '../../support/until.js';
import { start } from '../../../scripts/processes.js';
import { watchedLogger } from '../../support/log-watch.js';
import { applicant, personalXml } from '../../support/history-privacy.js';
import { openSeededDatabase, seededEmbeddedUrl } from '../../support/database-template.js';

const FAST = {
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};

describe('onboarding API (dev server, worker, simulator, embedded database)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let running: Promise<void>;
  let db: Database;
  let app: FastifyInstance;
  let base: string;
  let dir: string;
  const keys: Record<string, string> = {};
  const run = randomUUID().slice(0, 6);

  const call = async (key: string | undefined, method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined,
    };
  };

  /** Waits (10 s at most) until the application has an event in the log. */
  const eventsWritten = async (externalId: string) => {
    for (let i = 0; ; i++) {
      const page = await call(keys.ops, 'GET', `/v1/applications/${externalId}/events?after=start`);
      if ((page.body?.events as unknown[] | undefined)?.length) return;
      assert.ok(i < 100, 'the application wrote no event');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  before(async function () {
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-api-'));
    db = await openSeededDatabase(join(dir, 'database'));
    // The worker writes the applications' events where the service reads them.
    engine = await startEngine(env, { simulator: { timeScale: 20_000 }, events: new EventLog(db), database: db });
    running = engine.worker.run();
    const firm = engine.sim.csid;
    const other = `OTHER-${run}`;
    for (const [name, csid, role] of [
      ['onboarding', firm, 'onboarding'],
      ['staff', firm, 'staff'],
      ['ops', firm, 'ops'],
      ['otherOnboarding', other, 'onboarding'],
      ['otherStaff', other, 'staff'],
    ] as const) {
      keys[name] = (await createApiKey(db, { csid, role, name: `test ${name}` })).key;
    }
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: env.client, store: engine.store, taskQueue: engine.taskQueue, settings: FAST },
      verifyKey: databaseKeyVerifier(db),
      brokerage: { csid: firm, eca: engine.eca },
      database: db,
      eventStream: { pollMs: 100 },
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  after(async function () {
    await app?.close();
    await db?.close();
    engine.worker.shutdown();
    await running;
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('a Python program (standard library only) starts an application, provides a document, follows it to Open and takes the credentials once', async function () {
    const externalId = `docs-required-py-${run}`;
    await writeFile(join(dir, 'application.xml'), applicationXml(externalId));
    await writeFile(join(dir, 'w9.pdf'), pdf(`${externalId} W-9`));
    const { stdout } = await promisify(execFile)(
      'python3',
      ['test/e2e/api/onboarding_client.py', base, externalId, join(dir, 'application.xml'), join(dir, 'w9.pdf')],
      { env: { ...process.env, ECA_API_KEY: keys.onboarding, ECA_STAFF_KEY: keys.staff }, timeout: 150_000 },
    );
    const seen = JSON.parse(stdout) as Record<string, Record<string, unknown>>;
    const workflowId = applicationWorkflowId(engine.sim.csid, externalId);
    assert.deepEqual(seen.start, { status: 201, existed: false, workflowId });
    assert.deepEqual(seen.startAgain, { status: 200, existed: true });
    assert.deepEqual(seen.conflict, { status: 409, code: 'CONFLICT', type: 'urn:eca-onboarding:problem:conflict' });
    assert.equal(seen.asked?.state, 'needsDocuments');
    assert.ok((seen.asked?.forms as string[]).length > 0, 'the application asked for forms');
    assert.deepEqual(seen.provided, { status: 200, state: 'submittingDocuments' });
    assert.equal(seen.final?.state, 'open');
    assert.match(String(seen.final?.accountId), /\S/);
    assert.deepEqual(seen.credentialsWithOnboardingKey, { status: 403, code: 'FORBIDDEN' });
    assert.equal(seen.credentials?.status, 200);
    assert.ok((seen.credentials?.users as number) >= 1, 'the credentials name a user');
    assert.deepEqual(seen.credentialsAgain, { status: 404, code: 'NO_CREDENTIALS' });
    assert.deepEqual(seen.listed, { status: 200, workflowIds: [workflowId] });
    assert.deepEqual(seen.ssoLink, { status: 200, url: 'http' });
    assert.deepEqual(seen.languages, { status: 204 });
    assert.deepEqual(seen.maintenance, { status: 201, again: 200, same: true });
    assert.deepEqual(seen.maintenanceRead, { status: 200, workflowId: true });
    // The brokerage's own records: one account for the two starts and the conflicting third.
    const records = engine.sim.control.records({ externalId });
    assert.equal(records.externalIds[0]?.accountsCreated, 1);
  });

  it('an application started with the TypeScript client is the same one over HTTP, with the same answers', async function () {
    const externalId = `stalled-same-${run}`;
    const ctx = {
      client: env.client,
      store: engine.store,
      csid: engine.sim.csid,
      taskQueue: engine.taskQueue,
      settings: FAST,
    };
    const started = await startApplication(ctx, { applicationXml: applicationXml(externalId) });
    const overHttp = await call(keys.onboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(externalId),
    });
    assert.equal(overHttp.status, 200);
    assert.equal(overHttp.body?.existed, true);
    const application = overHttp.body?.application as { workflowId: string; lifecycleState: string };
    assert.equal(application.workflowId, started.workflowId);
    // Compared once it waits for the client (the stalled scenario stays there) with its deadline read; poll times move on.
    let state = await getState(ctx, externalId);
    for (let i = 0; i < 300 && (state.lifecycleState !== 'awaitingClient' || !state.deadline); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await getState(ctx, externalId);
    }
    const read = await call(keys.ops, 'GET', `/v1/applications/${externalId}`);
    const { lastPollAt: _a, nextPollAt: _b, ...viaHttp } = read.body ?? {};
    const { lastPollAt: _c, nextPollAt: _d, ...viaClient } = applicationOf(state);
    assert.equal(viaClient.lifecycleState, 'awaitingClient');
    assert.deepEqual(viaHttp, JSON.parse(JSON.stringify(viaClient)));
    // The same application written differently (attribute order, whitespace, a comment) is the same one.
    const rewritten = applicationXml(externalId, (xml) =>
      xml
        .replace('<Name first="Jane" last="Doe"/>', "<Name last='Doe'  first='Jane'></Name>")
        .replace(/>\n\s*</g, '><'),
    );
    const same = await call(keys.onboarding, 'POST', '/v1/applications', { applicationXml: `${rewritten}<!-- a -->` });
    assert.deepEqual([same.status, same.body?.existed], [200, true]);
    assert.equal((same.body?.application as { workflowId: string }).workflowId, started.workflowId);
    // Another value under the same external id: a typed conflict in TypeScript, 409 over HTTP.
    const other = applicationXml(externalId, (xml) => xml.replace('<Name first="Jane"', '<Name first="Joan"'));
    await assert.rejects(
      startApplication(ctx, { applicationXml: other }),
      (error: unknown) => error instanceof ApplicationConflictError && error.code === 'CONFLICT',
    );
    assert.equal((await call(keys.onboarding, 'POST', '/v1/applications', { applicationXml: other })).status, 409);
    await started.handle.terminate('test');

    // With an Idempotency-Key, a retry of a start is its first answer again (201, not 200 existed).
    const keyedId = `keyed-${run}`;
    const keyed = () =>
      fetch(`${base}/v1/applications`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${keys.onboarding}`,
          'content-type': 'application/json',
          'idempotency-key': `start-${keyedId}`,
        },
        body: JSON.stringify({ applicationXml: applicationXml(keyedId) }),
      });
    const first = await keyed();
    const again = await keyed();
    assert.deepEqual([first.status, again.status], [201, 201]);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.headers.get('location'), first.headers.get('location'));
    assert.deepEqual(await again.json(), await first.json());
    await env.client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, keyedId)).terminate('test');
  });

  it('refuses the very PDF the brokerage rejected with 422 DOCUMENT_REJECTED, naming the form and the rejection, and keeps asking for the form', async function () {
    const externalId = `doc-rejected-api-${run}`;
    const started = await call(keys.onboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(externalId),
    });
    assert.equal(started.status, 201);
    type Document = { formNumber: string; state: string; provided: boolean; rejectionReason?: string };
    const read = async () =>
      (await call(keys.onboarding, 'GET', `/v1/applications/${externalId}`)).body as {
        lifecycleState: string;
        documents: Document[];
      };
    const upload = (formNumber: string, variant: string) => ({
      formNumber,
      contentBase64: Buffer.from(pdf(`${externalId} ${formNumber} ${variant}`)).toString('base64'),
    });
    const provide = (...documents: ReturnType<typeof upload>[]) =>
      call(keys.onboarding, 'POST', `/v1/applications/${externalId}/documents`, { documents });
    await until('the application asks for documents', async () => (await read()).lifecycleState === 'needsDocuments');
    assert.equal((await provide(upload('8001', 'a'), upload('8002', 'a'))).status, 200);
    const proofOfAddress = (application: { documents: Document[] }) =>
      application.documents.find((document) => document.formNumber === '8002');
    await until('the brokerage rejects the proof of address', async () => {
      const application = await read();
      return application.lifecycleState === 'needsDocuments' && proofOfAddress(application)?.state === 'rejected';
    });

    // Refused once the rejection is in a task list read after the submission was decided: a read that raced
    // the decision (a loaded machine's sweep) still takes the file, as before, until the next read.
    const again = await until('the same PDF refused', async () => {
      const answer = await provide(upload('8002', 'a'));
      return answer.status === 422 ? answer : undefined;
    });
    assert.equal(again.status, 422);
    assert.equal(again.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(again.body?.code, 'DOCUMENT_REJECTED');
    assert.equal(again.body?.type, 'urn:eca-onboarding:problem:document-rejected');
    assert.match(
      String(again.body?.detail),
      /^the brokerage rejected this very PDF for form 8002 \([^)]+\): "Proof of address is older than three months"; provide a different one/,
    );
    const after = await read();
    assert.equal(after.lifecycleState, 'needsDocuments');
    assert.deepEqual(proofOfAddress(after), {
      ...proofOfAddress(after),
      state: 'rejected',
      provided: false,
      rejectionReason: 'Proof of address is older than three months',
    });

    const different = await provide(upload('8002', 'b'));
    assert.equal(different.status, 200, JSON.stringify(different.body));
    const taken = proofOfAddress(different.body as { documents: Document[] });
    assert.deepEqual([taken?.state, taken?.provided], ['provided', true]);
    await env.client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, externalId)).terminate('test');
  });

  it('runs as its own process (eca-api): ready once Temporal and the database answer, a key of the CLI works, metrics on their own listener, SIGTERM stops it', async function () {
    const database = await seededEmbeddedUrl(join(dir, 'process-database'));
    const cliEnv = { ...process.env, ECA_DATABASE_URL: database };
    const created = await promisify(execFile)(
      process.execPath,
      [
        'bin/eca.js',
        'api-keys',
        'create',
        '--csid',
        engine.sim.csid,
        '--role',
        'ops',
        '--name',
        'process test',
        '-o',
        'json',
      ],
      { env: cliEnv },
    );
    const { key } = JSON.parse(created.stdout) as { key: string };
    const api = start('eca-api', process.execPath, ['bin/eca-api.js'], {
      ECA_DATABASE_URL: database,
      TEMPORAL_ADDRESS: env.address,
      ECA_TASK_QUEUE: engine.taskQueue,
      ECA_CODEC_DISABLED: 'true',
      ECA_DOCUMENT_STORE: join(dir, 'process-documents'),
      ECA_API_PORT: '0',
      ECA_METRICS_ADDRESS: '127.0.0.1:0',
    });
    try {
      const [, address, metricsUrl] = await api.waitFor(
        /eca api on (http:\/\/\S+) .*metrics at (http:\/\/\S+)\)/,
        60_000,
      );
      assert.equal((await fetch(`${address}/readyz`)).status, 200);
      const listed = await fetch(`${address}/v1/applications?pageSize=1`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(listed.status, 200, await listed.text());
      const unknown = await fetch(`${address}/v1/applications/secret-reference-${run}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(unknown.status, 404);
      assert.equal((await fetch(`${address}/v1/applications`)).status, 401);
      assert.equal((await fetch(`${address}/v1/applications/%E0%A4%A`)).status, 400, 'a malformed URL');
      // The metrics are on their own listener, never on the API's port (which the gateway publishes).
      assert.equal((await fetch(`${address}/metrics`)).status, 404);
      const metrics = await (await fetch(metricsUrl!)).text();
      const requests = (labels: Record<string, string>) =>
        metrics
          .split('\n')
          .filter((line) => line.startsWith('eca_api_requests{'))
          .filter((line) => Object.entries(labels).every(([name, value]) => line.includes(`${name}="${value}"`)))
          .map((line) => Number(line.split(' ').at(-1)));
      const csid = engine.sim.csid;
      assert.deepEqual(requests({ csid, route: '/v1/applications', method: 'GET', status: '200', code: '' }), [1]);
      assert.deepEqual(
        requests({ csid, route: '/v1/applications/:reference', status: '404', code: 'UNKNOWN_APPLICATION' }),
        [1],
      );
      assert.deepEqual(requests({ csid: '', route: '/v1/applications', status: '401', code: 'UNAUTHENTICATED' }), [1]);
      assert.deepEqual(requests({ csid: '', route: 'unmatched', status: '404', code: 'NOT_FOUND' }), [1]);
      assert.deepEqual(requests({ csid: '', route: '/readyz', status: '200' }), [1]);
      assert.deepEqual(requests({ route: 'unmatched', status: '400', code: 'INVALID_INPUT' }), [1]);
      // The list and the request without a key: two answers of GET /v1/applications timed.
      assert.match(metrics, /^eca_api_request_duration_ms_count\{route="\/v1\/applications",method="GET"\} 2$/m);
      assert.match(metrics, /^process_resident_memory_bytes \d+/m);
      assert.doesNotMatch(metrics, new RegExp(`secret-reference|${key}`), 'an id or the key in the metrics');
      // While the service owns the embedded database, the CLI reaches it through the service's socket.
      const list = await promisify(execFile)(
        process.execPath,
        ['bin/eca.js', 'api-keys', 'list', '--all-firms', '-o', 'json'],
        {
          env: cliEnv,
        },
      );
      assert.match(list.stdout, /process test/);
      const report = await api.stop('SIGTERM');
      assert.equal(report.wasRunning, true);
      assert.deepEqual(report.survivors, []);
      assert.equal(await api.exited, 0, api.output);
      assert.match(api.output, /eca api stopped/);
    } finally {
      await api.stop('SIGKILL');
    }
  });

  it("runs docs/integrate.md's curl examples as they are written", async function () {
    const guide = await readFile('docs/integrate.md', 'utf8');
    const block = /<!-- http-examples[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/http-examples -->/.exec(guide)?.[1];
    assert.ok(block, "docs/integrate.md's http-examples block");
    const externalId = `stalled-integrate-${run}`;
    const cwd = await mkdtemp(join(dir, 'integrate-'));
    await writeFile(join(cwd, 'application.xml'), applicationXml(externalId));
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', block], {
      cwd,
      env: { ...process.env, ECA_API: base, ECA_API_KEY: keys.onboarding, EXTERNAL_ID: externalId },
    });
    const workflowId = applicationWorkflowId(engine.sim.csid, externalId);
    assert.match(stdout, /^\{"existed":false,"application":\{"workflowId":"[^"]+"/);
    assert.equal(stdout.split(`"workflowId":"${workflowId}"`).length - 1, 3, 'started, read and listed');
    assert.match(stdout, /\{"applications":\[/);
    await env.client.workflow.getHandle(workflowId).terminate('test');
  });

  it("an application's events: streamed by any of its references until it is open, the same as a page, none for another firm", async function () {
    const externalId = `happy-events-${run}`;
    const started = await call(keys.onboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(externalId),
    });
    assert.equal(started.status, 201);
    const { workflowId } = started.body?.application as { workflowId: string };
    const stop = new AbortController();
    const streamed: string[] = [];
    for await (const { event } of followEvents({
      url: base,
      apiKey: keys.ops!,
      after: 'start',
      externalId: workflowId,
      signal: stop.signal,
    })) {
      assert.equal(event.externalId, externalId);
      streamed.push(event.type);
      if (event.type === 'application.open') break;
    }
    stop.abort();
    assert.deepEqual(streamed.slice(0, 3), ['application.validating', 'application.validated', 'application.created']);
    const page = await call(keys.onboarding, 'GET', `/v1/applications/${externalId}/events?after=start`);
    const events = (page.body?.events as Array<{ event: { type: string; seq: number } }>).map((item) => item.event);
    assert.deepEqual(
      events.map((event) => event.type),
      streamed,
    );
    assert.deepEqual(
      events.map((event) => event.seq),
      streamed.map((_, i) => i + 1),
    );
    // The firm's stream holds it too; another firm's key finds neither the application nor its events.
    const firm = await call(keys.ops, 'GET', `/v1/events?after=start&limit=500`);
    assert.ok(
      (firm.body?.events as Array<{ event: { externalId: string } }>).some(
        (item) => item.event.externalId === externalId,
      ),
    );
    const other = await call(keys.otherOnboarding, 'GET', `/v1/events?after=start`);
    assert.deepEqual(other.body?.events, []);
    const hidden = await call(keys.otherOnboarding, 'GET', `/v1/applications/${externalId}/events`);
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body?.code, 'UNKNOWN_APPLICATION');
  });

  it("runs docs/integrate.md's event stream example: the firm's events, each with its cursor as id", async function () {
    const guide = await readFile(new URL('../../../docs/integrate.md', import.meta.url), 'utf8');
    const block = /<!-- sse-example[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/sse-example -->/.exec(guide)?.[1];
    assert.ok(block, "docs/integrate.md's sse-example block");
    // An application of the firm with an event in the log before the stream is read.
    const externalId = `stalled-sse-${run}`;
    assert.equal(
      (await call(keys.onboarding, 'POST', '/v1/applications', { applicationXml: applicationXml(externalId) })).status,
      201,
    );
    await eventsWritten(externalId);
    // The stream never ends by itself: read it for a few seconds (timeout's exit code, 124, is expected).
    const output = await new Promise<string>((resolve) => {
      execFile(
        'timeout',
        ['4', 'bash', '-euo', 'pipefail', '-c', block],
        { env: { ...process.env, ECA_API: base, ECA_API_KEY: keys.ops } },
        (_error, stdout) => resolve(stdout),
      );
    });
    assert.match(output, /^retry: \d+\nid: 0-0\n\n/);
    assert.match(output, /id: \d+-\d+\nevent: application\.validating\ndata: \{"id":"evt_/);
  });

  it("runs the README tour's requests: the firm's applications, one of them, and its event stream", async function () {
    const readme = await readFile('README.md', 'utf8');
    const tour = /^## A five-minute tour\n([\s\S]*?)^## /m.exec(readme)?.[1];
    assert.ok(tour, "the README's tour");
    const blocks = [...tour.matchAll(/```sh\n([\s\S]*?)```/g)]
      .map((match) => match[1]!)
      .filter((block) => block.includes('curl'));
    assert.equal(blocks.length, 2, 'the API block and the event stream block');
    const externalId = `stalled-tour-${run}`;
    assert.equal(
      (await call(keys.onboarding, 'POST', '/v1/applications', { applicationXml: applicationXml(externalId) })).status,
      201,
    );
    const env = { ...process.env, ECA_API: base, ECA_API_KEY: keys.onboarding, EXTERNAL_ID: externalId };
    const { stdout: answers } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', blocks[0]!], { env });
    assert.match(answers, /^\{"applications":\[/);
    // The page of the firm's applications, then the one read by EXTERNAL_ID.
    assert.match(answers, new RegExp(`\\}\\{"workflowId":"${applicationWorkflowId(engine.sim.csid, externalId)}"`));
    await eventsWritten(externalId);
    // The stream never ends by itself: read it for a few seconds (timeout's exit code, 124, is expected).
    const stream = await new Promise<string>((resolve) => {
      execFile('timeout', ['4', 'bash', '-euo', 'pipefail', '-c', blocks[1]!], { env }, (_error, stdout) =>
        resolve(stdout),
      );
    });
    assert.match(stream, /^retry: \d+\nid: 0-0\n\n/);
    assert.match(stream, /id: \d+-\d+\nevent: application\.\w+\ndata: \{"id":"evt_/);
  });

  it("a key of another firm never sees nor changes the firm's applications, on any route", async function () {
    const externalId = `stalled-scope-${run}`;
    const started = await call(keys.onboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(externalId),
    });
    assert.equal(started.status, 201);
    const application = started.body?.application as { workflowId: string };
    const before = await call(keys.ops, 'GET', `/v1/applications/${externalId}`);
    const document = (await call(undefined, 'GET', '/openapi.json')).body as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const tried: string[] = [];
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.includes('{reference}')) continue;
      for (const [method, operation] of Object.entries(operations)) {
        for (const reference of [externalId, application.workflowId]) {
          const url = path.replace('{reference}', encodeURIComponent(reference));
          const body = method === 'get' ? undefined : bodyFor(operation.operationId, externalId);
          const answer = await call(keys.otherStaff, method.toUpperCase(), url, body);
          assert.equal(answer.status, 404, `${operation.operationId} ${reference}: ${JSON.stringify(answer.body)}`);
          assert.equal(answer.body?.code, 'UNKNOWN_APPLICATION');
          tried.push(operation.operationId);
        }
      }
    }
    // The firm's maintenance request, read by workflow id with the other firm's key.
    const [accountId] = engine.sim.control.seedAccounts({ count: 1, csid: engine.sim.csid, prefix: `scope-${run}-` });
    const request = { firmType: 'advisor', functionName: 'ChangeBaseCurrency', body: '<Currency>CHF</Currency>' };
    // An account the brokerage does not list for the firm is refused before any workflow starts.
    const updatesBefore = engine.sim.control.calls().update ?? 0;
    const notOurs = await call(keys.onboarding, 'POST', '/v1/maintenance-requests', {
      ...request,
      accountId: 'U0000000',
    });
    assert.equal(notOurs.status, 404, JSON.stringify(notOurs.body));
    assert.equal(notOurs.body?.field, 'accountId');
    assert.equal(engine.sim.control.calls().update ?? 0, updatesBefore, 'no update was sent');
    const maintenance = await call(keys.onboarding, 'POST', '/v1/maintenance-requests', { ...request, accountId });
    assert.equal(maintenance.status, 201, JSON.stringify(maintenance.body));
    const runId = String(maintenance.body?.workflowId);
    for (const [path, operations] of Object.entries(document.paths)) {
      if (!path.includes('{workflowId}')) continue;
      for (const operation of Object.values(operations)) {
        const answer = await call(keys.otherStaff, 'GET', path.replace('{workflowId}', encodeURIComponent(runId)));
        assert.equal(answer.status, 404, `${operation.operationId}: ${JSON.stringify(answer.body)}`);
        tried.push(operation.operationId);
      }
    }
    const runs = await call(keys.otherStaff, 'GET', '/v1/maintenance-requests');
    assert.deepEqual(runs.body?.runs, []);
    // The service holds brokerage keys for the firm only: the other firm's key gets no SSO link.
    const sso = await call(keys.otherOnboarding, 'POST', '/v1/sso-links', { userName: 'someone', ip: '203.0.113.7' });
    assert.equal(sso.status, 403);
    // Left running it would poll on; it may have ended already (the request decided): nothing to end then.
    await env.client.workflow
      .getHandle(runId)
      .terminate('test')
      .catch((error: unknown) => {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      });
    assert.ok(new Set(tried).size >= 10, `operations tried: ${[...new Set(tried)].join(', ')}`);
    const listed = await call(keys.otherStaff, 'GET', `/v1/applications?externalId=${externalId}`);
    assert.deepEqual(listed.body?.applications, []);
    // Starting the same external id with the other firm's key makes the other firm's own application.
    const theirs = await call(keys.otherOnboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(externalId),
    });
    assert.equal(theirs.status, 201);
    assert.notEqual((theirs.body?.application as { workflowId: string }).workflowId, application.workflowId);
    await env.client.workflow
      .getHandle((theirs.body?.application as { workflowId: string }).workflowId)
      .terminate('test');
    const after = await call(keys.ops, 'GET', `/v1/applications/${externalId}`);
    assert.deepEqual(
      (after.body?.transitions as unknown[]).slice(0, (before.body?.transitions as unknown[]).length),
      before.body?.transitions,
    );
    assert.equal(after.body?.lifecycleState === 'abandoning' || after.body?.lifecycleState === 'abandoned', false);
    await env.client.workflow.getHandle(application.workflowId).terminate('test');
  });

  it('answers problems: no key, a wrong or revoked key, a role that may not, an invalid body, with the request id', async function () {
    const none = await call(undefined, 'GET', '/v1/applications');
    assert.equal(none.status, 401);
    assert.equal(none.headers.get('www-authenticate'), 'Bearer realm="eca"');
    assert.equal(none.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    assert.equal(none.body?.code, 'UNAUTHENTICATED');
    assert.equal(none.body?.requestId, none.headers.get('x-request-id'));
    assert.equal((await call(`${keys.ops}x`, 'GET', '/v1/applications')).status, 401);
    const { key, record } = await createApiKey(db, { csid: engine.sim.csid, role: 'staff', name: 'revoked' });
    assert.equal((await call(key, 'GET', '/v1/applications')).status, 200);
    await revokeApiKey(db, record.id);
    assert.equal((await call(key, 'GET', '/v1/applications')).status, 401);
    const ops = await call(keys.ops, 'POST', '/v1/applications', {
      applicationXml: applicationXml(`happy-ops-${run}`),
    });
    assert.equal(ops.status, 403);
    assert.equal(ops.body?.code, 'FORBIDDEN');
    const invalid = await call(keys.onboarding, 'POST', '/v1/applications', {
      applicationXml: applicationXml(`happy-bad-${run}`),
      documents: [{ formNumber: 'W9', contentBase64: 'JVBERi0=' }],
    });
    assert.equal(invalid.status, 400);
    assert.equal(invalid.body?.code, 'INVALID_INPUT');
    assert.equal(invalid.body?.field, 'body.documents.0.formNumber');
    const notXml = await call(keys.onboarding, 'POST', '/v1/applications', { applicationXml: '/etc/passwd' });
    assert.equal(notXml.status, 400, 'a path is never read as a file');
    assert.equal(notXml.body?.code, 'INVALID_INPUT');
    const traced = await fetch(`${base}/v1/applications`, { headers: { 'x-request-id': 'trace-42' } });
    assert.equal(traced.headers.get('x-request-id'), 'trace-42');
    assert.equal(((await traced.json()) as { requestId: string }).requestId, 'trace-42');
  });

  it('answers a start whose document store fails with 500 INTERNAL, saying nothing of the error', async function () {
    // A store whose root is a file: every put fails, as a full or broken disk would.
    await writeFile(join(dir, 'not-a-directory'), '');
    const broken = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: env.client,
        store: new FileDocumentStore(join(dir, 'not-a-directory')),
        taskQueue: engine.taskQueue,
      },
      verifyKey: databaseKeyVerifier(db),
      database: db,
    });
    try {
      const externalId = `happy-store-${run}`;
      // An applicant's application: the run's log watch checks that the failure's line holds none of it.
      const person = applicant('apistore', randomBytes(4).toString('hex'));
      const answer = await broken.inject({
        method: 'POST',
        url: '/v1/applications',
        headers: { authorization: `Bearer ${keys.onboarding}`, 'content-type': 'application/json' },
        payload: { applicationXml: personalXml(externalId, person) },
      });
      assert.equal(answer.statusCode, 500, answer.body);
      const problem = answer.json<{ code: string; detail: string; requestId: string }>();
      assert.equal(problem.code, 'INTERNAL');
      assert.equal(problem.detail, 'an unexpected error; the request id is in the service log');
      assert.doesNotMatch(answer.body, /not-a-directory|ENOTDIR|EEXIST/);
      assert.equal(problem.requestId, answer.headers['x-request-id']);
      // Nothing was started.
      await assert.rejects(
        env.client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, externalId)).describe(),
        { name: 'WorkflowNotFoundError' },
      );
    } finally {
      await broken.close();
    }
  });

  it('limits requests per key, refuses a body over the limit while it streams in, and pages the list with a cursor bound to its filter', async function () {
    const small = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: env.client, store: engine.store, taskQueue: engine.taskQueue },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      bodyLimit: 4096,
      rateLimitPerMinute: 3,
    });
    try {
      const list = (key: string) =>
        small.inject({
          method: 'GET',
          url: '/v1/applications?pageSize=1',
          headers: { authorization: `Bearer ${key}` },
        });
      for (let i = 0; i < 3; i++) assert.equal((await list(keys.ops!)).statusCode, 200);
      const limited = await list(keys.ops!);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json<{ code: string }>().code, 'RATE_LIMITED');
      assert.match(String(limited.headers['retry-after']), /^\d+$/);
      assert.equal((await list(keys.staff!)).statusCode, 200, 'the limit is per key');
      assert.equal((await small.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      const answer = await small.inject({
        method: 'POST',
        url: '/v1/applications',
        headers: { authorization: `Bearer ${keys.onboarding}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ applicationXml: 'x'.repeat(10_000) }),
      });
      assert.equal(answer.statusCode, 413);
      assert.equal(answer.json<{ code: string }>().code, 'PAYLOAD_TOO_LARGE');
    } finally {
      await small.close();
    }
    for (const n of [1, 2, 3]) {
      const started = await call(keys.onboarding, 'POST', '/v1/applications', {
        applicationXml: applicationXml(`stalled-page${n}-${run}`),
      });
      assert.equal(started.status, 201);
    }
    // The list reads Temporal's visibility, which shows a start a moment later.
    const names = [1, 2, 3].map((n) => applicationWorkflowId(engine.sim.csid, `stalled-page${n}-${run}`));
    await until('the three applications listed', async () => {
      const all = await call(keys.ops, 'GET', '/v1/applications?pageSize=100');
      const listed = new Set(
        (all.body?.applications as Array<{ workflowId: string }>).map((entry) => entry.workflowId),
      );
      return names.every((name) => listed.has(name));
    });
    const seen = new Set<string>();
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(keys.ops, 'GET', `/v1/applications?pageSize=1${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      for (const entry of page.body?.applications as Array<{ workflowId: string }>) seen.add(entry.workflowId);
      cursor = page.body?.cursor as string | undefined;
      pages++;
      if (pages === 1 && cursor) {
        const misuse = await call(keys.ops, 'GET', `/v1/applications?pageSize=1&running=true&cursor=${cursor}`);
        assert.equal(misuse.status, 400);
        assert.equal(misuse.body?.field, 'cursor');
      }
    } while (cursor && pages < 50);
    for (const name of names) assert.ok(seen.has(name), `${name} on no page`);
    assert.ok(pages >= 3, `${pages} pages of 1`);
    for (const id of seen)
      await env.client.workflow
        .getHandle(id)
        .terminate('test')
        .catch(() => undefined);
  });
});

/** A valid body for each message route, so that a refusal is about the firm, never the input. */
function bodyFor(operationId: string, externalId: string): unknown {
  switch (operationId) {
    case 'provideDocuments':
      return { documents: [{ formNumber: '8001', contentBase64: Buffer.from(pdf('x')).toString('base64') }] };
    case 'resubmitApplication':
      return { applicationXml: applicationXml(externalId) };
    case 'abandonApplication':
      return { reason: 'another firm' };
    default:
      return {};
  }
}

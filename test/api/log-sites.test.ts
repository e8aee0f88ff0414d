/**
 * The API's log call sites that only a failure reaches, each forced with real parts and read by the run's
 * log watch (test/support/log-watch.ts), which fails the run on any line holding an applicant's data:
 *
 * - `request failed`: an application XML full of an applicant's data is posted to a service whose document
 *   store fails, so the request ends in `500 INTERNAL`, logged with its error through the engine's logger;
 * - `the caller closed the connection before the answer`: a caller posts an applicant's application to a
 *   service whose Temporal cannot be reached (the start waits on the client's retries) and leaves once the
 *   application is stored;
 * - `webhook delivery not told of the deletion`: an endpoint of an embedded PostgreSQL is deleted while
 *   Temporal cannot be reached: the stop signal's call deadline passes, and the deletion stands;
 * - `event stream ended`: the embedded database closes under an open server-sent event stream, so the
 *   stream's next read of the event log fails and the stream ends.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/server.js';
import type { ApiOptions } from '../../api/server.js';
import { openDatabase } from '../../runtime/database/index.js';
import type { Database } from '../../runtime/database/index.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { WebhookEndpoints } from '../../runtime/webhooks.js';
import { applicant, personalXml } from '../support/history-privacy.js';
import { logWatch, siteLines, watchedLogger } from '../support/log-watch.js';
import { until } from '../support/until.js';

describe("the API's failure lines: a store that fails, a caller that leaves, a Temporal out of reach, a database that closes", function () {
  this.timeout(60_000);
  let dir: string;
  let connection: Connection;
  const apps: FastifyInstance[] = [];
  const databases: Database[] = [];

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-api-log-sites-'));
    // Nothing listens there: every call waits on the client's retries (about 20 s) or its deadline.
    connection = Connection.lazy({ address: '127.0.0.1:1' });
  });

  after(async function () {
    for (const app of apps) await app.close();
    // The connection stays open: a start the caller left keeps retrying in the background (about 20 s), and a
    // retry timer that fires on a closed connection throws where no test can catch it.
    for (const database of databases) await database.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The API with a working document store (unless `options` give another), a staff key `k` of FIRM-LOG and Temporal out of reach. */
  async function serve(options: Partial<ApiOptions> = {}): Promise<{ app: FastifyInstance; url: string }> {
    const app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid: 'FIRM-LOG', role: 'staff' } : undefined),
      ...options,
    });
    apps.push(app);
    return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
  }

  async function database(name: string): Promise<Database> {
    const opened = await openDatabase(`pglite:${join(dir, name)}`);
    databases.push(opened);
    return opened;
  }

  /** Whether the document store holds a file: a start stores its application before it calls Temporal. */
  async function stored(): Promise<boolean> {
    try {
      return (await readdir(join(dir, 'documents'), { recursive: true, withFileTypes: true })).some((entry) =>
        entry.isFile(),
      );
    } catch {
      return false;
    }
  }

  it('logs the failure of a start, not the application it carried', async function () {
    // A store whose root is a file: every put fails, as a full or broken disk would.
    await writeFile(join(dir, 'not-a-directory'), '');
    const { app } = await serve({
      engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'not-a-directory')) },
    });
    const person = applicant('apilog', randomBytes(4).toString('hex'));
    const before = siteLines('api/problems.ts', /^request failed: /);
    const findings = logWatch.findings.length;
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/applications',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      payload: { applicationXml: personalXml(`apilog-${randomBytes(4).toString('hex')}`, person) },
    });
    assert.equal(answer.statusCode, 500, answer.body);
    assert.equal(answer.json<{ code: string }>().code, 'INTERNAL');
    assert.equal(siteLines('api/problems.ts', /^request failed: /) - before, 1);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });

  it("logs a caller that left before the answer, not the applicant's data its request carried", async function () {
    const { url } = await serve();
    const person = applicant('apigone', randomBytes(4).toString('hex'));
    const site = /^the caller closed the connection before the answer$/;
    const before = siteLines('api/problems.ts', site);
    const findings = logWatch.findings.length;
    const caller = new AbortController();
    const answer = fetch(`${url}/v1/applications`, {
      method: 'POST',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      body: JSON.stringify({ applicationXml: personalXml(`apigone-${randomBytes(4).toString('hex')}`, person) }),
      signal: caller.signal,
    });
    // The application is stored: the request now waits on Temporal, which never answers in time.
    await until('the application stored', stored);
    caller.abort();
    await assert.rejects(answer, { name: 'AbortError' });
    await until('the line of the caller that left', () => siteLines('api/problems.ts', site) > before);
    assert.equal(siteLines('api/problems.ts', site) - before, 1);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });

  it('deletes an endpoint whose delivery workflow cannot be told, and logs that it was not', async function () {
    const db = await database('webhooks-database');
    const { app } = await serve({ database: db, callTimeoutMs: 300 });
    const endpoints = new WebhookEndpoints(db);
    const { endpoint } = await endpoints.register({ csid: 'FIRM-LOG', url: 'https://receiver.example/eca' });
    const site = /^webhook delivery not told of the deletion$/;
    const before = siteLines('api/webhooks.ts', site);
    const findings = logWatch.findings.length;
    const answer = await app.inject({
      method: 'DELETE',
      url: `/v1/webhooks/${endpoint.id}`,
      headers: { authorization: 'Bearer k' },
    });
    assert.equal(answer.statusCode, 204, answer.body);
    assert.equal((await endpoints.get('FIRM-LOG', endpoint.id))?.state, 'deleted');
    assert.equal(siteLines('api/webhooks.ts', site) - before, 1);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });

  it('ends an event stream whose database closed, and logs that it ended', async function () {
    const db = await database('stream-database');
    const { url } = await serve({ database: db, eventStream: { pollMs: 50 } });
    const site = /^event stream ended$/;
    const before = siteLines('api/events.ts', site);
    const findings = logWatch.findings.length;
    const response = await fetch(`${url}/v1/events`, {
      headers: { authorization: 'Bearer k', accept: 'text/event-stream' },
    });
    assert.equal(response.status, 200);
    assert.ok(response.body);
    const reader = response.body.getReader();
    // The stream's first frame (its retry and starting id): the stream is open and reads the log.
    const first = (await reader.read()).value as Uint8Array | undefined;
    assert.match(new TextDecoder().decode(first), /^retry: \d+\nid: /);
    await db.close();
    await until('the line of the stream that ended', () => siteLines('api/events.ts', site) > before);
    // The service ends the response: the client reconnects with its last id.
    while (!(await reader.read()).done);
    assert.equal(siteLines('api/events.ts', site) - before, 1);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });
});

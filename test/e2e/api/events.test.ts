import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { Client, Connection } from '@temporalio/client';
import { buildApi } from '../../../api/server.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { EventStreamRefused, followEvents } from '../../../client/event-stream.js';
import type { FollowedEvent } from '../../../client/event-stream.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { createApiKey, revokeApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { EventLog, formatCursor } from '../../../runtime/events.js';
import type { NewEvent } from '../../../runtime/events.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('onboarding API: lifecycle events (SSE and pages, embedded database)', function () {
  this.timeout(60_000);
  let dir: string;
  let db: Database;
  let log: EventLog;
  let connection: Connection;
  let keys: { firmA: string; firmB: string };
  const apps: FastifyInstance[] = [];

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-events-api-'));
    db = await openSeededDatabase(join(dir, 'database'));
    log = new EventLog(db);
    connection = Connection.lazy({ address: '127.0.0.1:1' });
    keys = {
      firmA: (await createApiKey(db, { csid: 'FIRM-A', role: 'ops', name: 'a' })).key,
      firmB: (await createApiKey(db, { csid: 'FIRM-B', role: 'onboarding', name: 'b' })).key,
    };
  });

  after(async function () {
    for (const app of apps) await app.close();
    await connection?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function serve(): Promise<{ app: FastifyInstance; url: string }> {
    const app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      eventStream: { pollMs: 50, heartbeatMs: 200 },
    });
    apps.push(app);
    return { app, url: await app.listen({ host: '127.0.0.1', port: 0 }) };
  }

  let seq = 0;
  function event(csid: string, externalId: string): NewEvent {
    seq++;
    return {
      application: `wf-${externalId}/run`,
      seq,
      type: 'application.needs_documents',
      csid,
      externalId,
      from: 'tracking',
      to: 'needsDocuments',
      at: Date.now(),
      data: { tasks: ['8001'] },
    };
  }

  async function collect(
    stream: AsyncGenerator<FollowedEvent>,
    count: number,
    received: FollowedEvent[] = [],
  ): Promise<FollowedEvent[]> {
    for await (const followed of stream) {
      received.push(followed);
      if (received.length === count) break;
    }
    return received;
  }

  it("streams the firm's events only, from a cursor, and resumes after a restart of the service without a gap", async function () {
    const first = await serve();
    await log.append([event('FIRM-A', 'A-1'), event('FIRM-B', 'B-1'), event('FIRM-A', 'A-2')]);
    const controller = new AbortController();
    const reconnects: string[] = [];
    const stream = followEvents({
      url: first.url,
      apiKey: keys.firmA,
      after: 'start',
      signal: controller.signal,
      onReconnect: (reason) => reconnects.push(reason),
    });
    const received = await collect(stream, 2);
    assert.deepEqual(
      received.map((followed) => followed.event.externalId),
      ['A-1', 'A-2'],
    );

    // The service goes away; events are written meanwhile; a new one on another port has the same log.
    await first.app.close();
    await log.append([event('FIRM-A', 'A-3'), event('FIRM-A', 'A-4')]);
    const second = await serve();
    const resumed = followEvents({ url: second.url, apiKey: keys.firmA, after: received[1]!.cursor });
    const more = await collect(resumed, 2);
    assert.deepEqual(
      more.map((followed) => followed.event.externalId),
      ['A-3', 'A-4'],
    );
    assert.ok(more.every((followed) => followed.event.csid === 'FIRM-A'));
    controller.abort();
    // The first reader saw its service close and tried again.
    await stream.return(undefined);
    assert.equal(new Set(more.map((followed) => followed.event.id)).size, 2);
  });

  it('a reader that connected before any event misses none of those written while it reconnects', async function () {
    const { url, app } = await serve();
    const controller = new AbortController();
    const stream = followEvents({ url, apiKey: keys.firmB, signal: controller.signal, maxBackoffMs: 100 });
    // Starts at "now": connects, learns the cursor, then the service restarts before anything is written.
    const pending = collect(stream, 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await app.close();
    await log.append([event('FIRM-B', 'B-2'), event('FIRM-B', 'B-3')]);
    // Same port is not guaranteed: the reader keeps trying the old URL, so serve there again.
    const port = Number(new URL(url).port);
    const again = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      eventStream: { pollMs: 50 },
    });
    apps.push(again);
    await again.listen({ host: '127.0.0.1', port });
    const received = await pending;
    controller.abort();
    assert.deepEqual(
      received.map((followed) => followed.event.externalId),
      ['B-2', 'B-3'],
    );
  });

  it('answers pages of JSON and refuses a malformed cursor (one application at a time: test/e2e/api/api.test.ts)', async function () {
    const { url } = await serve();
    const headers = { authorization: `Bearer ${keys.firmA}` };
    const page = (await (await fetch(`${url}/v1/events?after=start&limit=2`, { headers })).json()) as {
      events: Array<{ cursor: string; event: { externalId: string } }>;
      cursor: string;
    };
    assert.equal(page.events.length, 2);
    const next = (await (await fetch(`${url}/v1/events?after=${page.cursor}&limit=100`, { headers })).json()) as {
      events: Array<{ event: { externalId: string; csid: string } }>;
    };
    assert.ok(next.events.length >= 2);
    assert.ok(next.events.every((item) => item.event.csid === 'FIRM-A'));
    // Not a cursor, or one past what the log's columns hold (a query error, 500, before): 400 naming it.
    for (const after of ['yesterday', '18446744073709551616-1', '1-9223372036854775808']) {
      const bad = await fetch(`${url}/v1/events?after=${after}`, { headers });
      assert.equal(bad.status, 400, after);
      const problem = (await bad.json()) as { field: string; detail: string };
      assert.equal(problem.field, 'querystring.after');
      assert.match(problem.detail, /is not `start`, `now` or an event cursor/);
    }
    for (const lastEventId of ['x', '99999999999999999999-1']) {
      const stale = await fetch(`${url}/v1/events`, {
        headers: { ...headers, accept: 'text/event-stream', 'last-event-id': lastEventId },
      });
      assert.equal(stale.status, 400, lastEventId);
      assert.equal(((await stale.json()) as { field: string }).field, 'headers.last-event-id');
    }
    const anonymous = await fetch(`${url}/v1/events`);
    assert.equal(anonymous.status, 401);
  });

  it('sends a comment line on a quiet stream, and closing the service ends its streams', async function () {
    const { url, app } = await serve();
    const response = await fetch(`${url}/v1/events`, {
      headers: { authorization: `Bearer ${keys.firmA}`, accept: 'text/event-stream' },
    });
    assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    let text = '';
    while (!text.includes(': keep-alive')) {
      const chunk = await chunks.next();
      text += decoder.decode(chunk.done ? undefined : chunk.value, { stream: true });
    }
    assert.match(text, /^retry: \d+\nid: \d+-\d+\n\n/);
    const closed = app.close();
    for (;;) if ((await chunks.next()).done) break;
    await closed;
  });

  it('ends a stream whose key is revoked with an error event, within a second or two (no key cache here)', async function () {
    const { url } = await serve();
    const { key, record } = await createApiKey(db, { csid: 'FIRM-A', role: 'ops', name: 'revoked-while-streaming' });
    const response = await fetch(`${url}/v1/events?after=now`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    assert.equal(response.status, 200);
    const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
    const decoder = new TextDecoder();
    let text = '';
    // While the key stands, the firm's events come.
    await log.append([event('FIRM-A', 'REVOKE-1')]);
    while (!text.includes('REVOKE-1')) {
      const chunk = await chunks.next();
      assert.ok(!chunk.done, `the stream ended before its event: ${text}`);
      text += decoder.decode(chunk.value, { stream: true });
    }
    await revokeApiKey(db, record.id);
    const revokedAt = Date.now();
    for (;;) {
      const chunk = await chunks.next();
      if (chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
    const ended = Date.now() - revokedAt;
    assert.ok(ended < 5_000, `ended ${ended} ms after the revocation`);
    assert.match(
      text,
      /event: error\ndata: \{"code":"UNAUTHENTICATED","detail":"the API key is unknown or revoked"\}\n\n$/,
    );
    // A reconnection with it is refused.
    const again = await fetch(`${url}/v1/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    assert.equal(again.status, 401);
  });

  it("followEvents stops on a revoked key with the service's detail, without reconnecting", async function () {
    const { url } = await serve();
    const { key, record } = await createApiKey(db, { csid: 'FIRM-A', role: 'ops', name: 'followed-then-revoked' });
    const reconnects: string[] = [];
    // From the log's end now: the generator connects on its first next(), after the event is written.
    const after = formatCursor(await log.end('FIRM-A'));
    const stream = followEvents({ url, apiKey: key, after, onReconnect: (reason) => reconnects.push(reason) });
    await log.append([event('FIRM-A', 'REVOKE-2')]);
    const first = await stream.next();
    assert.equal(first.done ? undefined : first.value.event.externalId, 'REVOKE-2');
    await revokeApiKey(db, record.id);
    await assert.rejects(
      stream.next(),
      (error: unknown) =>
        error instanceof EventStreamRefused &&
        error.status === 401 &&
        /the API key is unknown or revoked/.test(error.message),
    );
    assert.deepEqual(reconnects, []);
  });

  it('ends an event stream whose database closed under it, and goes on serving', async function () {
    // A database of the stream's own, closed while the stream reads it.
    const closing = await openSeededDatabase(join(dir, 'stream-database'));
    try {
      const app = await buildApi({
        logger: watchedLogger('eca-api'),
        engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'documents')) },
        verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid: 'FIRM-A', role: 'ops' } : undefined),
        database: closing,
        eventStream: { pollMs: 50 },
      });
      apps.push(app);
      const url = await app.listen({ host: '127.0.0.1', port: 0 });
      const response = await fetch(`${url}/v1/events`, {
        headers: { authorization: 'Bearer k', accept: 'text/event-stream' },
      });
      assert.equal(response.status, 200);
      const chunks = (response.body as unknown as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
      // The stream's first frame (its retry and starting id): the stream is open and reads the log.
      const first = await chunks.next();
      assert.match(new TextDecoder().decode(first.done ? undefined : first.value), /^retry: \d+\nid: /);
      await closing.close();
      // The service ends the response (a client reconnects with its last id), and answers the next request.
      for (;;) if ((await chunks.next()).done) break;
      assert.equal((await fetch(`${url}/v1/events`)).status, 401);
    } finally {
      // A second close does nothing; a test that failed before the close closes it here.
      await closing.close();
    }
  });

  it('`eca events tail` prints the events from a cursor, as lines or JSON, and says what is missing', async function () {
    const { url } = await serve();
    const eca = (args: string[], env: Record<string, string> = {}) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        const { ECA_API_URL: _url, ECA_API_KEY: _key, ECA_OUTPUT: _output, ...inherited } = process.env;
        execFile(
          process.execPath,
          [fileURLToPath(new URL('../../../bin/eca.js', import.meta.url)), 'events', 'tail', ...args],
          { env: { ...inherited, NO_COLOR: '1', ...env } },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });
    const lines = await eca(['--after', 'start', '--count', '2', '--api-url', url], { ECA_API_KEY: keys.firmA });
    assert.equal(lines.code, 0, lines.stderr);
    assert.match(
      lines.stdout,
      /^\S+ {2}A-1 {2}needs_documents {2}tracking → needsDocuments {2}tasks 8001\n\S+ {2}A-2 /,
    );
    const one = await eca(['--after', 'start', '--count', '1', '-o', 'jsonl'], {
      ECA_API_URL: url,
      ECA_API_KEY: keys.firmA,
    });
    const parsed = JSON.parse(one.stdout) as { cursor: string; event: { externalId: string } };
    assert.equal(parsed.event.externalId, 'A-1');
    assert.match(parsed.cursor, /^\d+-\d+$/);
    const missing = await eca(['--api-url', url]);
    assert.equal(missing.code, 3);
    assert.match(missing.stderr, /--api-key/);
    const refused = await eca(['--api-url', url, '--api-key', 'eca_aaaaaaaaaaaa_' + 'a'.repeat(43)]);
    assert.equal(refused.code, 11);
    assert.match(refused.stderr, /unknown or revoked/);
    // An API that is not there ends the command at once, as for the other commands through the API.
    const gone = await eca(['--api-url', 'http://127.0.0.1:9', '--api-key', 'eca_aaaaaaaaaaaa_' + 'a'.repeat(43)]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /cannot reach the onboarding API/);
  });
});

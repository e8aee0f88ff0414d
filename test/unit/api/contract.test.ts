/**
 * The contract generated clients rely on (api/contract.ts), as the service answers: strict requests,
 * 405 with Allow, Location on a 201, problems as application/problem+json, the headers the document
 * declares, and the date-time forms generated clients send.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { queryTime } from '../../../api/schemas.js';
import type { Database } from '../../../runtime/database/index.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('onboarding API: the contract as answered', function () {
  this.timeout(60_000);
  let dir: string;
  let db: Database;
  let app: FastifyInstance;
  let connection: Connection;
  const keys: Record<'staff' | 'admin', string> = { staff: '', admin: '' };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-contract-'));
    db = await openSeededDatabase(join(dir, 'database'));
    // No Temporal: every case here is answered before the engine is asked.
    connection = Connection.lazy({ address: '127.0.0.1:1' });
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: new Client({ connection }), store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: databaseKeyVerifier(db, { cacheMs: 0 }),
      registry: new FirmRegistry(db, { cacheMs: 0 }),
      database: db,
      callTimeoutMs: 500,
    });
    keys.staff = (await createApiKey(db, { csid: 'ACME', role: 'staff', name: 'acme staff' })).key;
    keys.admin = (await createApiKey(db, { role: 'admin', name: 'operator' })).key;
  });

  after(async function () {
    await app?.close();
    await connection?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = (key: string, method: string, url: string, payload?: unknown) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });

  it('refuses an unknown field of a body, naming it', async function () {
    const typo = await call(keys.staff, 'POST', '/v1/webhooks', { url: 'https://example.test/hook', descripton: 'x' });
    assert.equal(typo.statusCode, 400);
    assert.equal(typo.headers['content-type'], 'application/problem+json; charset=utf-8');
    assert.equal(typo.json<{ field: string }>().field, 'body.descripton');
    assert.match(typo.json<{ detail: string }>().detail, /body\.descripton: is not a field/);

    const start = await call(keys.staff, 'POST', '/v1/applications', { applicationXml: '<x/>', document: [] });
    assert.equal(start.statusCode, 400);
    assert.equal(start.json<{ field: string }>().field, 'body.document');

    const nested = await call(keys.staff, 'POST', '/v1/applications/A1/documents', {
      documents: [{ formNumber: '5001', contentBase64: 'AAAA', name: 'w9.pdf' }],
    });
    assert.equal(nested.statusCode, 400);
    assert.equal(nested.json<{ field: string }>().field, 'body.documents.0.name');
  });

  it('answers a wrong method with 405 and Allow, and an unknown path with 404', async function () {
    const wrong = await call(keys.staff, 'PUT', '/v1/applications');
    assert.equal(wrong.statusCode, 405);
    assert.equal(wrong.headers.allow, 'GET, HEAD, POST');
    assert.equal(wrong.json<{ code: string }>().code, 'METHOD_NOT_ALLOWED');

    const one = await call(keys.staff, 'DELETE', '/v1/applications/A%201');
    assert.equal(one.statusCode, 405);
    assert.equal(one.headers.allow, 'GET, HEAD');

    const unknown = await call(keys.staff, 'GET', '/v1/nothing-here');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json<{ code: string }>().code, 'NOT_FOUND');
  });

  it('names what a 201 made in Location, where it is found', async function () {
    const made = await call(keys.admin, 'POST', '/v1/api-keys', { csid: 'ACME', role: 'ops', name: 'reader' });
    assert.equal(made.statusCode, 201);
    const { id } = made.json<{ record: { id: string } }>().record;
    assert.equal(made.headers.location, `/v1/api-keys/${id}`);
    assert.equal(made.headers['cache-control'], 'no-store');
    const read = await call(keys.admin, 'GET', String(made.headers.location));
    assert.equal(read.statusCode, 200);
    assert.equal(read.json<{ id: string; role: string }>().id, id);
    const revoked = await call(keys.admin, 'DELETE', String(made.headers.location));
    assert.equal(revoked.statusCode, 204);
  });

  it('sends the request id and the rate limit on every answer', async function () {
    const listed = await call(keys.staff, 'GET', '/v1/webhooks');
    assert.equal(listed.statusCode, 200);
    assert.ok(listed.headers['x-request-id']);
    for (const name of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) {
      assert.match(String(listed.headers[name]), /^\d+$/, name);
    }
    const given = await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'trace-1' } });
    assert.equal(given.headers['x-request-id'], 'trace-1');
  });

  it('reads a date-time in the forms generated clients send, and refuses others by name', async function () {
    for (const [given, read] of [
      ['2026-11-29T03:00:00Z', '2026-11-29T03:00:00.000Z'],
      ['2026-11-29T03:00:00.123456+0000', '2026-11-29T03:00:00.123Z'],
      ['2026-11-29T04:00:00+01:00', '2026-11-29T03:00:00.000Z'],
      ['2026-11-29T04:00:00.5+01', '2026-11-29T03:00:00.500Z'],
      ['2026-11-29t03:00z', '2026-11-29T03:00:00.000Z'],
    ]) {
      assert.equal(queryTime.parse(given), read, given);
    }
    for (const refused of ['2026-11-29', '2026-11-29T03:00:00', 'yesterday', '2026-13-01T00:00:00Z']) {
      assert.equal(queryTime.safeParse(refused).success, false, refused);
    }
    const answer = await call(keys.staff, 'GET', '/v1/applications?startedAfter=2026-11-29');
    assert.equal(answer.statusCode, 400);
    assert.equal(answer.json<{ field: string }>().field, 'querystring.startedAfter');
  });
});

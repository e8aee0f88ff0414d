/**
 * `Idempotency-Key` (api/idempotency.ts) on the routes that create something, with the API on an embedded
 * PostgreSQL (PGlite) and real API keys. Temporal is a stand-in that counts the workflows started (and can
 * hold or fail a start): a webhook registration needs nothing more, and neither do the admin routes.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { generateKeyPair } from '../../../eca/crypto.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { IdempotencyKeys } from '../../../runtime/idempotency-keys.js';
import { openSeededDatabase } from '../../support/database-template.js';

interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: Record<string, unknown>;
}

/** Temporal as the webhook routes see it: starts counted, and held or failed on demand. */
class FakeTemporal {
  starts: string[] = [];
  hold: Promise<void> | undefined;
  failNext = false;
  readonly client = {
    withAbortSignal: <T>(_signal: AbortSignal, body: () => Promise<T>) => body(),
    workflow: {
      start: async (_type: string, options: { workflowId: string }) => {
        this.starts.push(options.workflowId);
        if (this.failNext) {
          this.failNext = false;
          throw new Error('Temporal is away');
        }
        await this.hold;
        return { workflowId: options.workflowId, firstExecutionRunId: 'run-1' };
      },
    },
  } as unknown as Client;
}

describe('onboarding API: Idempotency-Key on the routes that create something (PGlite)', function () {
  this.timeout(60_000);
  let dir: string;
  let db: Database;
  let app: FastifyInstance;
  const temporal = new FakeTemporal();
  const keys = { admin: '', firmW: '', firmX: '' };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-idempotency-'));
    db = await openSeededDatabase(join(dir, 'database'));
    const keyring = generateCodecKeyring('k1');
    app = await buildApi({
      engine: { client: temporal.client, store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: databaseKeyVerifier(db, { cacheMs: 0 }),
      registry: new FirmRegistry(db, { keyring, cacheMs: 0 }),
      database: db,
      keyring,
      callTimeoutMs: 5_000,
    });
    keys.admin = (await createApiKey(db, { role: 'admin', name: 'operator' })).key;
    keys.firmW = (await createApiKey(db, { csid: 'FIRM-W', role: 'staff', name: 'w' })).key;
    keys.firmX = (await createApiKey(db, { csid: 'FIRM-X', role: 'staff', name: 'x' })).key;
  });

  after(async function () {
    await app?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const post = async (key: string, url: string, payload: object, idempotencyKey?: string): Promise<Answer> => {
    const response = await app.inject({
      method: 'POST',
      url,
      headers: {
        authorization: `Bearer ${key}`,
        ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      },
      payload,
    });
    return { status: response.statusCode, headers: response.headers, body: response.json<Record<string, unknown>>() };
  };
  const hook = (name: string) => ({ url: `https://hooks.example.test/${name}`, description: name });
  const endpointsOf = async (key: string) => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/webhooks',
      headers: { authorization: `Bearer ${key}` },
    });
    return response.json<{ endpoints: { id: string }[] }>().endpoints;
  };

  it('replays the first answer of a firm: its status, body and Location, marked Idempotent-Replayed', async function () {
    const [firm, brokerage] = await Promise.all([
      generateKeyPair({ name: 'Acme', email: 'acme@example.test', passphrase: 'acme secret' }),
      generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' }),
    ]);
    const request = {
      csid: 'ACME',
      name: 'Acme Advisors',
      keys: { firmPrivateKey: firm.privateKey, passphrase: 'acme secret', brokeragePublicKey: brokerage.publicKey },
    };
    const first = await post(keys.admin, '/v1/firms', request, 'add-acme-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.headers['idempotent-replayed'], undefined);
    const again = await post(keys.admin, '/v1/firms', request, 'add-acme-1');
    assert.equal(again.status, 201, 'the firm exists: without the key this would be a conflict');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.deepEqual(again.body, first.body);
    assert.equal(again.headers.location, '/v1/firms/ACME');
    assert.match(String(again.headers['content-type']), /^application\/json/);
    assert.notEqual(again.headers['x-request-id'], first.headers['x-request-id'], 'a request of its own');
    // Kept sealed with the codec keys: nothing of the answer in the clear (an application's holds personal data).
    const [kept] = await db.query<{ body: Uint8Array }>('SELECT body FROM idempotency_keys WHERE key = $1', [
      'add-acme-1',
    ]);
    assert.ok(kept && Buffer.from(kept.body).subarray(0, 8).toString() === 'ECA-IDK1', 'sealed');
    assert.doesNotMatch(Buffer.from(kept.body).toString('latin1'), /Acme Advisors/);

    // The same key with another request: refused, naming the header; the first answer stays.
    const other = await post(keys.admin, '/v1/firms', { ...request, name: 'Acme Capital' }, 'add-acme-1');
    assert.equal(other.status, 422);
    assert.deepEqual([other.body.code, other.body.field], ['IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key']);
    const elsewhere = await post(keys.admin, '/v1/api-keys', { role: 'admin', name: 'x' }, 'add-acme-1');
    assert.equal(elsewhere.status, 422, 'another path is another request');
    assert.equal((await post(keys.admin, '/v1/firms', request, 'add-acme-1')).status, 201);

    // A refusal of the route (the firm exists) is an answer too, kept as it was.
    const exists = await post(keys.admin, '/v1/firms', request, 'add-acme-2');
    assert.deepEqual([exists.status, exists.body.field], [400, 'csid'], JSON.stringify(exists.body));
    const existsAgain = await post(keys.admin, '/v1/firms', request, 'add-acme-2');
    assert.deepEqual([existsAgain.status, existsAgain.body], [400, exists.body]);
    assert.equal(existsAgain.headers['idempotent-replayed'], 'true');
  });

  it('never keeps a secret: a retry of a registration is told it was made, with its Location', async function () {
    const started = temporal.starts.length;
    const first = await post(keys.firmW, '/v1/webhooks', hook('w1'), 'register-1');
    assert.equal(first.status, 201, JSON.stringify(first.body));
    const secret = String(first.body.secret);
    assert.match(secret, /^whsec_/);
    const again = await post(keys.firmW, '/v1/webhooks', hook('w1'), 'register-1');
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'IDEMPOTENT_ANSWER_WITHHELD');
    assert.equal(again.headers['idempotent-replayed'], 'true');
    assert.equal(again.headers.location, first.headers.location);
    assert.equal(temporal.starts.length, started + 1, 'one endpoint, one delivery');
    assert.equal((await endpointsOf(keys.firmW)).length, 1);
    const kept = await db.query<{ body: string | null }>('SELECT body FROM idempotency_keys WHERE key = $1', [
      'register-1',
    ]);
    assert.deepEqual(kept, [{ body: null }]);
    assert.doesNotMatch(JSON.stringify(await db.query('SELECT * FROM idempotency_keys')), new RegExp(secret));

    const apiKey = await post(keys.admin, '/v1/api-keys', { csid: 'FIRM-W', role: 'ops', name: 'ops' }, 'key-1');
    assert.equal(apiKey.status, 201);
    const apiKeyAgain = await post(keys.admin, '/v1/api-keys', { csid: 'FIRM-W', role: 'ops', name: 'ops' }, 'key-1');
    assert.deepEqual([apiKeyAgain.status, apiKeyAgain.body.code], [409, 'IDEMPOTENT_ANSWER_WITHHELD']);
    assert.equal(apiKeyAgain.headers.location, apiKey.headers.location);
  });

  it('is the firm’s own: another firm’s same key is another request', async function () {
    const w = await post(keys.firmW, '/v1/webhooks', hook('shared'), 'shared-key');
    const x = await post(keys.firmX, '/v1/webhooks', hook('shared'), 'shared-key');
    assert.deepEqual([w.status, x.status], [201, 201]);
    assert.notEqual((w.body.endpoint as { id: string }).id, (x.body.endpoint as { id: string }).id);
    assert.equal((await endpointsOf(keys.firmX)).length, 1);
    // Nor does another firm's key with another request meet the first firm's.
    assert.equal((await post(keys.firmX, '/v1/webhooks', hook('other'), 'register-1')).status, 201);
  });

  it('answers 409 with Retry-After while the first request is in flight, then replays it', async function () {
    let release!: () => void;
    temporal.hold = new Promise((resolve) => (release = resolve));
    const before = (await endpointsOf(keys.firmW)).length;
    const first = post(keys.firmW, '/v1/webhooks', hook('slow'), 'slow-1');
    const started = temporal.starts.length;
    for (let i = 0; i < 200 && temporal.starts.length === started; i++) await new Promise((r) => setTimeout(r, 10));
    const during = await post(keys.firmW, '/v1/webhooks', hook('slow'), 'slow-1');
    assert.equal(during.status, 409);
    assert.deepEqual([during.body.code, during.body.field], ['IDEMPOTENCY_KEY_IN_USE', 'Idempotency-Key']);
    assert.equal(during.headers['retry-after'], '1');
    release();
    temporal.hold = undefined;
    assert.equal((await first).status, 201);
    assert.equal((await post(keys.firmW, '/v1/webhooks', hook('slow'), 'slow-1')).status, 409);
    assert.equal((await endpointsOf(keys.firmW)).length, before + 1);
  });

  it('keeps no 5xx: the key may be sent again and the request runs again', async function () {
    temporal.failNext = true;
    const failed = await post(keys.firmW, '/v1/webhooks', hook('flaky'), 'flaky-1');
    assert.equal(failed.status, 500);
    assert.deepEqual(await db.query('SELECT key FROM idempotency_keys WHERE key = $1', ['flaky-1']), []);
    const retried = await post(keys.firmW, '/v1/webhooks', hook('flaky'), 'flaky-1');
    assert.equal(retried.status, 201, JSON.stringify(retried.body));
  });

  it('without the header nothing changes; a malformed header is refused before anything runs', async function () {
    const before = (await endpointsOf(keys.firmW)).length;
    assert.equal((await post(keys.firmW, '/v1/webhooks', hook('plain'))).status, 201);
    const second = await post(keys.firmW, '/v1/webhooks', hook('plain'));
    assert.equal(second.status, 201);
    assert.equal(second.headers['idempotent-replayed'], undefined);
    assert.equal((await endpointsOf(keys.firmW)).length, before + 2);
    const tooLong = await post(keys.firmW, '/v1/webhooks', hook('long'), 'k'.repeat(256));
    assert.deepEqual([tooLong.status, tooLong.body.code], [400, 'INVALID_INPUT']);
    assert.match(String(tooLong.body.field), /idempotency-key/);
    // A body its schema refuses claims nothing: the same key with a valid body runs.
    const invalid = await post(keys.firmW, '/v1/webhooks', { url: 42 }, 'fix-1');
    assert.equal(invalid.status, 400);
    assert.equal((await post(keys.firmW, '/v1/webhooks', hook('fixed'), 'fix-1')).status, 201);
  });

  it('takes over a key past its 24 hours, or claimed by a request that never answered', async function () {
    const store = new IdempotencyKeys(db, { ttlMs: 60_000, staleMs: 1_000 });
    const first = await store.claim('S', 'k', 'a');
    assert.equal(first.kind, 'claimed');
    assert.deepEqual(await store.claim('S', 'k', 'a'), { kind: 'in-flight', fingerprint: 'a' });
    await db.query(`UPDATE idempotency_keys SET claimed_at = now() - interval '2 seconds' WHERE scope = 'S'`);
    const second = await store.claim('S', 'k', 'b');
    assert.equal(second.kind, 'claimed', 'the lost claim is taken over');
    if (first.kind !== 'claimed' || second.kind !== 'claimed') return;
    // The first request answers late: its claim is gone, and the second's stays its own.
    await store.answer('S', 'k', first.token, { status: 201, headers: {}, body: '{"late":true}' });
    await store.release('S', 'k', first.token);
    assert.deepEqual(await store.claim('S', 'k', 'b'), { kind: 'in-flight', fingerprint: 'b' });
    await store.answer('S', 'k', second.token, { status: 201, headers: { location: '/x' }, body: '{}' });
    const answered = await store.claim('S', 'k', 'b');
    assert.equal(answered.kind, 'answered');
    if (answered.kind === 'answered') assert.equal(answered.answer.body, '{}');
    await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '2 minutes' WHERE scope = 'S'`);
    assert.equal((await store.claim('S', 'k', 'c')).kind, 'claimed', 'past its time, the key is new');
  });

  it('is each admin key’s own: two operators’ same key are two requests', async function () {
    const other = (await createApiKey(db, { role: 'admin', name: 'second operator' })).key;
    const body = (name: string) => ({ csid: 'FIRM-W', role: 'ops', name });
    const mine = await post(keys.admin, '/v1/api-keys', body('first'), 'admin-shared');
    const theirs = await post(other, '/v1/api-keys', body('second'), 'admin-shared');
    assert.deepEqual([mine.status, theirs.status], [201, 201], JSON.stringify(theirs.body));
  });

  it('claims nothing for a request over the rate limit: the retry after it runs', async function () {
    const limited = await buildApi({
      engine: { client: temporal.client, store: new FileDocumentStore(join(dir, 'documents')) },
      verifyKey: databaseKeyVerifier(db, { cacheMs: 0 }),
      database: db,
      rateLimitPerMinute: 1,
      callTimeoutMs: 5_000,
    });
    try {
      const send = (idempotencyKey: string) =>
        limited.inject({
          method: 'POST',
          url: '/v1/webhooks',
          headers: { authorization: `Bearer ${keys.firmX}`, 'idempotency-key': idempotencyKey },
          payload: hook(`limited-${idempotencyKey}`),
        });
      assert.equal((await send('limit-1')).statusCode, 201);
      const over = await send('limit-2');
      assert.equal(over.statusCode, 429);
      assert.deepEqual(await db.query('SELECT key FROM idempotency_keys WHERE key = $1', ['limit-2']), []);
    } finally {
      await limited.close();
    }
  });

  it('declares the header on every operation that creates something', function () {
    const document = app.swagger() as {
      paths: Record<string, Record<string, { parameters?: { in: string; name: string }[] }>>;
    };
    for (const path of [
      '/v1/applications',
      '/v1/webhooks',
      '/v1/maintenance-requests',
      '/v1/sso-links',
      '/v1/api-keys',
      '/v1/firms',
    ]) {
      const parameters = document.paths[path]?.post?.parameters ?? [];
      assert.ok(
        parameters.some((parameter) => parameter.in === 'header' && parameter.name === 'idempotency-key'),
        `${path}: ${JSON.stringify(parameters)}`,
      );
    }
  });
});

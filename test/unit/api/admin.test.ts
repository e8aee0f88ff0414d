/**
 * The admin role (api/admin.ts): firms and API keys over the API, never a key in an answer, and no
 * application data for an admin key; new work of a disabled or unknown firm refused by name.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextOf } from '../../../api/applications.js';
import { buildApi } from '../../../api/server.js';
import { registeredFirms } from '../../../api/firm.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { generateKeyPair } from '../../../eca/crypto.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('onboarding API: the admin role manages firms and API keys, and nothing else', function () {
  this.timeout(60_000);
  let dir: string;
  let db: Database;
  let app: FastifyInstance;
  let admin: string;
  let staff: string;
  let firmKeys: { firmPrivateKey: string; passphrase: string; brokeragePublicKey: string };
  let registry: FirmRegistry;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-admin-'));
    db = await openSeededDatabase(join(dir, 'database'));
    const keyring = generateCodecKeyring('k1');
    registry = new FirmRegistry(db, { keyring, cacheMs: 0 });
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'documents')),
      },
      verifyKey: databaseKeyVerifier(db, { cacheMs: 0 }),
      firms: registeredFirms(new FirmBrokerages(registry, { database: db })),
      registry,
      database: db,
      keyring,
      callTimeoutMs: 500,
    });
    admin = (await createApiKey(db, { role: 'admin', name: 'operator' })).key;
    staff = (await createApiKey(db, { csid: 'ACME', role: 'staff', name: 'acme staff' })).key;
    const [firm, brokerage] = await Promise.all([
      generateKeyPair({ name: 'Acme', email: 'acme@example.test', passphrase: 'acme secret' }),
      generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' }),
    ]);
    firmKeys = { firmPrivateKey: firm.privateKey, passphrase: 'acme secret', brokeragePublicKey: brokerage.publicKey };
  });

  after(async function () {
    await app?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const call = async (key: string, method: string, url: string, payload?: unknown) => {
    const response = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${key}` },
      ...(payload === undefined ? {} : { payload: payload as object }),
    });
    return { status: response.statusCode, body: response.body ? response.json<Record<string, unknown>>() : {} };
  };

  it('adds, reads, changes, rotates, disables and enables a firm, never answering with a key', async function () {
    const added = await call(admin, 'POST', '/v1/firms', {
      csid: 'ACME',
      name: 'Acme Advisors',
      settings: { firmTypes: ['advisor'], callsPerSecond: 10 },
      keys: firmKeys,
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const answers = [added];
    answers.push(await call(admin, 'GET', '/v1/firms'), await call(admin, 'GET', '/v1/firms/ACME'));
    answers.push(await call(admin, 'PATCH', '/v1/firms/ACME', { settings: { maintenanceWindows: '03:00-03:30' } }));
    const rotated = await call(admin, 'PUT', '/v1/firms/ACME/keys', firmKeys);
    assert.equal((rotated.body.keys as { version: number }).version, 2);
    answers.push(rotated);
    for (const answer of answers) {
      assert.ok(answer.status < 300, JSON.stringify(answer.body));
      assert.doesNotMatch(JSON.stringify(answer.body), /PGP|acme secret/);
    }
    // The firm's own sweep slot: checked, and taken by the context of the firm's new work.
    const slot = await call(admin, 'PATCH', '/v1/firms/ACME', { settings: { sweepInterval: '10 minutes' } });
    assert.equal((slot.body.settings as { sweepInterval?: string }).sweepInterval, '10 minutes');
    const badSlot = await call(admin, 'PATCH', '/v1/firms/ACME', { settings: { sweepInterval: 'soon' } });
    assert.equal(badSlot.status, 400);
    assert.equal(badSlot.body.field, 'sweepInterval');
    const record = (await registry.get('ACME'))!;
    const ctx = contextOf({ client: {} as never, store: {} as never, sweepInterval: '5 minutes' })({
      principal: { keyId: 'k', csid: 'ACME', role: 'onboarding' },
      firm: record,
    } as FastifyRequest);
    assert.equal(ctx.sweepInterval, '10 minutes');
    const bad = await call(admin, 'PATCH', '/v1/firms/ACME', { settings: { maintenanceTimeZone: 'Nowhere/Else' } });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.field, 'maintenanceTimeZone');
    const path = await call(admin, 'POST', '/v1/firms', {
      csid: 'B',
      keys: { ...firmKeys, firmPrivateKey: '/etc/passwd' },
    });
    assert.equal(path.status, 400, 'a key is armored text, never a path on the server');
    assert.equal((await call(admin, 'GET', '/v1/firms/NOPE')).status, 404);

    // The firm's staff: new work refused while it is disabled, by name.
    const disabled = await call(admin, 'POST', '/v1/firms/ACME/disable', { reason: 'contract ended' });
    assert.equal(disabled.status, 200);
    const refused = await call(staff, 'POST', '/v1/maintenance-requests', {
      accountId: 'U1234567',
      firmType: 'advisor',
      functionName: 'ChangeBaseCurrency',
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FIRM_DISABLED');
    assert.match(String(refused.body.detail), /contract ended/);
    assert.equal((await call(admin, 'POST', '/v1/firms/ACME/enable')).status, 200);
    // The firm is an advisor: a request as another type is refused before the brokerage is asked.
    const wrongType = await call(staff, 'POST', '/v1/maintenance-requests', {
      accountId: 'U1234567',
      firmType: 'non-disclosed',
      functionName: 'ChangeBaseCurrency',
    });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.field, 'firmType');
  });

  it('refuses new work of a firm it does not know', async function () {
    const unknown = (await createApiKey(db, { csid: 'GHOST', role: 'onboarding', name: 'ghost' })).key;
    const refused = await call(unknown, 'POST', '/v1/sso-links', { userName: 'someone', ip: '203.0.113.7' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'FIRM_NOT_CONFIGURED');
  });

  it('creates, lists and revokes API keys, and an admin key reads no application data', async function () {
    const created = await call(admin, 'POST', '/v1/api-keys', { csid: 'ACME', role: 'ops', name: 'grafana' });
    assert.equal(created.status, 201);
    const record = created.body.record as { id: string; csid: string };
    assert.equal(record.csid, 'ACME');
    const listed = await call(admin, 'GET', '/v1/api-keys?csid=ACME');
    assert.ok((listed.body.keys as Array<{ id: string }>).some((key) => key.id === record.id));
    // The secret is all after the id: it may hold `_` itself (base64url), so a split on `_` would take a fragment.
    const secret = String(created.body.key).split('_').slice(2).join('_');
    assert.equal(secret.length, 43);
    assert.ok(!JSON.stringify(listed.body).includes(secret), 'the listing holds the key secret');
    const wrongRole = await call(admin, 'POST', '/v1/api-keys', { csid: 'ACME', role: 'admin', name: 'x' });
    assert.equal(wrongRole.status, 400);
    assert.equal(wrongRole.body.field, 'csid');
    assert.equal((await call(admin, 'DELETE', `/v1/api-keys/${record.id}`)).status, 204);
    assert.equal((await call(String(created.body.key), 'GET', '/v1/applications')).status, 401);

    for (const url of ['/v1/applications', '/v1/events', '/v1/maintenance-requests', '/v1/webhooks']) {
      assert.equal((await call(admin, 'GET', url)).status, 403, url);
    }
    for (const url of ['/v1/firms', '/v1/api-keys']) assert.equal((await call(staff, 'GET', url)).status, 403, url);
  });

  it('refuses a maintenance request written for the other protocol, and the XML service to a firm without its keys', async function () {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    await registry.add({
      csid: 'WEBF',
      name: 'Web Firm',
      settings: {
        protocol: 'webapi',
        firmTypes: ['advisor'],
        webApi: { baseUrl: 'https://api.example.test', clientId: 'webf', keyId: 'k1' },
      },
      keys: { ...firmKeys, webApiPrivateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() },
    });
    await registry.add({ csid: 'XMLF', name: 'XML Firm', settings: { firmTypes: ['advisor'] }, keys: firmKeys });
    const web = (await createApiKey(db, { csid: 'WEBF', role: 'onboarding', name: 'web' })).key;
    const xml = (await createApiKey(db, { csid: 'XMLF', role: 'onboarding', name: 'xml' })).key;
    const request = { accountId: 'U1234567', firmType: 'advisor', functionName: 'ChangeBaseCurrency' };
    const cases = [
      [web, { ...request, body: '<NewBaseCurrency>EUR</NewBaseCurrency>' }, 'body', /on the Web API/],
      [web, { ...request, bodyJson: {}, attributes: { currency: 'EUR' } }, 'attributes', /on the Web API/],
      [xml, { ...request, bodyJson: { newBaseCurrency: 'EUR' } }, 'bodyJson', /on the XML service/],
    ] as const;
    // A firm that joined on the Web API holds no OpenPGP keys: the XML service's operations are refused by name.
    const webOnlyKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const added = await call(admin, 'POST', '/v1/firms', {
      csid: 'WEBONLY',
      name: 'Web only',
      settings: { protocol: 'webapi', webApi: { baseUrl: 'https://api.example.test', clientId: 'wo', keyId: 'k1' } },
      keys: { webApiPrivateKey: webOnlyKey },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const webOnly = (await createApiKey(db, { csid: 'WEBONLY', role: 'onboarding', name: 'web only' })).key;
    const languages = await call(webOnly, 'PUT', '/v1/account-holders/someone/languages', { lang1: 'fr' });
    assert.equal(languages.status, 403, JSON.stringify(languages.body));
    assert.equal(languages.body.code, 'FIRM_NOT_CONFIGURED');
    assert.match(String(languages.body.detail), /no OpenPGP keys/);
    for (const [key, payload, field, detail] of cases) {
      const refused = await call(key, 'POST', '/v1/maintenance-requests', payload);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.field, field);
      assert.match(String(refused.body.detail), detail);
    }
  });
});

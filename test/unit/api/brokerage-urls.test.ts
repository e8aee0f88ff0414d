/**
 * A firm's brokerage URLs over the admin API (HTTP): the webhook registry's host rules, http(s) only, no user name
 * or password, each refusal a 400 naming the field; a live firm cannot be moved to a metadata service; a row
 * written before the rules stays readable, and its client is refused by the setting's name, nothing sent.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { registeredFirms } from '../../../api/firm.js';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { generateKeyPair } from '../../../eca/crypto.js';
import { createApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { FirmNotConfiguredError } from '../../../runtime/firm-errors.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('onboarding API: a firm’s brokerage URLs are checked as webhook URLs are', function () {
  this.timeout(60_000);
  let dir: string;
  let db: Database;
  let app: FastifyInstance;
  let base: string;
  let admin: string;
  let registry: FirmRegistry;
  let firmKeys: { firmPrivateKey: string; passphrase: string; brokeragePublicKey: string };

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-brokerage-urls-'));
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
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    admin = (await createApiKey(db, { role: 'admin', name: 'operator' })).key;
    const [firm, brokerage] = await Promise.all([
      generateKeyPair({ name: 'Urls', email: 'urls@example.test', passphrase: 'urls secret' }),
      generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' }),
    ]);
    firmKeys = { firmPrivateKey: firm.privateKey, passphrase: 'urls secret', brokeragePublicKey: brokerage.publicKey };
  });

  after(async function () {
    await app?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  const REFUSED: [string, RegExp][] = [
    ['http://169.254.169.254/', /169\.254\.169\.254 is a link-local address: never a brokerage/],
    ['http://[fd00:ec2::254]/', /\[fd00:ec2::254\] is a cloud metadata service/],
    ['http://[::ffff:169.254.169.254]/latest/', /is a link-local address/],
    ['http://metadata.google.internal./computeMetadata/', /is a cloud metadata service/],
    ['http://0.0.0.0:8080/', /is an unspecified address/],
    ['file:///etc/passwd', /scheme file is not http or https/],
    ['http://user:secret@brokerage.example.test/', /must not carry a user name or password/],
    ['gopher://127.0.0.1:25/', /scheme gopher is not http or https/],
  ];

  it('refuses each field’s refused URL with a 400 naming the field, and adds nothing', async function () {
    let n = 0;
    for (const [url, reason] of REFUSED) {
      for (const [field, settings] of [
        ['baseUrl', { baseUrl: url }],
        ['preferenceUrl', { preferenceUrl: url }],
        ['webApi.baseUrl', { webApi: { baseUrl: url, clientId: 'c', keyId: 'k1' } }],
      ] as const) {
        const csid = `REFUSED-${++n}`;
        const answer = await call('POST', '/v1/firms', { csid, settings, keys: firmKeys });
        const what = `${field} ${url}: ${JSON.stringify(answer.body)}`;
        assert.equal(answer.status, 400, what);
        assert.equal(answer.body.code, 'INVALID_INPUT', what);
        assert.equal(answer.body.field, field, what);
        assert.match(String(answer.body.detail), reason, what);
        assert.ok(!String(answer.body.detail).includes('secret@'), 'a password is not repeated');
        assert.equal((await call('GET', `/v1/firms/${csid}`)).status, 404, what);
      }
    }
  });

  it('keeps loopback and private networks, and moves no live firm to a refused URL', async function () {
    const added = await call('POST', '/v1/firms', {
      csid: 'LIVE',
      settings: { baseUrl: 'http://10.20.30.40:8443/eca', preferenceUrl: 'http://127.0.0.1:9000/' },
      keys: firmKeys,
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    for (const [url] of REFUSED) {
      const moved = await call('PATCH', '/v1/firms/LIVE', { settings: { baseUrl: url } });
      assert.equal(moved.status, 400, `${url}: ${JSON.stringify(moved.body)}`);
      assert.equal(moved.body.field, 'baseUrl');
    }
    const live = await call('GET', '/v1/firms/LIVE');
    assert.equal((live.body.settings as { baseUrl: string }).baseUrl, 'http://10.20.30.40:8443/eca');
  });

  it('reads a firm stored with a refused URL, refuses its clients by the setting, and lets the admin fix it', async function () {
    assert.equal((await call('POST', '/v1/firms', { csid: 'OLD', keys: firmKeys })).status, 201);
    // As a row written before the rules: the URL is in the table as it was taken then.
    await db.query(
      `UPDATE firms SET settings = settings || '{"baseUrl": "http://169.254.169.254/latest/"}'::jsonb WHERE csid = 'OLD'`,
    );
    // A refused Web API URL beside it, listed first: the XML client is still refused by its own setting.
    await db.query(
      `UPDATE firms SET settings = settings || '{"webApi": {"baseUrl": "http://[fd00:ec2::254]/", "clientId": "c", "keyId": "k"}}'::jsonb WHERE csid = 'OLD'`,
    );
    assert.equal((await call('GET', '/v1/firms')).status, 200, 'the listing still reads every firm');
    assert.equal((await call('GET', '/v1/firms/OLD')).status, 200);
    const brokerages = new FirmBrokerages(registry, { database: db });
    await assert.rejects(brokerages.clientFor('OLD'), (error: unknown) => {
      assert.ok(error instanceof FirmNotConfiguredError, String(error));
      assert.match(
        error.message,
        /firm OLD: its setting baseUrl is refused \(169\.254\.169\.254 is a link-local address/,
      );
      return true;
    });
    const dispatcher = brokerages.dispatcher();
    await assert.rejects(dispatcher.getAccountStatus({ CSID: 'OLD' }), FirmNotConfiguredError);
    // Another change names the refused URL until it is fixed; the fix is taken.
    const other = await call('PATCH', '/v1/firms/OLD', { settings: { callsPerSecond: 5 } });
    assert.equal(other.status, 400);
    assert.equal(other.body.field, 'webApi.baseUrl');
    const fixed = await call('PATCH', '/v1/firms/OLD', {
      settings: {
        baseUrl: 'https://eca.example.test',
        webApi: { baseUrl: 'https://webapi.example.test', clientId: 'c', keyId: 'k' },
      },
    });
    assert.equal(fixed.status, 200, JSON.stringify(fixed.body));
    assert.ok(await brokerages.clientFor('OLD'));
  });
});

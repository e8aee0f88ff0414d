/**
 * A firm on the Web API in the registry: its client built from its settings and sealed key, refused by name
 * without them, and its calls held to the firm's call budget as its XML calls are (nothing sent when the
 * budget puts a call off), its SSO sessions made through it. Against the simulator's Web API, on the embedded
 * database.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { WebApiAuthError, WebApiDeferredError } from '../../../webapi/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { FirmNotConfiguredError } from '../../../runtime/firm-errors.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { ApplicationProtocols } from '../../../runtime/application-protocols.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { applicationJsonOf } from '../../../activities/application-json.js';
import { createSsoUrl } from '../../../client/brokerage.js';
import { applicationXml } from '../../support/engine.js';
import { registeredFirms } from '../../../api/firm.js';
import { ApiProblem } from '../../../api/problems.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('firms on the Web API: the registry builds their client, paced by their call budget', function () {
  this.timeout(60_000);
  const keyring = generateCodecKeyring('k1');
  let dir: string;
  let db: Database;
  let sim: RunningSimulator;
  let registry: FirmRegistry;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-webapi-firms-'));
    db = await openSeededDatabase(join(dir, 'database'));
    sim = await startSimulator();
    registry = new FirmRegistry(db, { keyring });
  });
  after(async function () {
    await sim?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function addFirm(csid: string, settings: Record<string, unknown>, withKey = true) {
    const { privateKeyPem } = registerWebApiClient(sim, { clientId: `client-${csid}`, csid: sim.csid });
    await registry.add({
      csid,
      name: csid,
      settings: {
        protocol: 'webapi',
        webApi: { baseUrl: sim.url, clientId: `client-${csid}`, keyId: 'k1' },
        ...settings,
      },
      keys: {
        firmPrivateKey: sim.keys.firmPrivateKey,
        brokeragePublicKey: sim.keys.brokeragePublicKey,
        ...(withKey && { webApiPrivateKey: privateKeyPem }),
      },
    });
  }

  it('builds a firm’s client from its settings and sealed key, and refuses a firm without its key by name', async function () {
    await addFirm('WA', {});
    await addFirm('WB', {}, false);
    const brokerages = new FirmBrokerages(registry, { database: db });
    assert.equal(await brokerages.protocolOf('WA'), 'webapi');
    const client = await brokerages.webApiClientFor('WA');
    assert.equal((await client.applicationByExternalId('nobody-wa')).hasError, true);
    assert.equal(await brokerages.webApiClientFor('WA'), client, 'one client while the firm is unchanged');
    await assert.rejects(
      brokerages.webApiClientFor('WB'),
      (error: unknown) => error instanceof FirmNotConfiguredError && /webApiPrivateKey/.test(error.message),
    );
  });

  it('asks for a token as the firm’s settings say: the assertion’s audience and the scopes', async function () {
    const webApi = (csid: string, extra: Record<string, unknown>) => ({
      webApi: { baseUrl: sim.url, clientId: `client-${csid}`, keyId: 'k1', ...extra },
    });
    const tokenUrl = `${sim.url}/oauth2/api/v1/token`;
    await addFirm('WD', webApi('WD', { assertionAudience: tokenUrl, scopes: ['accounts.read', 'echo.read'] }));
    await addFirm('WE', webApi('WE', { assertionAudience: 'https://elsewhere.example/token' }));
    const brokerages = new FirmBrokerages(registry, { database: db });
    // echo.read is no scope the engine asks for unless the settings name it.
    assert.equal((await (await brokerages.webApiClientFor('WD')).echoHttps()).securityPolicy, 'HTTPS');
    await assert.rejects(
      (await brokerages.webApiClientFor('WE')).applicationByExternalId('nobody-we'),
      (error: unknown) => error instanceof WebApiAuthError && error.status === 400,
    );
    await assert.rejects(addFirm('WF', webApi('WF', { scopes: ['accounts read'] })), /scopes/);
    await assert.rejects(addFirm('WG', webApi('WG', { assertionAudience: '' })), /assertionAudience/);
  });

  it('holds the firm’s Web API calls to its call budget: a call put off is never sent', async function () {
    await addFirm('WC', { callsPerSecond: 1 });
    const brokerages = new FirmBrokerages(registry, { database: db, callWaitMaxMs: 0 });
    const client = await brokerages.webApiClientFor('WC');
    sim.control.resetCalls();
    const results = await Promise.allSettled([1, 2, 3].map(() => client.applicationByExternalId('nobody')));
    const deferred = results.filter(
      (result) => result.status === 'rejected' && result.reason instanceof WebApiDeferredError,
    ).length;
    assert.ok(deferred >= 1, `calls at once past one a second: ${JSON.stringify(results.map((r) => r.status))}`);
    // On a busy machine the first call can miss its slot too, and all three are put off: none is sent then.
    assert.equal(
      sim.control.calls()['webapi GET /gw/api/v1/accounts'] ?? 0,
      3 - deferred,
      'a deferred call is not sent',
    );
  });

  it('makes a Web API firm’s SSO sessions through the Web API, and an XML firm’s through sso/create', async function () {
    await addFirm('WS', {});
    const brokerages = new FirmBrokerages(registry, { database: db, ssoAllowInsecureLoopback: true });
    const client = await brokerages.webApiClientFor('WS');
    await client.createAccount(applicationJsonOf(applicationXml('portal-task-ws1')));
    const { accountId } = await client.applicationByExternalId('portal-task-ws1');
    const userName = sim.control.account(accountId!)!.userName;
    sim.control.resetCalls();
    const link = await createSsoUrl({ userName, ip: '127.0.0.1' }, await brokerages.brokerageFor('WS'));
    assert.ok(link.url.startsWith(sim.portalUrl));
    assert.equal(sim.control.calls()['webapi POST /gw/api/v1/sso-browser-sessions'], 1);
    assert.equal(sim.control.calls()['sso/create'], undefined);
    await registry.add({
      csid: sim.csid,
      name: 'xml',
      settings: { baseUrl: sim.url },
      keys: { firmPrivateKey: sim.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
    });
    await createSsoUrl({ userName, ip: '127.0.0.1' }, await brokerages.brokerageFor(sim.csid));
    assert.equal(sim.control.calls()['sso/create'], 1);
    assert.equal(sim.control.calls()['webapi POST /gw/api/v1/sso-browser-sessions'], 1);
  });

  it('asks whether an account is a Web API firm’s through the Web API: its own passes, another firm’s is not found', async function () {
    await addFirm('WO', {});
    const brokerages = new FirmBrokerages(registry, { database: db });
    const client = await brokerages.webApiClientFor('WO');
    await client.createAccount(applicationJsonOf(applicationXml('happy-wo1')));
    const { accountId } = await client.applicationByExternalId('happy-wo1');
    const other = await sim.control.registerFirm({ name: 'other-firm' });
    const [theirs] = sim.control.seedAccounts({ count: 1, csid: other.csid });
    const firms = registeredFirms(brokerages);
    sim.control.resetCalls();
    await firms.requireOwnAccount('WO', accountId!);
    await assert.rejects(
      firms.requireOwnAccount('WO', theirs!),
      (error: unknown) => error instanceof ApiProblem && error.code === 'NOT_FOUND' && error.field === 'accountId',
    );
    assert.equal(sim.control.calls()['webapi GET /gw/api/v1/accounts/:accountId/status'], 2);
    assert.equal(sim.control.calls().getAccountStatus, undefined, 'no XML call');
    assert.equal(await firms.protocolOf('WO'), 'webapi');
  });

  it('pins an application to the protocol it started on; the first writer wins', async function () {
    const pins = new ApplicationProtocols(db);
    let asked = 0;
    const current = (protocol: 'xml' | 'webapi') => () => {
      asked++;
      return Promise.resolve(protocol);
    };
    assert.equal(await pins.of('WA', { externalId: 'e1' }, current('xml')), 'xml');
    assert.equal(await new ApplicationProtocols(db).of('WA', { externalId: 'e1' }, current('webapi')), 'xml');
    assert.equal(asked, 1, 'the firm is asked only for an application without a pin');
    assert.equal(await pins.pin('WA', { accountId: 'U1' }, 'webapi'), 'webapi');
    assert.equal(await pins.pin('WA', { accountId: 'U1' }, 'xml'), 'webapi', 'a pin never changes');
    assert.equal(await pins.of('WB', { externalId: 'e1' }, current('webapi')), 'webapi', 'per firm');
  });
});

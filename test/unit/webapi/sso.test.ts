/**
 * The portal's browser sessions through the Web API (`POST /gw/api/v1/sso-browser-sessions`) against the
 * simulator: a link for a user of the firm's accounts, opened from the one IP it was made for, refused for
 * anyone else's; and the engine's SSO link (client/brokerage.ts) made through it as through sso/create.
 */
import assert from 'node:assert/strict';
import { applicationJsonOf } from '../../../activities/application-json.js';
import { createSsoUrl } from '../../../client/brokerage.js';
import { webApiBrokerage } from '../../../brokerage/webapi/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { WebApiHttpError } from '../../../webapi/index.js';
import { applicationXml } from '../../support/engine.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';

describe('Web API browser sessions against the simulator: SSO links on the other protocol', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let api: WebApiClient;
  let userName: string;

  const visit = (url: string) => fetch(url, { redirect: 'manual' });

  before(async function () {
    ({ sim } = await start());
    api = registerWebApiClient(sim, { clientId: 'sso', csid: sim.csid }).client();
    await api.createAccount(applicationJsonOf(applicationXml('portal-task-sso1')));
    const { accountId } = await api.applicationByExternalId('portal-task-sso1');
    userName = sim.control.account(accountId!)!.userName!;
  });
  after(async function () {
    await sim.close();
  });

  it('makes a session URL for a user of the firm, opened from its IP alone', async function () {
    const mine = await api.createBrowserSession({ credential: userName, ip: '127.0.0.1' });
    assert.equal(mine.active, true);
    assert.ok(mine.url.startsWith(sim.portalUrl), mine.url);
    const page = await visit(mine.url);
    // A pending application: the portal sends its holder to the application.
    assert.equal(page.status, 302);
    assert.equal((await visit(new URL(page.headers.get('location')!, mine.url).href)).status, 200);
    const elsewhere = await api.createBrowserSession({ credential: userName, ip: '203.0.113.9' });
    const refused = await visit(elsewhere.url);
    assert.equal(refused.status, 403);
    assert.match(await refused.text(), /another IP address/);
    assert.equal(sim.control.calls()['webapi POST /gw/api/v1/sso-browser-sessions'], 2);
    assert.equal(sim.control.calls()['sso/create'], undefined, 'no XML call');
  });

  it('refuses an unknown user, another firm’s user, a bad IP and a client without the scope', async function () {
    const refusal = (status: number, pattern: RegExp) => (error: unknown) =>
      error instanceof WebApiHttpError && error.status === status && pattern.test(error.bodyExcerpt);
    await assert.rejects(api.createBrowserSession({ credential: 'nobody', ip: '127.0.0.1' }), refusal(400, /Unknown/));
    const other = await sim.control.registerFirm({ name: 'SsoOther' });
    const stranger = registerWebApiClient(sim, { clientId: 'sso-other', csid: other.csid }).client();
    await assert.rejects(
      stranger.createBrowserSession({ credential: userName, ip: '127.0.0.1' }),
      refusal(400, /Unknown user name/),
    );
    await assert.rejects(
      api.createBrowserSession({ credential: userName, ip: '10.0.0.1,10.0.0.2' }),
      refusal(400, /ip/),
    );
    const narrow = registerWebApiClient(sim, { clientId: 'sso-narrow', csid: sim.csid, scopes: ['accounts.read'] });
    await assert.rejects(
      narrow.client().createBrowserSession({ credential: userName, ip: '127.0.0.1' }),
      refusal(403, /sso-browser-sessions\.write/),
    );
  });

  it('makes the engine’s SSO link as sso/create does: checked, validated, with its landing page', async function () {
    const sso = webApiBrokerage(api, sim.csid, 'qa', { allowInsecureLoopback: true });
    const before = Date.now();
    const link = await createSsoUrl({ userName, ip: '127.0.0.1', landing: 'trading-permissions' }, sso);
    assert.ok(link.expiresAt.getTime() >= before + 60_000 && link.expiresAt.getTime() <= Date.now() + 60_000);
    assert.match(link.url, /SID=.*ACTION=/);
    // The landing page's parameters ride on the session; a pending application is sent to the application.
    const page = await visit(link.url);
    assert.equal(page.status, 302);
    assert.match(page.headers.get('location') ?? '', /^\/portal\/application\?SID=/);
    const refused = await sso.ssoCreate({ userName: 'nobody', ip: '127.0.0.1' });
    assert.equal(refused.result, false);
    assert.match(refused.error ?? '', /HTTP 400/);
    // Not the XML service's host rules loosened: a production link must be https on the brokerage's hosts.
    await assert.rejects(
      webApiBrokerage(api, sim.csid, 'prod').ssoCreate({ userName, ip: '127.0.0.1' }),
      /must use https|not allowed/,
    );
  });
});

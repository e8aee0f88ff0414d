import assert from 'node:assert/strict';
import { seal } from '../../eca/crypto.js';
import { createSsoUrl } from '../../client/brokerage.js';
import { EcaRequestError } from '../../eca/errors.js';
import { buildLandingUrl, buildSsoPayload, decodeSignedUrl, EcaSsoSessionIdError } from '../../eca/sso.js';
import { createEcaClient, type EcaClient } from '../../eca/web-client/index.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { control, createAccount, op, post, start, type Firm } from './helpers.js';

describe('simulator sso/create, portal and preference/set', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let openUser: string;
  let pendingUser: string;

  before(async function () {
    ({ sim, firm } = await start());
    openUser = (await createAccount(sim, firm, 'happy-sso')).userName;
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    pendingUser = (await createAccount(sim, firm, 'portal-task-sso')).userName;
  });
  after(async function () {
    await sim.close();
  });

  async function sso(userName: string, ip: string, who: Firm = firm) {
    const json = JSON.stringify(buildSsoPayload({ userName, ip }));
    const payload = await seal(new TextEncoder().encode(json), who.keys);
    return op(sim, 'sso/create', { CSID: who.csid, payload });
  }

  async function signedUrl(userName: string, ip = '127.0.0.1') {
    const { body } = await sso(userName, ip);
    assert.equal(body.RESULT, true, String(body.ERROR));
    const success = body.SUCCESS as { SIGNED_URL: string };
    return decodeSignedUrl(success.SIGNED_URL, 'qa', { allowInsecureLoopback: true });
  }

  const visit = (url: string) => fetch(url, { redirect: 'manual' });

  it('gives a unique URL per request that lands on the page named by ACTION', async function () {
    const first = await signedUrl(openUser);
    const second = await signedUrl(openUser);
    assert.notEqual(first.url, second.url);
    assert.ok(first.url.startsWith(sim.portalUrl));
    const page = await visit(buildLandingUrl(first, 'trading-permissions'));
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<h1>Trading Permissions<\/h1>/);
    const home = await visit(second.url);
    assert.match(await home.text(), /<h1>Home<\/h1>/);
  });

  it('refuses an unknown landing page, and funding pages in QA', async function () {
    const url = await signedUrl(openUser);
    assert.equal((await visit(`${url.url}&ACTION=NoSuchPage`)).status, 404);
    const funding = await visit(buildLandingUrl(url, 'transfer-funds'));
    assert.equal(funding.status, 403);
    assert.match(await funding.text(), /not available in the QA environment/);
  });

  it('sends pending applications to the application', async function () {
    const url = await signedUrl(pendingUser);
    const landing = await visit(buildLandingUrl(url, 'statements'));
    assert.equal(landing.status, 302);
    const location = landing.headers.get('location') ?? '';
    assert.match(location, /^\/portal\/application\?SID=/);
    const application = await visit(`${sim.url}${location}`);
    assert.equal(application.status, 200);
    assert.match(await application.text(), /Account application[\s\S]*Financial Information Questionnaire/);
  });

  it('refuses a URL after 60 seconds', async function () {
    const url = await signedUrl(openUser);
    await control(sim, 'POST', '/clock/advance', { seconds: 61 });
    const page = await visit(url.url);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /expired/);
  });

  it('refuses a URL opened from another IP than the one sent', async function () {
    const url = await signedUrl(openUser, '203.0.113.7');
    const page = await visit(url.url);
    assert.equal(page.status, 403);
    assert.match(await page.text(), /another IP address/);
  });

  it('binds a URL to the address sent, not to every loopback address', async function () {
    // The simulator listens on 127.0.0.1, so every visit below comes from 127.0.0.1.
    const forIpv6Loopback = await visit((await signedUrl(openUser, '::1')).url);
    assert.equal(forIpv6Loopback.status, 403);
    assert.match(await forIpv6Loopback.text(), /another IP address/);
    const forOtherLoopback = await visit((await signedUrl(openUser, '127.0.0.2')).url);
    assert.equal(forOtherLoopback.status, 403);
    // The same address written as an IPv4-mapped IPv6 address (how a dual-stack socket shows an IPv4 peer).
    const mapped = await visit((await signedUrl(openUser, '::ffff:127.0.0.1')).url);
    assert.equal(mapped.status, 200);
  });

  it('in QA, denies access from an IP that is not whitelisted', async function () {
    await control(sim, 'PUT', `/firms/${firm.csid}/whitelist`, { ips: ['198.51.100.1'] });
    try {
      const page = await visit((await signedUrl(openUser)).url);
      assert.equal(page.status, 403);
      assert.match(await page.text(), /Access Denied/);
    } finally {
      await control(sim, 'PUT', `/firms/${firm.csid}/whitelist`, { ips: ['127.0.0.1', '::1', '::ffff:127.0.0.1'] });
    }
  });

  it('answers RESULT false with ERROR for wrong keys, unknown users and several IPs', async function () {
    const wrongKeys = await op(sim, 'sso/create', {
      CSID: firm.csid,
      payload: Buffer.from('{"USER_NAME":"x","IP":"127.0.0.1"}').toString('base64'),
    });
    assert.equal(wrongKeys.body.RESULT, false);
    assert.match(String(wrongKeys.body.ERROR), /Encryption error/);
    const unknown = await sso('nobody', '127.0.0.1');
    assert.equal(unknown.body.RESULT, false);
    const json = JSON.stringify({ USER_NAME: openUser, IP: '127.0.0.1, 10.0.0.1' });
    const two = await op(sim, 'sso/create', {
      CSID: firm.csid,
      payload: await seal(new TextEncoder().encode(json), firm.keys),
    });
    assert.equal(two.body.RESULT, false);
    assert.match(String(two.body.ERROR), /one IP/);
  });

  it('preference/set lives under the preference base and checks user and language codes', async function () {
    const body = (userName: string, lang1: string) => ({
      customerIdentity: { userName },
      preferences: { LANGUAGE: { LANG1: lang1, LANG2: 'en' } },
      updateMode: 'INDIVIDUAL',
      modifiedBy: 'ECA',
      srcApp: 'ECA',
    });
    const okResponse = await post(sim.preferenceUrl, '/preference/set', body(openUser, 'fr'));
    assert.equal(okResponse.status, 200);
    assert.equal(okResponse.body.result, 'SUCCESS');
    assert.equal((await post(sim.preferenceUrl, '/preference/set', body('nobody', 'fr'))).status, 404);
    assert.equal((await post(sim.preferenceUrl, '/preference/set', body(openUser, 'French'))).status, 400);
    assert.equal((await post(sim.url, '/preference/set', body(openUser, 'fr'))).status, 404);
  });
});

describe('simulator portal in prod', function () {
  it('does not check the QA whitelist', async function () {
    const { sim, firm } = await start({ env: 'prod' });
    try {
      const { userName } = await createAccount(sim, firm, 'happy-prod');
      await control(sim, 'POST', '/clock/advance', { days: 1 });
      await control(sim, 'PUT', `/firms/${firm.csid}/whitelist`, { ips: [] });
      const payload = await seal(
        new TextEncoder().encode(JSON.stringify(buildSsoPayload({ userName, ip: '127.0.0.1' }))),
        firm.keys,
      );
      const { body } = await op(sim, 'sso/create', { CSID: firm.csid, payload });
      const url = decodeSignedUrl((body.SUCCESS as { SIGNED_URL: string }).SIGNED_URL, 'prod', {
        allowInsecureLoopback: true,
      });
      const page = await fetch(buildLandingUrl(url, 'transfer-funds'));
      assert.equal(page.status, 200);
    } finally {
      await sim.close();
    }
  });
});

// Spec, sso/create landing pages: "`<sid>` is the session id of the URL" (where the URL holds it: not shown).
describe('simulator portal under sso-sid-elsewhere', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let eca: EcaClient;
  let userName: string;

  before(async function () {
    ({ sim, firm } = await start({ unpromised: ['sso-sid-elsewhere'] }));
    ({ userName } = await createAccount(sim, firm, 'happy-sid-elsewhere'));
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
      environment: 'qa',
      sso: { allowInsecureLoopback: true },
    });
  });
  after(async function () {
    await sim.close();
  });

  it('hands out URLs with the session id in the path, which its portal accepts there', async function () {
    const { signedUrl } = await eca.ssoCreate({ userName, ip: '127.0.0.1' });
    assert.ok(signedUrl);
    const url = new URL(signedUrl.url);
    assert.equal(url.searchParams.has('SID'), false);
    assert.match(url.pathname, /^\/portal\/sso\/Login\/[0-9A-F]{32}$/);
    assert.equal(signedUrl.sid, undefined);
    const landing = await fetch(`${signedUrl.url}?ACTION=Statement`, { redirect: 'manual' });
    assert.match(await landing.text(), /<h1>Statements<\/h1>/);
    const home = await fetch(signedUrl.url, { redirect: 'manual' });
    assert.match(await home.text(), /<h1>Home<\/h1>/);
    // A pending application is sent to the application, the session id kept in the path.
    const pending = await createAccount(sim, firm, 'portal-task-sid-elsewhere');
    const pendingUrl = (await eca.ssoCreate({ userName: pending.userName, ip: '127.0.0.1' })).signedUrl;
    const redirect = await fetch(pendingUrl?.url ?? '', { redirect: 'manual' });
    assert.match(redirect.headers.get('location') ?? '', /^\/portal\/application\/[0-9A-F]{32}$/);
    const application = await fetch(`${sim.url}${redirect.headers.get('location') ?? ''}`);
    assert.match(await application.text(), /Account application/);
  });

  it('the engine builds no landing URL it cannot fill: a typed error names the missing SID; the plain link works', async function () {
    await assert.rejects(
      createSsoUrl({ userName, ip: '127.0.0.1', landing: 'statements' }, eca),
      (error: unknown) =>
        error instanceof EcaSsoSessionIdError &&
        !(error instanceof EcaRequestError) &&
        error.landing === 'statements' &&
        /SIGNED_URL: carries no SID query parameter/.test(error.message),
    );
    const plain = await createSsoUrl({ userName, ip: '127.0.0.1' }, eca);
    const home = await fetch(plain.url, { redirect: 'manual' });
    assert.equal(home.status, 200);
    assert.match(await home.text(), /<h1>Home<\/h1>/);
  });
});

import assert from 'node:assert/strict';
import { seal } from '../../../eca/crypto.js';
import { createSsoUrl } from '../../../client/brokerage.js';
import { EcaRequestError } from '../../../eca/errors.js';
import { buildLandingUrl, buildSsoPayload, decodeSignedUrl, EcaSsoSessionIdError } from '../../../eca/sso.js';
import { createEcaClient, type EcaClient } from '../../../eca/web-client/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, createAccount, op, passFirstAccess, post, postPortalForm, start, type Firm } from './helpers.js';

describe('simulator sso/create, portal and preference/set', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let openUser: string;
  let pendingUser: string;

  before(async function () {
    ({ sim, firm } = await start());
    const open = await createAccount(sim, firm, 'happy-sso');
    openUser = open.userName;
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    const pending = await createAccount(sim, firm, 'portal-task-sso');
    pendingUser = pending.userName;
    // The first access of each user (Authentication 7) is passed here; 'the first access by SSO' below tests it.
    assert.equal((await passFirstAccess(sim, (await signedUrl(openUser)).url, open.temporaryPassword)).status, 303);
    assert.equal(
      (await passFirstAccess(sim, (await signedUrl(pendingUser)).url, pending.temporaryPassword)).status,
      303,
    );
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

// Spec, Authentication 8: "Even in an SSO session, the portal demands user name and password when adding ACH
// instructions, adding wire withdrawal instructions or initiating a withdrawal request."
describe('simulator portal in prod', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let userName: string;

  before(async function () {
    ({ sim, firm } = await start({ env: 'prod' }));
    const made = await createAccount(sim, firm, 'happy-prod');
    userName = made.userName;
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    await control(sim, 'PUT', `/firms/${firm.csid}/whitelist`, { ips: [] });
    assert.equal(
      (await passFirstAccess(sim, (await signedUrl()).url, made.temporaryPassword, 'Mine#2025')).status,
      303,
    );
  });
  after(async function () {
    await sim.close();
  });

  async function signedUrl() {
    const payload = await seal(
      new TextEncoder().encode(JSON.stringify(buildSsoPayload({ userName, ip: '127.0.0.1' }))),
      firm.keys,
    );
    const { body } = await op(sim, 'sso/create', { CSID: firm.csid, payload });
    return decodeSignedUrl((body.SUCCESS as { SIGNED_URL: string }).SIGNED_URL, 'prod', {
      allowInsecureLoopback: true,
    });
  }

  it('does not check the QA whitelist', async function () {
    const page = await fetch(buildLandingUrl(await signedUrl(), 'statements'));
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<h1>Statements<\/h1>/);
  });

  it('asks for user name and password on withdrawal and instruction pages, not on a wire deposit', async function () {
    const url = await signedUrl();
    const withdrawal = { method: 'WIRE', type: 'WITHDRAWAL', currency: 'USD' } as const;
    const pages = [
      buildLandingUrl(url, 'transfer-funds'),
      buildLandingUrl(url, 'transfer-funds', withdrawal),
      buildLandingUrl(url, 'transfer-funds', { ...withdrawal, method: 'ACH', type: 'DEPOSIT' }),
      buildLandingUrl(url, 'wire-withdrawal'),
      buildLandingUrl(url, 'ach-withdrawal'),
      buildLandingUrl(url, 'ach-deposit'),
    ];
    for (const address of pages) {
      const html = await (await fetch(address)).text();
      assert.match(html, /data-landing="credentials"/, address);
      assert.match(html, /name="userName"[\s\S]*name="password"/, address);
    }
    const deposit = await fetch(buildLandingUrl(url, 'transfer-funds', { ...withdrawal, type: 'DEPOSIT' }));
    assert.match(await deposit.text(), /<h1>Transfer Funds<\/h1>/);
  });

  it('serves them once the user gives the password: never for a wrong one, again in each new session', async function () {
    const url = await signedUrl();
    const asked = await (await fetch(buildLandingUrl(url, 'wire-withdrawal'))).text();
    const wrong = await postPortalForm(sim, asked, { userName, password: 'not-mine' });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /data-landing="credentials"/);
    const stranger = await postPortalForm(sim, asked, { userName: 'someone', password: 'Mine#2025' });
    assert.equal(stranger.status, 401);
    assert.match(await (await fetch(buildLandingUrl(url, 'wire-withdrawal'))).text(), /data-landing="credentials"/);

    const given = await postPortalForm(sim, asked, { userName, password: 'Mine#2025' });
    assert.equal(given.status, 303);
    const page = await fetch(`${sim.url}${given.headers.get('location') ?? ''}`);
    assert.match(await page.text(), /Wire Withdrawal<\/h1>/);
    assert.match(
      await (await fetch(buildLandingUrl(url, 'ach-withdrawal'))).text(),
      /ACH (?:Deposit \/ ACH )?Withdrawal<\/h1>/,
    );

    const next = await fetch(buildLandingUrl(await signedUrl(), 'wire-withdrawal'));
    assert.match(await next.text(), /data-landing="credentials"/);
  });
});

// Spec, Authentication 7: "a password assigned at account creation is temporary; on first access by SSO the user
// must enter it and set a permanent one. Later SSO sessions enter the portal without user name and password."
describe('simulator portal: the first access by SSO', function () {
  let sim: RunningSimulator;
  let eca: EcaClient;

  before(async function () {
    let firm: Firm;
    ({ sim, firm } = await start());
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: firm.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
      environment: 'qa',
      sso: { allowInsecureLoopback: true },
    });
    Object.assign(made, {
      open: await createAccount(sim, firm, 'happy-first'),
      pending: await createAccount(sim, firm, 'stalled-first'),
    });
    await control(sim, 'POST', '/clock/advance', { days: 1 });
  });
  after(async function () {
    await sim.close();
  });

  const made: Record<'open' | 'pending', { userName: string; temporaryPassword: string }> = {
    open: { userName: '', temporaryPassword: '' },
    pending: { userName: '', temporaryPassword: '' },
  };
  const signed = async (userName: string) => (await eca.ssoCreate({ userName, ip: '127.0.0.1' })).signedUrl!;
  const step = /data-landing="first-access"/;

  it('asks for the temporary password on every page, after any other answer, until the step is passed', async function () {
    const { userName, temporaryPassword } = made.open;
    const url = await signed(userName);
    const landing = await fetch(buildLandingUrl(url, 'statements'));
    assert.equal(landing.status, 200);
    const asked = await landing.text();
    assert.match(asked, step);
    assert.doesNotMatch(asked, /<h1>Statements<\/h1>/);
    assert.equal((await fetch(`${url.url}&ACTION=NoSuchPage`)).status, 404);
    assert.match(await (await fetch(url.url)).text(), step, 'a 404 passes no step');
    // A wrong temporary password, or a new one that is the same, passes nothing.
    assert.equal((await postPortalForm(sim, asked, { temporaryPassword: 'Tmp-guess', newPassword: 'x1' })).status, 401);
    const same = { temporaryPassword, newPassword: temporaryPassword };
    assert.equal((await postPortalForm(sim, asked, same)).status, 400);
    assert.match(await (await fetch(url.url)).text(), step);

    const passed = await postPortalForm(sim, asked, { temporaryPassword, newPassword: 'Permanent#1' });
    assert.equal(passed.status, 303);
    const page = await fetch(`${sim.url}${passed.headers.get('location') ?? ''}`);
    assert.match(await page.text(), /<h1>Statements<\/h1>/, 'on to the page asked for');
    const later = await fetch(buildLandingUrl(await signed(userName), 'trading-permissions'));
    assert.match(await later.text(), /<h1>Trading Permissions<\/h1>/, 'later sessions enter directly');
  });

  it('keeps the step for a pending application past its redirect to the application', async function () {
    const { userName, temporaryPassword } = made.pending;
    const redirect = await fetch((await signed(userName)).url, { redirect: 'manual' });
    assert.equal(redirect.status, 302);
    const application = await fetch(`${sim.url}${redirect.headers.get('location') ?? ''}`, { redirect: 'manual' });
    const asked = await application.text();
    assert.match(asked, step);
    const again = await fetch((await signed(userName)).url);
    assert.match(await again.text(), step, 'the redirect cleared nothing');
    const passed = await postPortalForm(sim, asked, { temporaryPassword, newPassword: 'Permanent#2' });
    assert.equal(passed.status, 303);
    const page = await fetch(`${sim.url}${passed.headers.get('location') ?? ''}`);
    assert.match(await page.text(), /<h1>Account application<\/h1>/);
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
    const made = await createAccount(sim, firm, 'happy-sid-elsewhere');
    userName = made.userName;
    await control(sim, 'POST', '/clock/advance', { days: 1 });
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
      environment: 'qa',
      sso: { allowInsecureLoopback: true },
    });
    const first = (await eca.ssoCreate({ userName, ip: '127.0.0.1' })).signedUrl;
    assert.equal((await passFirstAccess(sim, first?.url ?? '', made.temporaryPassword)).status, 303);
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
    const firstUrl = (await eca.ssoCreate({ userName: pending.userName, ip: '127.0.0.1' })).signedUrl;
    assert.equal((await passFirstAccess(sim, firstUrl?.url ?? '', pending.temporaryPassword)).status, 303);
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

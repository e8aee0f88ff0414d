/**
 * Answers the Web API's document allows that a strict reading would mishandle, each met through the simulator
 * over HTTP: a create received and not processed yet (never sent a second time), a pending task with no form
 * number, pages without `offset`, `limit` or `total`, a write answered without `requestId`, an error that names
 * no account, and an error body whose JWT crosses the excerpt's cut. Counted by the simulator's own records.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { applicationJsonOf } from '../../../activities/application-json.js';
import { createWebApiApplicationActivities } from '../../../activities/webapi-application.js';
import { readHandle, requestWindow } from '../../../brokerage/webapi/accounts.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { excerpt, WebApiAnswerError, WebApiHttpError, WebApiRequestError } from '../../../webapi/index.js';
import { webApiBrokerage } from '../../../brokerage/webapi/index.js';
import { createMaintenanceActivities } from '../../../activities/maintenance.js';
import { applicationXml } from '../../support/engine.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { inActivity } from '../../support/activity-context.js';

const POST = 'webapi POST /gw/api/v1/accounts';

/** A fetch that hands the simulator's JSON answers of the matching requests to `edit` before the client reads them. */
function rewriting(
  matches: (method: string, url: URL) => boolean,
  edit: (json: Record<string, unknown>) => unknown,
): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (!matches(init?.method ?? 'GET', url) || !response.ok) return response;
    const json = (await response.json()) as Record<string, unknown>;
    return new Response(JSON.stringify(edit(json)), { status: response.status, headers: response.headers });
  };
}

function without<T extends Record<string, unknown>>(json: T, ...names: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(json).filter(([name]) => !names.includes(name))) as Partial<T>;
}

describe('Web API answers the document allows, against the simulator', function () {
  this.timeout(60_000);
  let sim: RunningSimulator;
  let dir: string;
  let store: FileDocumentStore;
  let clients = 0;

  const clientOf = (fetcher?: typeof fetch): WebApiClient =>
    registerWebApiClient(sim, { clientId: `answers-${++clients}`, csid: sim.csid }).client(
      fetcher && { fetch: fetcher },
    );
  const activitiesOf = (api: WebApiClient) =>
    inActivity(
      createWebApiApplicationActivities({
        clientFor: () => Promise.resolve(api),
        store,
        now: () => new Date(sim.control.clock().epochMs),
      }),
    );

  before(async function () {
    ({ sim } = await start());
    dir = await mkdtemp(join(tmpdir(), 'eca-webapi-answers-'));
    store = new FileDocumentStore(dir);
  });
  afterEach(function () {
    sim.control.setUnpromised({
      'webapi-create-unprocessed': false,
      'webapi-formless-task': false,
      'webapi-wrong-id-500': false,
    });
    sim.control.setListingLag({});
  });
  after(async function () {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function created(api: WebApiClient, externalId: string): Promise<string> {
    await api.createAccount(applicationJsonOf(applicationXml(externalId)));
    const found = await api.applicationByExternalId(externalId);
    assert.ok(found.accountId, JSON.stringify(found));
    return found.accountId;
  }

  it('never sends a create again while the look-up says the application is received, not processed yet', async function () {
    sim.control.setUnpromised({ 'webapi-create-unprocessed': true });
    sim.control.setListingLag({ getResponseFile: { minMs: 60_000, maxMs: 60_000 } });
    const api = clientOf();
    const externalId = 'happy-unprocessed-1';
    // An earlier run's create, its answer never read: the brokerage holds the application.
    await api.createAccount(applicationJsonOf(applicationXml(externalId)));
    const looked = await api.applicationByExternalId(externalId);
    assert.equal(looked.isProcessed, false, JSON.stringify(looked));
    assert.equal(looked.accountId, undefined);
    sim.control.resetCalls();

    const application = await store.put(Buffer.from(applicationXml(externalId)));
    const input = { csid: sim.csid, externalId, application, documents: [] };
    // A first attempt, which may send: it finds the application in hand and sends nothing.
    const first = await activitiesOf(api).createAccount(input);
    assert.ok('unknown' in first, JSON.stringify(first));
    assert.match(first.unknown.reason, /not processed yet/);
    assert.equal(sim.control.calls()[POST], undefined, 'no second create');

    // Once its outcome is listed, the look the workflow makes finds the one account.
    sim.control.advanceClock({ minutes: 2 });
    const found = await activitiesOf(api).createAccount({ ...input, lookOnly: true });
    assert.ok(found.created, JSON.stringify(found));
    assert.equal(found.recovered, true);
    assert.equal(sim.control.calls()[POST], undefined);
    const accounts = sim.control.records({ csid: sim.csid }).accounts.filter((a) => a.externalId === externalId);
    assert.equal(accounts.length, 1, 'one account for the external id');
  });

  it('sends no create while the look-up names the application’s files, even with no account in them', async function () {
    const externalId = 'happy-files-only-1';
    const api = clientOf(
      rewriting(
        (method, url) => method === 'GET' && url.pathname === '/gw/api/v1/accounts',
        () => ({ requestFileName: 'Firm_2025-01-08_0001.json', responseFileName: 'Firm_2025-01-08_0001.xml' }),
      ),
    );
    sim.control.resetCalls();
    const application = await store.put(Buffer.from(applicationXml(externalId)));
    const outcome = await activitiesOf(api).createAccount({ csid: sim.csid, externalId, application, documents: [] });
    assert.ok('unknown' in outcome, JSON.stringify(outcome));
    assert.equal(sim.control.calls()[POST], undefined, 'no create sent');
  });

  it('reads a request’s outcome over the days around its day, and a plain id over the year', function () {
    const now = new Date('2025-03-10T12:00:00Z');
    assert.deepEqual(readHandle('41@2025-03-09', now), {
      requestId: '41',
      window: { startDate: '2025-03-07', endDate: '2025-03-11' },
    });
    assert.deepEqual(readHandle('41', now), { requestId: '41', window: requestWindow(now) });
  });

  it('reads an account whose pending tasks include an identity verification with no form number', async function () {
    sim.control.setUnpromised({ 'webapi-formless-task': true });
    const api = clientOf();
    const accountId = await created(api, 'docs-required-formless-1');
    const pending = await api.pendingTasks(accountId);
    const verification = pending.pendingTasks.find((task) => task.formNumber === undefined);
    assert.ok(verification, JSON.stringify(pending));
    assert.ok(verification.url, 'its page for the account holder');

    const { tasks } = await activitiesOf(api).readAccount({ csid: sim.csid, accountId });
    const read = tasks.find((task) => task.formNumber === '');
    assert.ok(read, JSON.stringify(tasks));
    assert.equal(read.isRequiredForApproval, false);
    assert.equal(read.url, verification.url);
    assert.ok(read.urlExpiresAt, 'its expiry');
    assert.ok(
      tasks.some((task) => task.formNumber !== ''),
      'the forms the docs-required scenario asks for are read beside it',
    );
  });

  it('follows pages that carry no offset, limit or total until an empty one', async function () {
    const plain = clientOf();
    const accountIds = [
      await created(plain, 'happy-pages-1'),
      await created(plain, 'happy-pages-2'),
      await created(plain, 'happy-pages-3'),
    ];
    let pages = 0;
    const api = clientOf(
      rewriting(
        (_method, url) => url.pathname === '/gw/api/v1/accounts/status',
        (json) => {
          pages += 1;
          return without(json, 'offset', 'limit', 'total');
        },
      ),
    );
    const day = new Date(sim.control.clock().epochMs).toISOString().slice(0, 10);
    const listed: string[] = [];
    for await (const account of api.accountStatuses({ startDate: day, endDate: day, limit: 2 })) {
      listed.push(account.accountId ?? '');
    }
    for (const accountId of accountIds) assert.ok(listed.includes(accountId), `${accountId} listed`);
    assert.equal(new Set(listed).size, listed.length, 'each account once');
    // Pages of two, and the empty one that ends the listing.
    assert.equal(pages, Math.ceil(listed.length / 2) + (listed.length % 2 === 0 ? 1 : 0) + (listed.length % 2));
  });

  it('names a request answered without its requestId by the account’s new request, and reads it by its day', async function () {
    const plain = clientOf();
    const accountId = await created(plain, 'docs-required-no-id-1');
    const known = await activitiesOf(plain).listAccountRequests({ csid: sim.csid, accountId });
    const api = clientOf(
      rewriting(
        (method, url) => method === 'PATCH' && url.pathname === '/gw/api/v1/accounts',
        (json) => without(json, 'requestId'),
      ),
    );
    const outcome = await activitiesOf(api).sendApplicationUpdate({
      csid: sim.csid,
      accountId,
      functionName: 'AbandonAccount',
      known,
    });
    assert.ok(outcome.accepted && outcome.responseFile, JSON.stringify(outcome));
    const [filed, ...more] = sim.control
      .records({ csid: sim.csid })
      .accounts.find((account) => account.accountId === accountId)!
      .requests.filter((request) => request.functionName === 'AbandonAccount');
    assert.deepEqual(more, [], 'sent once');
    const handle = readHandle(outcome.responseFile, new Date(sim.control.clock().epochMs));
    assert.equal(handle.requestId, filed?.requestId);
    // Its outcome is read over the days around its submission, not over a year of the firm's requests.
    assert.notDeepEqual(handle.window, requestWindow(new Date(sim.control.clock().epochMs)));
    sim.control.advanceClock({ minutes: 10 });
    const decided = await activitiesOf(plain).readRequestByFile({
      csid: sim.csid,
      accountId,
      responseFile: outcome.responseFile,
    });
    assert.deepEqual(decided, { decided: true, processed: true });
  });

  it('reads an error answer that names no account as the service’s refusal, not as a malformed answer', async function () {
    const api = clientOf(
      rewriting(
        (_method, url) => url.pathname.endsWith('/status') && url.pathname.startsWith('/gw/api/v1/accounts/'),
        (json) => without(json, 'accountId'),
      ),
    );
    await assert.rejects(api.accountStatus('U0000404'), (error: unknown) => {
      assert.ok(error instanceof WebApiAnswerError, String(error));
      return true;
    });
  });

  it('sends no read the document refuses: a day the calendar lacks, a status letter or a language it does not list', async function () {
    const api = clientOf();
    sim.control.resetCalls();
    const refused = (parameter: string) => (error: unknown) => {
      assert.ok(error instanceof WebApiRequestError, String(error));
      assert.equal(error.parameter, parameter);
      return true;
    };
    const days = { startDate: '2025-02-01', endDate: '2025-02-28' };
    await assert.rejects(api.accountStatusPage({ ...days, startDate: '2025-02-30' }), refused('startDate'));
    await assert.rejects(api.accountStatusPage({ ...days, endDate: '2025-13-01' }), refused('endDate'));
    await assert.rejects(api.requestDetailsPage({ ...days, status: 'Z' }), refused('status'));
    await assert.rejects(api.enumerations('fin-info-ranges', { language: 'xx' }), refused('language'));
    assert.deepEqual(sim.control.calls(), {}, 'nothing sent');
    // What the document lists is sent: a leap day, and a status letter of its 14.
    const leap = await api.accountStatusPage({ startDate: '2024-02-29', endDate: '2024-02-29', status: 'Q' });
    assert.deepEqual(leap.accounts, []);
  });

  it('refuses an account id the brokerage answers 500 for when the firm’s accounts list none, and says so of a request', async function () {
    sim.control.setUnpromised({ 'webapi-wrong-id-500': true });
    const api = clientOf();
    const known = await created(api, 'happy-wrong-id-1');
    const wrong = 'U9999999';
    await assert.rejects(api.accountStatus(wrong), (error: unknown) => {
      assert.ok(error instanceof WebApiHttpError && error.status === 500, String(error));
      return true;
    });

    // The question whether an account is the firm's: answered by the firm's accounts, not a failure.
    assert.equal(await webApiBrokerage(api, sim.csid, 'qa').ownsAccount(wrong), false);
    assert.equal(await webApiBrokerage(api, sim.csid, 'qa').ownsAccount(known), true);
    // A 500 for an account the firm's accounts list is the service's failure: the account is the firm's.
    const failing = clientOf(async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === `/gw/api/v1/accounts/${known}/status`) return new Response('{}', { status: 500 });
      return fetch(input, init);
    });
    assert.equal(await webApiBrokerage(failing, sim.csid, 'qa').ownsAccount(known), true);

    // A maintenance request for it ends refused, sent once: no doubt to look for, no retry.
    sim.control.resetCalls();
    const dir2 = await mkdtemp(join(tmpdir(), 'eca-webapi-answers-body-'));
    try {
      const bodies = new FileDocumentStore(dir2);
      const body = await bodies.put(new TextEncoder().encode(JSON.stringify({ newExternalId: 'crm-500' })));
      const outcome = await inActivity(
        createMaintenanceActivities({
          eca: {} as never,
          store: bodies,
          webApi: { clientFor: () => Promise.resolve(api) },
        }),
      ).sendUpdateFunction({
        csid: sim.csid,
        accountId: wrong,
        functionName: 'UpdateExternalId',
        body,
        attachments: [],
        known: [],
        protocol: 'webapi',
      });
      // In doubt still (the bulk read's range is no promise that it lists every account), and saying why.
      assert.ok('unknown' in outcome, JSON.stringify(outcome));
      assert.match(outcome.unknown, /HTTP 500; the firm's accounts list no account U9999999/);
      assert.equal(sim.control.calls()['webapi PATCH /gw/api/v1/accounts'], 1);
    } finally {
      await rm(dir2, { recursive: true, force: true });
    }
  });

  it('withholds a JWT in an error body before it cuts the excerpt, so no part of its payload is kept', function () {
    const payload = Buffer.from(JSON.stringify({ name: 'Jane Applicant', ssn: '123-45-6789' })).toString('base64url');
    const jwt = `eyJhbGciOiJSUzI1NiJ9.${payload}.c2lnbmF0dXJl`;
    // The JWT starts before the 200th character and ends after it.
    const body = `${'x'.repeat(180)} ${jwt} trailing`;
    const kept = excerpt(body);
    assert.ok(kept.length <= 200);
    assert.ok(!kept.includes('eyJ'), kept);
    assert.ok(!kept.includes(payload.slice(0, 8)), kept);
    // A JWT cut short in the body itself (no signature part) is withheld too.
    assert.ok(!excerpt(`see eyJhbGciOiJSUzI1NiJ9.${payload}`).includes(payload.slice(0, 8)));
  });
});

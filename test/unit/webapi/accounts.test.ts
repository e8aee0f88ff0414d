/**
 * One brokerage, two protocols: an account the XML service made, read through the Web API (status, pending
 * tasks) by its own firm's client, and by no other firm's.
 */
import assert from 'node:assert/strict';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { WebApiAnswerError, WebApiHttpError, WebApiRequestError } from '../../../webapi/index.js';
import { accountStatus, createAccount, op, start } from '../simulator/helpers.js';
import type { Firm } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { until } from '../../support/until.js';
import { createWebApiApplicationActivities } from '../../../activities/webapi-application.js';
import { taskView } from '../../../brokerage/webapi/accounts.js';

describe('Web API account reads against the simulator: the XML service’s accounts, per firm', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let firm: Firm;

  before(async function () {
    ({ sim, firm } = await start());
  });
  after(async function () {
    await sim.close();
  });

  const clientOf = (csid: string, clientId: string, fetcher?: typeof fetch): WebApiClient =>
    registerWebApiClient(sim, { clientId, csid }).client(fetcher && { fetch: fetcher });

  it('reads the status and the pending tasks the XML service reads, in the document’s shapes', async function () {
    const { accountId } = await createAccount(sim, firm, 'docs-required-1');
    const api = clientOf(firm.csid, 'firm-client');
    const status = await api.accountStatus(accountId);
    const xml = await accountStatus(sim, firm.csid, accountId);
    assert.equal(status.accountId, accountId);
    assert.equal(status.status, xml.status);
    assert.equal(status.hasError, false);
    const tasks = await api.pendingTasks(accountId);
    const { body } = await op(sim, 'getPendingTasks', { CSID: firm.csid, acctIds: [accountId] });
    const [entry] = body.result as Array<{ pendingTasks: Array<{ formNumber: string }> }>;
    assert.ok(entry!.pendingTasks.length > 0, 'the docs-required scenario waits on documents');
    assert.deepEqual(
      tasks.pendingTasks.map((task) => task.formNumber),
      entry!.pendingTasks.map((task) => Number(task.formNumber)),
    );
    assert.equal(tasks.pendingTaskPresent, true);
  });

  it('shows an online task’s page as the Web API gives it, and an identity verification’s expiry', async function () {
    const { accountId } = await createAccount(sim, firm, 'portal-task-link');
    const api = clientOf(firm.csid, 'link-client');
    const reader = createWebApiApplicationActivities({ clientFor: () => Promise.resolve(api), store: {} as never });
    const online = await until('the portal task listed', async () => {
      const { tasks } = await reader.readAccount({ csid: firm.csid, accountId });
      return tasks.find((task) => task.isOnlineTask);
    });
    assert.ok(online.url?.startsWith(`${sim.portalUrl}/`), JSON.stringify(online));
    // The simulator makes no identity verification: its expiry is read as the document shapes it.
    const verification = taskView({
      formNumber: 8101,
      formName: 'Identity verification',
      url: 'https://verify.example.test/s/abc',
      au10tixExpiryDate: '2026-12-01T10:00:00Z',
    });
    assert.equal(verification.url, 'https://verify.example.test/s/abc');
    assert.equal(verification.urlExpiresAt, '2026-12-01T10:00:00Z');
    assert.equal(taskView({ formNumber: 1, url: '' }).url, undefined);
  });

  it("answers another firm's account as no account, and refuses a malformed id before sending", async function () {
    const { accountId } = await createAccount(sim, firm, 'happy-2');
    const other = await sim.control.registerFirm({ name: 'OtherFirm' });
    const stranger = clientOf(other.csid, 'other-client');
    const refused = await stranger.accountStatus(accountId).catch((error: unknown) => error);
    assert.ok(refused instanceof WebApiAnswerError, String(refused));
    assert.match(refused.message, /«Account not found»/);
    await assert.rejects(stranger.pendingTasks(accountId), WebApiAnswerError);
    await assert.rejects(stranger.accountStatus('../../echo'), WebApiRequestError);
  });

  it("lists the firm's accounts started within the dates, a page at a time, and no other firm's", async function () {
    for (let i = 1; i <= 5; i++) await createAccount(sim, firm, `happy-page-${i}`);
    let calls = 0;
    const api = clientOf(firm.csid, 'pager', (input, init) => {
      calls++;
      return fetch(input, init);
    });
    const some = await api.accountStatusPage({ startDate: '2000-01-01', endDate: '2000-12-31', limit: 5 });
    assert.deepEqual(some, { accounts: [], offset: 0, limit: 5, total: 0 });
    const day = (
      await api.accountStatus((await createAccount(sim, firm, 'happy-page-6')).accountId)
    ).dateStarted!.slice(0, 10);
    const range = { startDate: day, endDate: day };
    const first = await api.accountStatusPage({ ...range, limit: 2 });
    assert.equal(first.accounts.length, 2);
    const total = first.total ?? assert.fail('the simulator gives a total');
    assert.ok(total >= 6, `total ${total}`);
    calls = 0;
    const all = [];
    for await (const account of api.accountStatuses({ ...range, limit: 2 })) all.push(account.accountId);
    assert.equal(new Set(all).size, total, 'every account once');
    assert.equal(calls, Math.ceil(total / 2), 'one call a page (the token kept)');
    const status = first.accounts[0]!.status!;
    for await (const account of api.accountStatuses({ ...range, status })) assert.equal(account.status, status);
    const other = await sim.control.registerFirm({ name: 'PagerOther' });
    const stranger = clientOf(other.csid, 'pager-other');
    assert.equal((await stranger.accountStatusPage(range)).total, 0);
    const refused = await api
      .accountStatusPage({ startDate: day, endDate: '2000-01-01' })
      .catch((error: unknown) => error);
    assert.ok(refused instanceof WebApiHttpError && refused.status === 400, String(refused));
    await assert.rejects(api.accountStatuses({ ...range, limit: 1001 }).next(), WebApiRequestError);
  });
});

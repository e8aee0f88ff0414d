/**
 * The Web API's account writes against the simulator: an application created through `POST /gw/api/v1/accounts`
 * (the firm's XML mapped to the document's JSON), found by its external id, and changed through
 * `PATCH /gw/api/v1/accounts` (documents, abandon, reset), each request listed by `GET /gw/api/v1/requests`;
 * the XML service sees the same accounts. Counted by the simulator's records.
 */
import assert from 'node:assert/strict';
import { applicationJsonOf } from '../../../activities/application-json.js';
import { documentJson } from '../../../brokerage/webapi/documents.js';
import { requestWindow } from '../../../brokerage/webapi/accounts.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { WebApiHttpError } from '../../../webapi/index.js';
import { applicationXml, pdf } from '../../support/engine.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';

describe('Web API account writes against the simulator: create, look up, documents, abandon, reset', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let api: WebApiClient;

  const clientOf = (csid: string, clientId: string): WebApiClient =>
    registerWebApiClient(sim, { clientId, csid }).client();

  const window = () => requestWindow(new Date(sim.control.clock().epochMs));
  async function requestStatus(requestId: number | undefined): Promise<string | undefined> {
    assert.ok(requestId !== undefined, 'the simulator names each request');
    for await (const detail of api.requestDetails(window())) {
      if (detail.requestId === requestId) return detail.status;
    }
    return undefined;
  }

  async function created(externalId: string) {
    const answer = await api.createAccount(applicationJsonOf(applicationXml(externalId)));
    assert.ok(Number.isInteger(answer.requestId));
    const found = await api.applicationByExternalId(externalId);
    assert.ok(found.accountId, JSON.stringify(found));
    return found.accountId;
  }

  before(async function () {
    ({ sim } = await start());
    api = clientOf(sim.csid, 'writer');
  });
  after(async function () {
    await sim.close();
  });

  it('creates the account of an application, found by its external id on both protocols and by no other firm', async function () {
    const accountId = await created('docs-required-w1');
    assert.equal(sim.control.accountByExternalId('docs-required-w1')?.accountId, accountId);
    assert.equal((await api.accountStatus(accountId)).status, sim.control.account(accountId)?.status);
    assert.equal(sim.control.calls()['webapi POST /gw/api/v1/accounts'], 1);
    assert.equal(sim.control.calls().create, undefined, 'no XML create');
    const other = await sim.control.registerFirm({ name: 'WriterOther' });
    const stranger = clientOf(other.csid, 'writer-other');
    const seen = await stranger.applicationByExternalId('docs-required-w1');
    assert.equal(seen.accountId, undefined);
    assert.equal(seen.hasError, true);
  });

  it('records a refused application as processed with its error, and makes no account', async function () {
    const body = applicationJsonOf(applicationXml('happy-w-refused'));
    body.customer.accountHolder!.accountHolderDetails[0]!.email = undefined;
    await api.createAccount(body);
    const found = await api.applicationByExternalId('happy-w-refused');
    assert.equal(found.accountId, undefined);
    assert.equal(found.isProcessed, true);
    assert.match(found.errorDescription ?? '', /holder 1: email/);
    assert.equal(sim.control.accountByExternalId('happy-w-refused'), undefined);
    const malformed = await api
      .createAccount({ ...body, customer: { ...body.customer, type: '' } })
      .catch((error: unknown) => error);
    assert.ok(malformed instanceof WebApiHttpError && malformed.status === 400, String(malformed));
    assert.match(malformed.bodyExcerpt, /application\.customer\.type/);
  });

  it('takes the documents a task asks for, and lists the request until it is processed', async function () {
    const accountId = await created('docs-required-w2');
    sim.control.advanceClock({ ms: 2 * 3_600_000 });
    const asked = (await api.pendingTasks(accountId)).pendingTasks.map((task) => String(task.formNumber));
    assert.ok(asked.length > 0, 'the docs-required scenario asks for documents');
    const at = new Date(sim.control.clock().epochMs);
    const documents = asked.map((form) => documentJson({ formNumber: form, fileName: `${form}.pdf` }, pdf(form), at));
    const filed = await api.manageAccounts({ documentSubmission: { accountId, documents } });
    assert.equal(await requestStatus(filed.requestId), 'PENDING');
    sim.control.advanceClock({ ms: 10 * 60_000 });
    assert.equal(await requestStatus(filed.requestId), 'PROCESSED');
    const tasks = (await api.pendingTasks(accountId)).pendingTasks;
    assert.ok(
      tasks.every((task) => !asked.includes(String(task.formNumber)) || task.state !== 'To Be Sent'),
      JSON.stringify(tasks),
    );

    // A PDF whose bytes are not the declared ones: the request is filed and rejected.
    const [first] = documents;
    const tampered = { ...first!, payload: { data: Buffer.from(pdf('other')).toString('base64') } };
    const refused = await api.manageAccounts({ documentSubmission: { accountId, documents: [tampered] } });
    sim.control.advanceClock({ ms: 10 * 60_000 });
    assert.equal(await requestStatus(refused.requestId), 'REJECTED');
  });

  it('abandons and resets an application, each a request of its own', async function () {
    const accountId = await created('stalled-w3');
    const abandoned = await api.manageAccounts({ abandonAccount: { accountId } });
    sim.control.advanceClock({ ms: 10 * 60_000 });
    assert.equal(await requestStatus(abandoned.requestId), 'PROCESSED');
    assert.equal((await api.accountStatus(accountId)).status, 'A');
    const reset = await api.manageAccounts({ resetAbandonedAccount: { accountId } });
    assert.notEqual(reset.requestId, abandoned.requestId);
    sim.control.advanceClock({ ms: 10 * 60_000 });
    assert.equal(await requestStatus(reset.requestId), 'PROCESSED');
    assert.notEqual((await api.accountStatus(accountId)).status, 'A');
    const two = await api
      .manageAccounts({ abandonAccount: { accountId }, resetAbandonedAccount: { accountId } })
      .catch((error: unknown) => error);
    assert.ok(two instanceof WebApiHttpError && two.status === 400, String(two));
  });
});

/**
 * Account maintenance through the Web API (`PATCH /gw/api/v1/accounts`, one member of the account management
 * requests) against the simulator: the maintenance activity sends the firm's JSON as its function's member
 * once, finds it again after a lost answer without sending it twice (by the brokerage's own records), and
 * sends nothing for a body that is not the member's. `SecurityQuestions`, whose member names no account, is
 * filed on its user's, and listed without an account (the document does not promise one), so a lost answer
 * of it stays in doubt.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMaintenanceActivities } from '../../../activities/maintenance.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { maintenanceRequest, WebApiAnswerError } from '../../../webapi/index.js';
import type { UpdateFunctionRequest } from '../../../workflows/maintenance/activities.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { until } from '../../support/until.js';
import { inActivity } from '../../support/activity-context.js';

describe('Web API account maintenance against the simulator: one update function as its account management request', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let dir: string;
  let store: FileDocumentStore;
  let client: WebApiClient;
  let accountId: string;
  const patch = 'webapi PATCH /gw/api/v1/accounts';

  const send = (input: Partial<UpdateFunctionRequest> & { functionName: string }) =>
    inActivity(
      createMaintenanceActivities({ eca: {} as never, store, webApi: { clientFor: () => Promise.resolve(client) } }),
    ).sendUpdateFunction({ csid: sim.csid, accountId, attachments: [], known: [], protocol: 'webapi', ...input });
  const body = async (json: unknown) => store.put(new TextEncoder().encode(JSON.stringify(json)));
  const requestsOf = (functionName: string) =>
    sim.control
      .records({ csid: sim.csid })
      .accounts.flatMap((account) => account.requests)
      .filter((request) => request.functionName === functionName);

  before(async function () {
    // The brokerage's clock is the worker's: requests are listed over dates around the worker's day.
    ({ sim } = await start({ startTime: Date.now() }));
    dir = await mkdtemp(join(tmpdir(), 'eca-webapi-maintenance-'));
    store = new FileDocumentStore(join(dir, 'documents'));
    client = registerWebApiClient(sim, { clientId: 'maint', csid: sim.csid }).client({ timeoutMs: 2000 });
    [accountId] = sim.control.seedAccounts({ count: 1, csid: sim.csid, prefix: 'happy-maint-' }) as [string];
    sim.control.advanceClock({ days: 30 });
    assert.equal(sim.control.account(accountId)?.status, 'O', 'an open account to maintain');
  });
  after(async function () {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('sends the firm’s JSON as its function’s member, once, named by the request id: no XML call', async function () {
    sim.control.resetCalls();
    const outcome = await send({ functionName: 'ChangeBaseCurrency', body: await body({ newBaseCurrency: 'EUR' }) });
    assert.equal(outcome.accepted, true, JSON.stringify(outcome));
    const [request, ...more] = requestsOf('ChangeBaseCurrency');
    assert.deepEqual(more, []);
    assert.equal(request?.via, 'webapi');
    // The handle names the request by its id (and by its day only when the brokerage's is near the worker's:
    // this simulator's clock runs a month ahead).
    const handle = 'responseFile' in outcome ? outcome.responseFile : undefined;
    assert.equal(handle, request?.requestId);
    assert.equal(sim.control.calls()[patch], 1);
    assert.equal(sim.control.calls().update, undefined);
  });

  it('finds its request again after a lost answer, without sending it twice', async function () {
    sim.control.addFault({ operation: patch, kind: 'lost-response', count: 1 });
    sim.control.resetCalls();
    // The account's requests before the send, as the workflow lists them: a look adopts only a new one.
    const known = sim.control
      .records({ csid: sim.csid })
      .accounts.flatMap((account) => account.requests.map((request) => request.requestId));
    assert.ok(known.length > 0);
    const input = { functionName: 'UpdateExternalId', body: await body({ newExternalId: 'crm-77' }), known };
    const lost = await send(input);
    assert.equal(lost.accepted, false);
    assert.ok('unknown' in lost, JSON.stringify(lost));
    // The brokerage filed it (its records say so); the workflow looks, never sends again.
    const [filed, ...more] = requestsOf('UpdateExternalId');
    assert.deepEqual(more, []);
    // Listed after the listing's lag: the workflow looks on its timers until then.
    const found = await until('the lost request listed', async () => {
      sim.control.advanceClock({ minutes: 1 });
      const looked = await send({ ...input, lookOnly: true });
      return looked.accepted ? looked : undefined;
    });
    assert.deepEqual(
      { ...found, responseFile: found.responseFile?.split('@')[0] },
      {
        accepted: true,
        responseFile: filed?.requestId,
        recovered: true,
      },
    );
    assert.equal(sim.control.calls()[patch], 1);
  });

  it('sends nothing for a body that is not the member’s, or for attachments: the reason names the field', async function () {
    sim.control.resetCalls();
    const wrong = await send({ functionName: 'ChangeBaseCurrency', body: await body({ newBaseCurrency: 978 }) });
    assert.equal(wrong.accepted, false);
    assert.match('error' in wrong ? (wrong.error ?? '') : '', /^not sent: body\.newBaseCurrency: .*changeBaseCurrency/);
    const other = await send({
      functionName: 'ChangeBaseCurrency',
      body: await body({ accountId: 'U999', newBaseCurrency: 'EUR' }),
    });
    assert.match('error' in other ? (other.error ?? '') : '', /body\.accountId: names account "U999"/);
    const attached = await send({
      functionName: 'UpdateTaxForm',
      body: await body({}),
      attachments: [{ ...(await body({})), fileName: 'w8.pdf' }],
    });
    assert.match('error' in attached ? (attached.error ?? '') : '', /attachments/);
    assert.equal(sim.control.calls()[patch], undefined, 'nothing sent');
  });

  it('ends a request the brokerage refuses as it came, or answers with an error, REJECTED in its words: never resent', async function () {
    const readOnly = registerWebApiClient(sim, { clientId: 'maint-ro', csid: sim.csid, scopes: ['accounts.read'] });
    const refusedBy = (api: WebApiClient) =>
      inActivity(
        createMaintenanceActivities({ eca: {} as never, store, webApi: { clientFor: () => Promise.resolve(api) } }),
      );
    sim.control.resetCalls();
    const input = {
      csid: sim.csid,
      accountId,
      functionName: 'ChangeBaseCurrency',
      protocol: 'webapi' as const,
      body: await body({ newBaseCurrency: 'EUR' }),
      attachments: [],
      known: [],
    };
    const forbidden = await refusedBy(readOnly.client()).sendUpdateFunction(input);
    assert.equal(forbidden.accepted, false);
    assert.match(
      'error' in forbidden ? (forbidden.error ?? '') : '',
      /^update refused: HTTP 403 \(.*Insufficient permissions/,
    );
    assert.equal(sim.control.calls()[patch], 1, 'one call, refused');
    // The simulator files every PATCH it takes; a brokerage that answers `hasError` is stood in for here.
    const answering = {
      ...client,
      requestDetails: client.requestDetails.bind(client),
      manageAccounts: () => Promise.reject(new WebApiAnswerError('manageAccounts', 'Account is closed')),
    } as unknown as WebApiClient;
    const answered = await refusedBy(answering).sendUpdateFunction(input);
    assert.deepEqual(answered, {
      accepted: false,
      error: 'update refused: manageAccounts: the service answered an error «Account is closed»',
    });
    // A worker without Web API clients never ends a request it only looks for.
    const without = inActivity(createMaintenanceActivities({ eca: {} as never, store }));
    assert.ok('unknown' in (await without.sendUpdateFunction({ ...input, lookOnly: true })));
    const notSent = await without.sendUpdateFunction(input);
    assert.match('error' in notSent ? (notSent.error ?? '') : '', /^not sent/);
  });

  it('files SecurityQuestions, whose member names no account, on its user’s account', async function () {
    const userName = sim.control.account(accountId)!.userName;
    const details = [{ question: 'first school', answer: 'Hillside' }];
    const outcome = await send({
      functionName: 'SecurityQuestions',
      body: await body({ referenceUserName: userName, details }),
    });
    assert.equal(outcome.accepted, true, JSON.stringify(outcome));
    const [account, ...others] = sim.control
      .records({ csid: sim.csid })
      .accounts.filter((record) => record.requests.some((request) => request.functionName === 'SecurityQuestions'));
    assert.equal(account?.accountId, accountId);
    assert.deepEqual(others, []);
    // The listing names no account for it, so a look after a lost answer cannot tell it: in doubt, never resent.
    const before = account.requests
      .filter((request) => request.functionName !== 'SecurityQuestions')
      .map((request) => request.requestId);
    const looked = await send({ functionName: 'SecurityQuestions', known: before, lookOnly: true });
    assert.deepEqual(looked, {
      accepted: false,
      unknown: 'an earlier attempt may have sent it; no new request listed for the account',
    });
    assert.deepEqual(maintenanceRequest('SecurityQuestions', accountId, { referenceUserName: userName, details }), {
      securityQuestions: { referenceUserName: userName, details },
    });
  });
});

/**
 * The simulator's Web API read as the document reads it, over HTTP, with a token its own authorization server
 * issued: the enumeration `language` held to the document's values, the requests' `status` filter honoured,
 * dates the calendar lacks refused, and the look-up by `accountId` alone answered. Each call is sent as it is
 * (no client check in front), so what is shown is the simulator's own reading.
 */
import assert from 'node:assert/strict';
import { applicationJsonOf } from '../../../activities/application-json.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import type { WebApiClient } from '../../../webapi/index.js';
import { applicationXml } from '../../support/engine.js';
import { start } from '../simulator/helpers.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';

describe('the simulator’s Web API, read as the document reads it', function () {
  this.timeout(30_000);
  let sim: RunningSimulator;
  let api: WebApiClient;

  before(async function () {
    ({ sim } = await start());
    api = registerWebApiClient(sim, { clientId: 'readings', csid: sim.csid }).client({ timeoutMs: 5000 });
  });
  after(async function () {
    await sim.close();
  });

  /** `GET path` with the client's bearer token: the status and the JSON answer. */
  async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${sim.url}${path}`, {
      headers: { authorization: `Bearer ${await api.tokens.token()}`, accept: 'application/json' },
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }
  const day = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 10);

  it('takes an enumeration’s language among the document’s values and refuses any other', async function () {
    for (const language of ['en', 'de', 'zh_CN']) {
      const read = await get(`/gw/api/v1/enumerations/fin-info-ranges?currency=EUR&language=${language}`);
      assert.equal(read.status, 200, language);
      assert.ok(Array.isArray(read.body.jsonData) && read.body.jsonData.length > 0, language);
    }
    for (const language of ['xx', 'EN', 'zh-Hans', '']) {
      const read = await get(`/gw/api/v1/enumerations/fin-info-ranges?currency=EUR&language=${language}`);
      assert.equal(read.status, 400, `language=${language}`);
      assert.match(String(read.body.detail), /language: one of en, ar/);
    }
  });

  it('lists the requests of accounts in the status asked for, and none of another', async function () {
    await api.createAccount(applicationJsonOf(applicationXml('stalled-r1')));
    const { accountId } = await api.applicationByExternalId('stalled-r1');
    assert.ok(accountId);
    const { requestId = assert.fail('the simulator names the request') } = await api.manageAccounts({
      abandonAccount: { accountId },
    });
    sim.control.advanceClock({ ms: 10 * 60_000 });
    const status = sim.control.account(accountId)!.status;
    const today = day(sim.control.clock().epochMs);
    const requests = async (letter: string) => {
      const read = await get(`/gw/api/v1/requests?requestDetails=startDate,${today},endDate,${today},status,${letter}`);
      assert.equal(read.status, 200, JSON.stringify(read.body));
      return (read.body.requestDetails as Array<{ requestId: number }>).map((detail) => detail.requestId);
    };
    assert.ok((await requests(status)).includes(requestId), `the request of an account in ${status}`);
    const other = status === 'C' ? 'O' : 'C';
    assert.deepEqual(await requests(other), [], `no account is in ${other}`);
    const outside = await get(`/gw/api/v1/requests?requestDetails=startDate,${today},endDate,${today},status,Z`);
    assert.equal(outside.status, 400);
  });

  it('refuses a date the calendar lacks, in the requests’ range and the bulk status read alike', async function () {
    for (const [from, to] of [
      ['2025-02-30', '2025-03-01'],
      ['2025-01-01', '2025-02-29'],
      ['2025-13-01', '2025-12-31'],
    ]) {
      const requests = await get(`/gw/api/v1/requests?requestDetails=startDate,${from},endDate,${to}`);
      assert.equal(requests.status, 400, `${from} – ${to}`);
      const bulk = await get(`/gw/api/v1/accounts/status?accountStatusRequest=startDate,${from},endDate,${to}`);
      assert.equal(bulk.status, 400, `${from} – ${to}`);
    }
    const leap = await get('/gw/api/v1/requests?requestDetails=startDate,2024-02-29,endDate,2024-03-01');
    assert.equal(leap.status, 200, 'a leap day is a day');
  });

  it('finds an application by its account id alone, as by its external id, and no other firm’s', async function () {
    await api.createAccount(applicationJsonOf(applicationXml('docs-required-r2')));
    const byExternalId = await get('/gw/api/v1/accounts?externalId=docs-required-r2');
    const accountId = String(byExternalId.body.accountId);
    const byAccountId = await get(`/gw/api/v1/accounts?accountId=${accountId}`);
    assert.equal(byAccountId.status, 200);
    assert.deepEqual(byAccountId.body, byExternalId.body);
    const both = await get(`/gw/api/v1/accounts?accountId=${accountId}&externalId=docs-required-r2`);
    assert.deepEqual(both.body, byExternalId.body);
    const mismatched = await get(`/gw/api/v1/accounts?accountId=${accountId}&externalId=stalled-r1`);
    assert.equal(mismatched.body.hasError, true, 'an external id of another account');
    assert.equal(mismatched.body.responseFileName, undefined);
    const other = await sim.control.registerFirm({ name: 'ReadingsOther' });
    const stranger = registerWebApiClient(sim, { clientId: 'readings-other', csid: other.csid }).client();
    const theirs = await fetch(`${sim.url}/gw/api/v1/accounts?accountId=${accountId}`, {
      headers: { authorization: `Bearer ${await stranger.tokens.token()}` },
    });
    assert.deepEqual(await theirs.json(), { accountId, hasError: true, errorDescription: 'Account not found' });
    assert.equal((await get('/gw/api/v1/accounts')).status, 400, 'neither');
  });
});

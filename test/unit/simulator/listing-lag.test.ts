/**
 * The simulator lists late where the spec is silent: a processed create or update shows in the look-ups
 * only after the lag, and until then each look-up answers as if the write had not happened. The lag is
 * passed with the clock's jumps (`POST /_sim/clock/advance`), never by waiting: an hour's lag cannot run
 * out in real time while a test looks.
 */
import assert from 'node:assert/strict';
import { buildUpdateRequestXml } from '../../../eca/xml.js';
import { HOUR_MS } from '../../../simulator/clock.js';
import { ListingLag } from '../../../simulator/listing-lag.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, createAccount, filePayload, op, start, type Firm } from './helpers.js';

describe('simulator listing lag', function () {
  let sim: RunningSimulator;
  let firm: Firm;

  afterEach(async function () {
    await sim?.close();
  });

  /** What each look-up shows of the account and its one request now. */
  async function looks(externalId: string, accountId: string) {
    const bySelector = { CSID: firm.csid, accountIds: [accountId] };
    const files = (await op(sim, 'getResponseFile', { CSID: firm.csid, externalId })).body.result as Array<{
      isError?: unknown;
    }>;
    const status = (await op(sim, 'getAccountStatus', bySelector)).body.status as Array<{ isError: unknown }>;
    const all = (await op(sim, 'getAccountStatus', { CSID: firm.csid })).body.status as Array<{ accountId: string }>;
    const fileDetails = (await op(sim, 'getFileDetails', bySelector)).body.result as Array<{ isError?: unknown }>;
    const batch = (await op(sim, 'getBatchDetails', bySelector)).body.result as Array<{ isError?: unknown }>;
    const requests = (await op(sim, 'getAmRequestStatus', bySelector)).body.result as unknown[];
    return {
      responseFile: files.some((file) => file.isError === 'false'),
      accountStatus: status[0]?.isError === false,
      firmListing: all.some((entry) => entry.accountId === accountId),
      fileDetails: fileDetails[0]?.isError === undefined,
      batchDetails: batch[0]?.isError === undefined,
      requests: requests.length,
    };
  }

  const UNLISTED = {
    responseFile: false,
    accountStatus: false,
    firmListing: false,
    fileDetails: false,
    batchDetails: false,
    requests: 0,
  };

  /** A simulator lagging every look-up by an hour, and a create and an update made on it: the account's id. */
  async function writeLagged(externalId: string, options: { timeScale?: number } = {}): Promise<string> {
    ({ sim, firm } = await start(options));
    const lag = { minMs: HOUR_MS, maxMs: HOUR_MS };
    await control(sim, 'PUT', '/listing-lag', {
      getResponseFile: lag,
      getAccountStatus: lag,
      getFileDetails: lag,
      getBatchDetails: lag,
      getAmRequestStatus: lag,
    });
    const { accountId } = await createAccount(sim, firm, externalId);
    const xml = buildUpdateRequestXml({ accountId, functionName: 'AbandonAccount' });
    const payload = await filePayload(firm.keys, { fileName: 'request.xml', content: xml });
    assert.ok((await op(sim, 'update', { CSID: firm.csid, payload })).body.fileData);
    return accountId;
  }

  it('answers every look-up as before the write until its lag has passed, then lists it', async function () {
    const accountId = await writeLagged('stalled-lag1');
    assert.deepEqual(await looks('stalled-lag1', accountId), UNLISTED);
    assert.equal((await control(sim, 'POST', '/clock/advance', { minutes: 30 })).status, 200);
    assert.deepEqual(await looks('stalled-lag1', accountId), UNLISTED, 'listed half-way through its lag');
    assert.equal((await control(sim, 'POST', '/clock/advance', { minutes: 30 })).status, 200);
    assert.deepEqual(await looks('stalled-lag1', accountId), {
      responseFile: true,
      accountStatus: true,
      firmListing: true,
      fileDetails: true,
      batchDetails: true,
      requests: 1,
    });
  });

  it('runs the lag on the wall clock: scaled business time does not pass it', async function () {
    // Ten hours of business time a real millisecond: the look-ups alone take more than an hour's lag of it.
    const accountId = await writeLagged('stalled-lag3', { timeScale: 10 * HOUR_MS });
    assert.deepEqual(await looks('stalled-lag3', accountId), UNLISTED);
  });

  it('lists at once without a lag, and refuses bounds that make no sense', async function () {
    ({ sim, firm } = await start());
    const { accountId } = await createAccount(sim, firm, 'happy-lag2');
    assert.equal((await looks('happy-lag2', accountId)).accountStatus, true);
    const refused = await control(sim, 'PUT', '/listing-lag', { getResponseFile: { minMs: 10, maxMs: 1 } });
    assert.equal(refused.status, 400);
    const unknown = await control(sim, 'PUT', '/listing-lag', { create: { minMs: 0, maxMs: 1 } });
    assert.equal(unknown.status, 400);
  });

  it('draws each write its own lag within the bounds', function () {
    let now = 0;
    const draws = [0, 0.5, 1];
    const lag = new ListingLag(
      { getResponseFile: { minMs: 100, maxMs: 200 } },
      () => now,
      () => draws.shift() ?? 0,
    );
    for (const name of ['a', 'b', 'c']) lag.written('responseFile', name);
    now = 150;
    assert.deepEqual(
      ['a', 'b', 'c'].map((name) => lag.listed('getResponseFile', name)),
      [true, true, false],
    );
    now = 200;
    assert.equal(lag.listed('getResponseFile', 'c'), true);
  });
});

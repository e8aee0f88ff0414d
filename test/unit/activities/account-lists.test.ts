import assert from 'node:assert/strict';
import { lookUpInParts } from '../../../brokerage/xml/account-lists.js';
import { findCreatedAccount } from '../../../activities/find-account.js';
import { createStatusReader } from '../../../activities/status.js';
import { AccountEntryError } from '../../../brokerage/xml/accounts.js';
import { EcaHttpError } from '../../../eca/errors.js';
import { createEcaClient, type EcaClient } from '../../../eca/web-client/index.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { ACCOUNT_LIST_LIMIT } from '../../../simulator/unpromised.js';
import { control, createAccount, op, start, WEDNESDAY_10H, type Firm } from '../simulator/helpers.js';

const ids = (count: number, prefix = 'U') => Array.from({ length: count }, (_, n) => `${prefix}${1000 + n}`);

/** A look-up that refuses (HTTP `status`) a list longer than `limit` or holding an id of `refusedIds`. */
function service(options: { limit?: number; refusedIds?: string[]; status?: number } = {}) {
  const sent: number[] = [];
  const refusals: number[] = [];
  const call = (accountIds: string[]): Promise<string[]> => {
    sent.push(accountIds.length);
    const tooLong = accountIds.length > (options.limit ?? Infinity);
    if (tooLong || accountIds.some((id) => options.refusedIds?.includes(id))) {
      refusals.push(accountIds.length);
      return Promise.reject(new EcaHttpError('getAccountStatus', options.status ?? 400, 'Invalid request'));
    }
    return Promise.resolve(accountIds);
  };
  return { call, sent, refusals };
}

// Spec, limits: "the maximum number of accounts per request: not shown"; errors: "HTTP status codes for failures:
// not shown"; convention 3: a failing account's entry leaves the others unaffected.
describe('look-ups of many accounts, split when the service refuses the list as a whole', function () {
  const lookUp = (client: object) => ({ client, csid: 'F1', operation: 'getAccountStatus' });

  it('halves a refused list until the parts are answered, and keeps the size that worked', async function () {
    const client = {};
    const { call, sent, refusals } = service({ limit: 20 });
    const first = await lookUpInParts(lookUp(client), ids(100), call);
    assert.deepEqual(first.answers.flat(), ids(100));
    assert.equal(first.refused.size, 0);
    assert.ok(refusals.length > 0 && refusals.every((length) => length > 20));
    sent.length = 0;
    refusals.length = 0;
    const second = await lookUpInParts(lookUp(client), ids(100), call);
    assert.deepEqual(second.answers.flat(), ids(100));
    assert.deepEqual(refusals, [], 'the learned size is sent at once');
    assert.ok(sent.every((length) => length <= 20));
    // Per firm and operation: another firm starts from the whole list.
    refusals.length = 0;
    await lookUpInParts({ ...lookUp(client), csid: 'F2' }, ids(100), call);
    assert.equal(refusals[0], 100);
  });

  it('makes an account refused even alone that account’s error, and learns no size from it', async function () {
    const client = {};
    const bad = 'U1007';
    const { call, sent } = service({ refusedIds: [bad] });
    const parts = await lookUpInParts(lookUp(client), ids(40), call);
    assert.deepEqual(
      parts.answers.flat(),
      ids(40).filter((id) => id !== bad),
    );
    assert.deepEqual([...parts.refused.keys()], [bad]);
    assert.ok(parts.refused.get(bad) instanceof EcaHttpError);
    sent.length = 0;
    await lookUpInParts(lookUp(client), ids(40, 'V'), call);
    assert.deepEqual(sent, [40]);
  });

  it('never splits on a rate limit, a server error, a timeout-like answer or an authentication refusal', async function () {
    for (const status of [429, 408, 500, 503, 401, 403, 404]) {
      const { call, sent } = service({ limit: 1, status });
      await assert.rejects(
        lookUpInParts(lookUp({}), ids(50), call),
        (error: unknown) => error instanceof EcaHttpError && error.status === status,
      );
      assert.deepEqual(sent, [50], `HTTP ${status}`);
    }
  });

  it('fails as before, after a few calls, when even single accounts are refused and nothing is answered', async function () {
    const { call, sent } = service({ limit: 0 });
    await assert.rejects(
      lookUpInParts(lookUp({}), ids(100), call),
      (error: unknown) => error instanceof EcaHttpError && error.status === 400,
    );
    assert.ok(sent.length <= 10, `${sent.length} calls`);
  });
});

describe('account reads under account-list-limit (the simulator refuses a list of more than 20)', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let eca: EcaClient;
  let seeded: string[];

  before(async function () {
    ({ sim, firm } = await start({ unpromised: ['account-list-limit'] }));
    eca = createEcaClient({
      baseUrl: sim.url,
      csid: sim.csid,
      firmPrivateKey: sim.keys.firmPrivateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
      retry: { limit: 1, delayMs: 10 },
    });
    seeded = (await control(sim, 'POST', '/seed', { count: 45, prefix: 'list-limit-' })).body.accountIds as string[];
  });
  after(async function () {
    await sim.close();
  });

  it('refuses a look-up naming more than 20 accounts as a whole, with HTTP 400 and an error body', async function () {
    for (const operation of ['getAccountStatus', 'getPendingTasks', 'getRegistrationTasks', 'getFileDetails']) {
      const refused = await op(sim, operation, {
        CSID: firm.csid,
        accountIds: seeded.slice(0, ACCOUNT_LIST_LIMIT + 1),
      });
      assert.equal(refused.status, 400, operation);
      assert.equal(refused.body.isError, true);
      const answered = await op(sim, operation, { CSID: firm.csid, accountIds: seeded.slice(0, ACCOUNT_LIST_LIMIT) });
      assert.equal(answered.status, 200, operation);
    }
    const all = await op(sim, 'getAccountStatus', { CSID: firm.csid });
    assert.equal(all.status, 200, 'a look-up naming no account is not refused');
  });

  it('the status reader reads every account of a long batch; an account the service fails stays its own error', async function () {
    const reader = createStatusReader(eca, { windowMs: 5, maxBatch: 100 });
    const foreign = 'U9999999';
    const reads = await Promise.allSettled([...seeded, foreign].map((id) => reader.read(firm.csid, id)));
    assert.equal(reader.stats.calls, 1, 'one batch');
    const failed = reads.flatMap((read, index) => (read.status === 'rejected' ? [[index, read.reason]] : []));
    assert.equal(failed.length, 1, `${failed.length} reads failed, the first: ${String(failed[0]?.[1])}`);
    const [[index, reason]] = failed as [[number, unknown]];
    assert.equal(index, seeded.length);
    assert.ok(reason instanceof AccountEntryError);
    assert.match(reason.message, /not associated/);
    for (const read of reads.slice(0, seeded.length)) {
      assert.equal(read.status, 'fulfilled');
      assert.equal((read as PromiseFulfilledResult<{ status: string }>).value.status, 'N');
    }
  });

  it('finds a created account among more candidates than one look-up may name', async function () {
    const created = await createAccount(sim, firm, 'happy-list-limit');
    const responseFile = created.body.name as string;
    const found = await findCreatedAccount(eca, { csid: firm.csid, responseFile, around: new Date(WEDNESDAY_10H) });
    assert.equal(found.accountId, created.accountId, found.reason);
  });
});

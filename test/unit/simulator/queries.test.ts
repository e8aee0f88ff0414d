import assert from 'node:assert/strict';
import { ENUMERATION_TYPES, parseEnumerationsCsv } from '../../../eca/enumerations.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, createAccount, op, openText, post, start, type Firm } from './helpers.js';

describe('simulator query operations', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let own: string[];
  let otherCsid: string;
  let foreign: string;

  before(async function () {
    ({ sim, firm } = await start());
    own = [
      (await createAccount(sim, firm, 'q-happy')).accountId,
      (await createAccount(sim, firm, 'docs-required-q')).accountId,
      (await createAccount(sim, firm, 'portal-task-q')).accountId,
    ];
    const other = await control(sim, 'POST', '/firms', { name: 'OtherFirm' });
    otherCsid = String(other.body.csid);
    const seeded = await control(sim, 'POST', '/seed', { count: 1, csid: otherCsid });
    foreign = (seeded.body.accountIds as string[])[0] ?? '';
  });
  after(async function () {
    await sim.close();
  });

  it('getAccountStatus: all sub-accounts, by list, by plain string, by status', async function () {
    const all = await op(sim, 'getAccountStatus', { CSID: firm.csid });
    assert.deepEqual(
      (all.body.status as Array<{ accountId: string }>).map((e) => e.accountId),
      own,
    );
    const one = await op(sim, 'getAccountStatus', { CSID: firm.csid, accountIds: own[1] });
    assert.deepEqual(one.body.status, [
      { accountId: own[1], isError: false, description: 'Pending', state: 'Documents Required', status: 'P' },
    ]);
    const byStatus = await op(sim, 'getAccountStatus', { CSID: firm.csid, status: 'N' });
    assert.deepEqual(
      (byStatus.body.status as Array<{ accountId: string }>).map((e) => e.accountId),
      [own[0], own[2]],
    );
  });

  it('a firm sees only its own accounts: another firm’s gives a per-account error naming it', async function () {
    const { body } = await op(sim, 'getAccountStatus', { CSID: firm.csid, accountIds: [own[0], foreign] });
    const [mine, theirs] = body.status as Array<Record<string, unknown>>;
    assert.equal(mine?.isError, false);
    assert.equal(theirs?.accountId, foreign);
    assert.equal(theirs?.isError, true);
    assert.match(String(theirs?.error), new RegExp(foreign));
    assert.equal(theirs?.status, undefined);
    const pending = await op(sim, 'getPendingTasks', { CSID: firm.csid, accountIds: [foreign] });
    assert.equal((pending.body.result as Array<Record<string, unknown>>)[0]?.isError, true);
    const batch = await op(sim, 'getBatchDetails', { CSID: otherCsid, accountIds: [own[0]] });
    assert.equal((batch.body.result as Array<Record<string, unknown>>)[0]?.['Account ID'], own[0]);
    assert.equal((batch.body.result as Array<Record<string, unknown>>)[0]?.isError, true);
  });

  it('date range: endDate is required with startDate, and the range selects by creation day', async function () {
    assert.equal((await op(sim, 'getAccountStatus', { CSID: firm.csid, startDate: '2025-01-08' })).status, 400);
    const inRange = await op(sim, 'getAccountStatus', {
      CSID: firm.csid,
      startDate: '2025-01-08',
      endDate: '2025-01-08',
    });
    assert.equal((inRange.body.status as unknown[]).length, 3);
    const outside = await op(sim, 'getAccountStatus', {
      CSID: firm.csid,
      startDate: '2025-01-09',
      endDate: '2025-01-31',
    });
    assert.deepEqual(outside.body.status, []);
  });

  // Spec, account selection: "startDate | yyyy-mm-dd | no" and "endDate | yyyy-mm-dd | required when startDate is
  // sent | Selects accounts created up to this date".
  it('date range: endDate alone is accepted and selects the accounts created up to that day ("endDate ... required when startDate is sent")', async function () {
    for (const name of ['getAccountStatus', 'getPendingTasks', 'getRegistrationTasks']) {
      const upTo = await op(sim, name, { CSID: firm.csid, endDate: '2025-01-08' });
      assert.equal(upTo.status, 200, `${name}: ${upTo.text}`);
      const entries = (upTo.body.status ?? upTo.body.result) as Array<{ accountId?: string; acctId?: string }>;
      assert.deepEqual(
        entries.map((e) => e.accountId ?? e.acctId),
        own,
      );
      const before = await op(sim, name, { CSID: firm.csid, endDate: '2025-01-07' });
      assert.equal(before.status, 200);
      assert.deepEqual(before.body.status ?? before.body.result, []);
    }
  });

  // Spec: "startDate | `yyyy-mm-dd`", "endDate | `yyyy-mm-dd`": a day the calendar does not have is no such date.
  it('date range: an impossible date (2024-02-30) is refused with a text naming the parameter and value', async function () {
    const cases: Array<[Record<string, string>, string]> = [
      [{ endDate: '2024-02-30' }, 'endDate'],
      [{ startDate: '2025-02-29', endDate: '2025-03-31' }, 'startDate'],
      [{ startDate: '2025-01-01', endDate: '2025-13-01' }, 'endDate'],
      [{ startDate: '2025-01-01', endDate: '2025-1-31' }, 'endDate'],
    ];
    for (const [range, parameter] of cases) {
      const refused = await op(sim, 'getAccountStatus', { CSID: firm.csid, ...range });
      assert.equal(refused.status, 400, JSON.stringify(range));
      assert.equal(refused.body.isError, true);
      assert.match(String(refused.body.error), new RegExp(`${parameter} must be a calendar date.*${range[parameter]}`));
    }
    // A leap day that exists is a date.
    const leap = await op(sim, 'getAccountStatus', { CSID: firm.csid, startDate: '2024-02-29', endDate: '2025-01-08' });
    assert.equal(leap.status, 200);
    assert.equal((leap.body.status as unknown[]).length, 3);
  });

  // Spec, getPendingTasks: "formNumber (numeric string, optional)"; getRegistrationTasks: "formNumber | numeric
  // string | no".
  it('formNumber must be a numeric string ("formNumber (numeric string, optional)")', async function () {
    for (const name of ['getPendingTasks', 'getRegistrationTasks']) {
      for (const formNumber of ['W8BEN', '80O1', ' 8001', '', '8001a']) {
        const refused = await op(sim, name, { CSID: firm.csid, formNumber });
        assert.equal(refused.status, 400, `${name} ${JSON.stringify(formNumber)}`);
        assert.match(String(refused.body.error), /formNumber: expected a numeric string/);
      }
      assert.equal((await op(sim, name, { CSID: firm.csid, formNumber: '8001' })).status, 200);
    }
  });

  it('getPendingTasks: task fields and the formNumber filter', async function () {
    const { body } = await op(sim, 'getPendingTasks', { CSID: firm.csid, formNumber: '8001' });
    const result = body.result as Array<Record<string, unknown>>;
    assert.equal(result.length, 1);
    const [entry] = result;
    assert.equal(entry?.acctId, own[1]);
    assert.equal(entry?.isPendingTaskPresent, true);
    assert.deepEqual((entry?.pendingTasks as unknown[])[0], {
      formNumber: '8001',
      formName: 'Proof of Identity',
      action: 'to send',
      isRequiredForTrading: true,
      isOnlineTask: false,
      isRequiredForApproval: true,
      taskNumber: 2,
      state: 'To Be Sent',
    });
    const happy = await op(sim, 'getPendingTasks', { CSID: firm.csid, accountIds: [own[0]] });
    const [none] = happy.body.result as Array<Record<string, unknown>>;
    assert.equal(none?.isPendingTaskPresent, false);
  });

  it('getRegistrationTasks: string booleans, completion dates, Pending state', async function () {
    const { body } = await op(sim, 'getRegistrationTasks', { CSID: firm.csid, accountIds: [own[2]] });
    const [entry] = body.result as Array<Record<string, unknown>>;
    assert.equal(entry?.dateStarted, '2025-01-08');
    const tasks = entry?.registrationTasks as Array<Record<string, unknown>>;
    const agreement = tasks.find((t) => t.formNumber === '3230');
    assert.equal(agreement?.isComplete, 'true');
    assert.equal(agreement?.isRequiredForApproval, 'true');
    assert.match(String(agreement?.dateComplete), /^2025-01-08 10:\d{2}:\d{2}\.\d$/);
    const portal = tasks.find((t) => t.formNumber === '4100');
    assert.equal(portal?.isComplete, 'false');
    assert.equal(portal?.state, 'Pending');
    const filtered = await op(sim, 'getRegistrationTasks', { CSID: firm.csid, formNumber: '4100' });
    assert.equal((filtered.body.result as unknown[]).length, 1);
  });

  it('getBatchDetails and getFileDetails use the spec’s spaced field names and file patterns', async function () {
    const batch = await op(sim, 'getBatchDetails', { CSID: firm.csid, accountIds: own });
    const [first] = batch.body.result as Array<Record<string, unknown>>;
    assert.deepEqual(Object.keys(first ?? {}), ['Account ID', 'BatchID', 'Date Begun', 'Clearing Status']);
    assert.match(String(first?.['Date Begun']), /^2025-01-08 \d{2}:\d{2}:\d{2}$/);
    const files = await op(sim, 'getFileDetails', { CSID: firm.csid, accountIds: own[0] });
    const [file] = files.body.result as Array<Record<string, unknown>>;
    assert.match(String(file?.['Request File Name']), /^DemoFirm_2025-01-08_\d{4}_\d{4}\.xml\.imported$/);
    assert.match(String(file?.['Response File Name']), /^DemoFirm_20250108_\d{4}_\d{4}\.xml\.report$/);
    assert.equal(file?.['Account ID'], own[0]);
    assert.equal((await op(sim, 'getFileDetails', { CSID: firm.csid })).status, 400);
  });

  it('getEnumerations: every listed type gives a CSV with a header and rows', async function () {
    for (const type of ENUMERATION_TYPES) {
      const body: Record<string, string> = { CSID: firm.csid, type };
      if (type === 'FIN_INFO_RANGES') body.currency = 'EUR';
      if (type === 'EDD_AVT') body.formNumber = '4100';
      const { status, body: response } = await op(sim, 'getEnumerations', body);
      assert.equal(status, 200, type);
      const fileData = response.fileData as { name: string; data: string };
      assert.equal(fileData.name, `${type}.csv`);
      // Sealed for the firm as every response file (Authentication 2), never plain base64 of the CSV.
      const rows = parseEnumerationsCsv(await openText(firm.keys, fileData.data));
      assert.ok(rows.length > 0, type);
      if (type === 'FIN_INFO_RANGES') assert.ok(rows.every((row) => row.currency === 'EUR'));
    }
    assert.equal((await op(sim, 'getEnumerations', { CSID: firm.csid, type: 'FIN_INFO_RANGES' })).status, 400);
    assert.equal((await op(sim, 'getEnumerations', { CSID: firm.csid, type: 'NOPE' })).status, 400);
  });

  it('refuses unknown CSIDs, missing CSIDs and unknown paths', async function () {
    assert.equal((await op(sim, 'getAccountStatus', { CSID: 'UNKNOWN' })).status, 401);
    assert.equal((await op(sim, 'getAccountStatus', {})).status, 400);
    assert.equal((await post(sim.url, '/ws/eca/getNothing', { CSID: firm.csid })).status, 404);
  });
});

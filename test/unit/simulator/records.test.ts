/** `GET /_sim/records`: accounts per external id and update requests per account, from the simulator's records. */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildUpdateRequestXml } from '../../../eca/xml.js';
import type { SimulatorRecords } from '../../../simulator/records.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, createAccount, filePayload, op, start, type Firm } from './helpers.js';

describe('simulator records (GET /_sim/records)', function () {
  let sim: RunningSimulator;
  let firm: Firm;
  let dataDir: string;

  beforeEach(async function () {
    dataDir = await mkdtemp(join(tmpdir(), 'eca-records-'));
    ({ sim, firm } = await start({ dataDir }));
  });
  afterEach(async function () {
    await sim.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function records(query = ''): Promise<SimulatorRecords> {
    const response = await fetch(`${sim.controlUrl}/records${query}`);
    assert.equal(response.status, 200);
    return (await response.json()) as SimulatorRecords;
  }

  async function update(accountId: string, functionName: string): Promise<string> {
    const xml = buildUpdateRequestXml({ accountId, functionName });
    const payload = await filePayload(firm.keys, { fileName: 'request.xml', content: xml });
    const { body } = await op(sim, 'update', { CSID: firm.csid, payload });
    return (body.fileData as { name: string }).name;
  }

  it('is empty for a fresh brokerage', async function () {
    assert.deepEqual(await records(), {
      externalIds: [],
      accounts: [],
      requestsWithoutAccount: [],
      documentSubmissions: [],
    });
  });

  it('counts the accounts made per external id, duplicates included', async function () {
    const one = await createAccount(sim, firm, 'happy-r1');
    const two = await createAccount(sim, firm, 'stalled-r2');
    // Seeding twice with the same prefix makes two accounts for the external id `dup-1`.
    const [firstDup] = (await control(sim, 'POST', '/seed', { count: 1, prefix: 'dup-' })).body.accountIds as string[];
    const [secondDup] = (await control(sim, 'POST', '/seed', { count: 1, prefix: 'dup-' })).body.accountIds as string[];

    const { externalIds } = await records();
    const byId = new Map(externalIds.map((entry) => [entry.externalId, entry]));
    assert.deepEqual([...byId.keys()], ['happy-r1', 'stalled-r2', 'dup-1']);
    assert.equal(byId.get('happy-r1')?.accountsCreated, 1);
    assert.deepEqual(
      byId.get('happy-r1')?.accounts.map((account) => [account.accountId, account.csid]),
      [[one.accountId, firm.csid]],
    );
    assert.deepEqual(
      byId.get('stalled-r2')?.accounts.map((account) => account.accountId),
      [two.accountId],
    );
    assert.equal(byId.get('dup-1')?.accountsCreated, 2);
    assert.deepEqual(
      byId.get('dup-1')?.accounts.map((account) => account.accountId),
      [firstDup, secondDup],
    );
    const dup = await records('?externalId=dup-1');
    assert.deepEqual(
      dup.externalIds.map((entry) => [entry.externalId, entry.accountsCreated]),
      [['dup-1', 2]],
    );
    assert.deepEqual(
      dup.accounts.map((account) => account.accountId),
      [firstDup, secondDup],
    );
    assert.deepEqual((await records('?csid=CSID-NOBODY')).externalIds, []);
  });

  it('lists the update requests per account: function, response file, outcome; counted per function', async function () {
    const { accountId } = await createAccount(sim, firm, 'stalled-r3');
    const other = await createAccount(sim, firm, 'happy-r4');
    const abandon = await update(accountId, 'AbandonAccount');
    const again = await update(accountId, 'AbandonAccount');
    const reset = await update(accountId, 'ResetAbandonedAccount');

    const view = await records();
    const entry = view.accounts.find((account) => account.accountId === accountId);
    assert.ok(entry);
    assert.equal(entry.externalId, 'stalled-r3');
    assert.deepEqual(
      entry.requests.map((request) => [request.functionName, request.responseFileName, request.outcome]),
      [
        ['AbandonAccount', abandon, 'PROCESSED'],
        // The second abandon finds the account already abandoned (the first is decided at once).
        ['AbandonAccount', again, 'REJECTED'],
        ['ResetAbandonedAccount', reset, 'PROCESSED'],
      ],
    );
    assert.ok(entry.requests[1]?.error);
    assert.deepEqual(entry.requestsPerFunction, { AbandonAccount: 2, ResetAbandonedAccount: 1 });
    const untouched = view.accounts.find((account) => account.accountId === other.accountId);
    assert.deepEqual(untouched?.requests, []);
    assert.deepEqual(untouched?.requestsPerFunction, {});
  });

  it('survives a restart on the data dir (the call counts do not)', async function () {
    const { accountId } = await createAccount(sim, firm, 'happy-r5');
    await update(accountId, 'AbandonAccount');
    const before = await records();
    await sim.close();
    ({ sim, firm } = await start({ dataDir }));
    assert.deepEqual(await records(), before);
    assert.deepEqual(sim.control.calls(), {});
  });

  it('refuses an empty filter', async function () {
    const response = await fetch(`${sim.controlUrl}/records?externalId=`);
    assert.equal(response.status, 400);
  });
});

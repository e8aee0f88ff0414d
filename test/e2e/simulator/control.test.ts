import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningSimulator } from '../../../simulator/server.js';
import {
  accountStatus,
  control,
  createAccount,
  firmKeys,
  op,
  start,
  startCli,
  type Firm,
} from '../../unit/simulator/helpers.js';

describe('simulator control API and faults', function () {
  let sim: RunningSimulator;
  let firm: Firm;

  beforeEach(async function () {
    ({ sim, firm } = await start());
  });
  afterEach(async function () {
    await sim.close();
  });

  const status = () => op(sim, 'getAccountStatus', { CSID: firm.csid });

  it('counts calls per operation and resets the counts', async function () {
    await status();
    await status();
    await op(sim, 'getPendingTasks', { CSID: firm.csid });
    const { body } = await control(sim, 'GET', '/calls');
    assert.deepEqual(body.calls, { getAccountStatus: 2, getPendingTasks: 1 });
    await control(sim, 'DELETE', '/calls');
    assert.deepEqual((await control(sim, 'GET', '/calls')).body.calls, {});
  });

  it('injects HTTP 500 and 503 for a number of calls, then answers normally', async function () {
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'http503', count: 2 });
    assert.equal((await status()).status, 503);
    assert.equal((await status()).status, 503);
    assert.equal((await status()).status, 200);
    await control(sim, 'POST', '/faults', { operation: '*', kind: 'http500', count: 1 });
    assert.equal((await op(sim, 'getPendingTasks', { CSID: firm.csid })).status, 500);
    assert.equal(sim.control.calls().getAccountStatus, 3);
  });

  it('applies a rate: 0 never fires, 1 always does', async function () {
    const never = await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'http500', rate: 0 });
    assert.equal((await status()).status, 200);
    await control(sim, 'DELETE', `/faults/${String(never.body.id)}`);
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'http500', rate: 1 });
    assert.equal((await status()).status, 500);
    assert.equal((await status()).status, 500);
    await control(sim, 'DELETE', '/faults');
    assert.equal((await status()).status, 200);
  });

  it('sends malformed JSON', async function () {
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'malformed', count: 1 });
    const response = await status();
    assert.equal(response.status, 200);
    assert.throws(() => JSON.parse(response.text) as unknown);
  });

  it('adds latency', async function () {
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'latency', ms: 300, count: 1 });
    const began = Date.now();
    assert.equal((await status()).status, 200);
    assert.ok(Date.now() - began >= 290);
  });

  it('drops the connection, or holds it until the client gives up', async function () {
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'drop', count: 1 });
    await assert.rejects(status());
    await control(sim, 'POST', '/faults', { operation: 'getAccountStatus', kind: 'timeout', count: 1 });
    const began = Date.now();
    await assert.rejects(
      fetch(`${sim.url}/ws/eca/getAccountStatus`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ CSID: firm.csid }),
        signal: AbortSignal.timeout(500),
      }),
    );
    assert.ok(Date.now() - began >= 450);
    assert.equal((await status()).status, 200);
  });

  it('loses the response after the work is done (lost-response)', async function () {
    await control(sim, 'POST', '/faults', { operation: 'create', kind: 'lost-response', count: 1 });
    await assert.rejects(createAccount(sim, firm, 'lost-1'));
    const made = sim.control.accountByExternalId('lost-1');
    assert.ok(made, 'the account was made although its response was lost');
    // Sent again, the same external id makes a second account: the spec promises nothing else, so
    // only the caller's getResponseFile lookup keeps it from happening.
    const again = await createAccount(sim, firm, 'lost-1');
    assert.notEqual(again.accountId, made.accountId);
    assert.equal(sim.control.calls().create, 2);
  });

  it('refuses a clock jump past 9999-12-31 with 400, and keeps answering', async function () {
    // The last of these counted business days one by one before it was refused.
    for (const duration of [{ ms: 1e300 }, { days: 1e9 }, { businessDays: 3_000_000 }, { businessDays: 1e15 }]) {
      const answer = await control(sim, 'POST', '/clock/advance', duration);
      assert.equal(answer.status, 400, JSON.stringify(duration));
      assert.match(String(answer.body.error), /9999-12-31/);
    }
    assert.equal((await control(sim, 'GET', '/state')).status, 200);
    assert.equal((await status()).status, 200);
  });

  it('holds the clock at 9999-12-31 under a time scale that runs past it, and keeps answering', async function () {
    assert.equal((await control(sim, 'PUT', '/clock/scale', { timeScale: 1e300 })).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const { status: code, body } = await control(sim, 'GET', '/clock');
    assert.equal(code, 200);
    assert.equal(body.now, '9999-12-31T23:59:59.999Z');
    const answer = await status();
    assert.equal(answer.status, 200);
    assert.equal(answer.body.timestamp, '9999-12-31 23:59:59');
  });

  it('reset forgets accounts, faults and counts but keeps the firm', async function () {
    await createAccount(sim, firm, 'reset-1');
    await control(sim, 'POST', '/faults', { operation: 'getPendingTasks', kind: 'http500' });
    await control(sim, 'POST', '/reset', {});
    assert.deepEqual((await status()).body.status, []);
    assert.deepEqual((await control(sim, 'GET', '/faults')).body.faults, []);
    assert.equal((await op(sim, 'getPendingTasks', { CSID: firm.csid })).status, 200);
    await createAccount(sim, firm, 'reset-1');
  });

  it('seeds accounts for load tests and rejects bad control input', async function () {
    const { body } = await control(sim, 'POST', '/seed', { count: 50, prefix: 'docs-required-load-' });
    assert.equal((body.accountIds as string[]).length, 50);
    const entry = await accountStatus(sim, firm.csid, (body.accountIds as string[])[49] ?? '');
    assert.equal(entry.state, 'Documents Required');
    assert.equal((await control(sim, 'POST', '/faults', { operation: 'x', kind: 'explode' })).status, 400);
    assert.equal((await control(sim, 'POST', '/clock/advance', { hours: -1 })).status, 400);
    assert.equal((await control(sim, 'GET', '/accounts/U0000000')).status, 404);
  });

  it('sets what create does with a repeated external id: a second account unless told already-processed', async function () {
    assert.deepEqual((await control(sim, 'GET', '/repeated-external-id')).body, { answer: 'second-account' });
    assert.equal((await control(sim, 'PUT', '/repeated-external-id', { answer: 'never' })).status, 400);
    assert.equal((await control(sim, 'PUT', '/repeated-external-id', {})).status, 400);
    assert.equal((await control(sim, 'PUT', '/repeated-external-id', { answer: 'already-processed' })).status, 200);
    assert.deepEqual((await control(sim, 'GET', '/repeated-external-id')).body, { answer: 'already-processed' });

    const told = await start({ repeatedExternalId: 'already-processed' });
    try {
      await createAccount(told.sim, told.firm, 'told-1');
      await assert.rejects(createAccount(told.sim, told.firm, 'told-1'), /no account in the response file/);
      const records = await control(told.sim, 'GET', '/records?externalId=told-1');
      assert.equal((records.body.externalIds as Array<{ accountsCreated: number }>)[0]?.accountsCreated, 1);
    } finally {
      await told.sim.close();
    }
    // @ts-expect-error: not one of the answers
    await assert.rejects(start({ repeatedExternalId: 'twice' }), RangeError);
  });
});

describe('simulator persistence', function () {
  let dir: string;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-sim-test-'));
  });
  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps keys, firm, accounts, requests and the clock across a restart', async function () {
    const first = await start({ dataDir: dir });
    const { accountId } = await createAccount(first.sim, first.firm, 'docs-required-persist');
    await control(first.sim, 'POST', '/clock/advance', { hours: 5 });
    const before = await accountStatus(first.sim, first.firm.csid, accountId);
    const csid = first.sim.csid;
    const keys = first.sim.keys;
    await first.sim.close();
    assert.deepEqual((await readdir(dir)).sort(), [
      'brokerage-private.asc',
      'brokerage-public.asc',
      'firm-private.asc',
      'firm-public.asc',
      'state.json',
    ]);

    const second = await start({ dataDir: dir });
    try {
      assert.equal(second.sim.csid, csid);
      assert.deepEqual(second.sim.keys, keys);
      assert.deepEqual(await accountStatus(second.sim, csid, accountId), before);
      const clock = second.sim.control.clock();
      assert.ok(clock.epochMs >= Date.UTC(2025, 0, 8, 15, 0, 0));
      // The external id's response file survived the restart.
      const { body } = await op(second.sim, 'getResponseFile', { CSID: csid, externalId: 'docs-required-persist' });
      assert.equal((body.result as Array<{ isProcessed: string }>)[0]?.isProcessed, 'true');
      const fresh = await createAccount(second.sim, second.firm, 'persist-2');
      assert.notEqual(fresh.accountId, accountId);
    } finally {
      await second.sim.close();
    }
  });

  it('CLI prints the listening line first and shuts down on SIGTERM', async function () {
    this.timeout(60_000);
    const { child, line } = await startCli(['--data-dir', dir]);
    const match = /^ECA simulator listening on (http:\/\/127\.0\.0\.1:\d+) \(CSID (\S+), keys in (.+)\)$/.exec(line);
    assert.ok(match, line);
    const [, url, csid, keysDir] = match;
    assert.equal(keysDir, dir);
    const response = await fetch(`${url}/ws/eca/getAccountStatus`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ CSID: csid }),
    });
    assert.equal(response.status, 200);
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    const keys = await firmKeys(
      await readFile(join(dir, 'firm-private.asc'), 'utf8'),
      await readFile(join(dir, 'brokerage-public.asc'), 'utf8'),
    );
    assert.ok(keys.ownPrivateKey.isPrivate());
  });
});

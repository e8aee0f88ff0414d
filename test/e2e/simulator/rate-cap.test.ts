/**
 * The simulator's calls per second and its optional rate cap (simulator/rate-cap.ts): counted per second
 * of real time, in all, per operation and per firm (CSID), refused with 429 past the cap before any work,
 * off unless set.
 */
import assert from 'node:assert/strict';
import { RateCap } from '../../../simulator/rate-cap.js';
import type { SecondCount } from '../../../simulator/rate-cap.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { control, op, start, startCli } from '../../unit/simulator/helpers.js';

/** `count` calls of getAccountStatus for the CSID at once, against the simulator at `url`: their statuses. */
async function lookUps(url: string, csid: string, count: number): Promise<number[]> {
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      fetch(`${url}/ws/eca/getAccountStatus`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ CSID: csid }),
      }),
    ),
  );
  await Promise.all(answers.map((answer) => answer.text()));
  return answers.map((answer) => answer.status);
}

describe('simulator rate cap', function () {
  let sim: RunningSimulator | undefined;

  afterEach(async function () {
    await sim?.close();
    sim = undefined;
  });

  it('counts calls per second, in all and per operation, and refuses those past a cap', function () {
    let now = 5_000;
    const cap = new RateCap(() => now);
    cap.set({ total: 3, perOperation: { create: 1 } });
    assert.deepEqual(
      ['create', 'create', 'getAccountStatus', 'getAccountStatus', 'getAccountStatus'].map((name) => cap.admit(name)),
      [true, false, true, false, false],
    );
    now = 6_000; // a new second
    assert.equal(cap.admit('create'), true);
    assert.deepEqual(cap.counts(), [
      { second: 5, total: 5, byOperation: { create: 2, getAccountStatus: 3 }, refused: 3, byFirm: {} },
      { second: 6, total: 1, byOperation: { create: 1 }, refused: 0, byFirm: {} },
    ]);
    assert.throws(() => cap.set({ total: 0 }), /rate cap of total: expected a positive whole number/);
    assert.throws(() => cap.set({ perOperation: { create: 1.5 } }), /rate cap of create/);
  });

  it('counts each firm’s calls apart and refuses those past its own cap, whatever the other firms call', function () {
    let now = 7_000;
    const cap = new RateCap(() => now);
    cap.set({ perFirm: 2 });
    assert.deepEqual(
      [
        cap.admit('create', 'F1'),
        cap.admit('getAccountStatus', 'F1'),
        cap.admit('getAccountStatus', 'F1'), // F1's third call of the second
        cap.admit('create', 'F2'), // F2 is not held to F1's count
        cap.admit('create', 'F2'),
        cap.admit('create', 'F2'),
        cap.admit('getAccountStatus'), // no firm named: held to no firm's cap
        cap.admit('getAccountStatus'),
        cap.admit('getAccountStatus'),
      ],
      [true, true, false, true, true, false, true, true, true],
    );
    now = 8_500; // a new second: each firm's count starts again
    assert.equal(cap.admit('create', 'F1'), true);
    assert.deepEqual(cap.counts(), [
      {
        second: 7,
        total: 9,
        byOperation: { create: 4, getAccountStatus: 5 },
        refused: 2,
        byFirm: {
          F1: { total: 3, byOperation: { create: 1, getAccountStatus: 2 }, refused: 1 },
          F2: { total: 3, byOperation: { create: 3 }, refused: 1 },
        },
      },
      {
        second: 8,
        total: 1,
        byOperation: { create: 1 },
        refused: 0,
        byFirm: { F1: { total: 1, byOperation: { create: 1 }, refused: 0 } },
      },
    ]);
    // With a cap in all as well, either refuses.
    cap.set({ total: 3, perFirm: 2 });
    now = 9_000;
    assert.deepEqual(
      ['F1', 'F2', 'F3', 'F3'].map((csid) => cap.admit('create', csid)),
      [true, true, true, false],
    );
    assert.throws(() => cap.set({ perFirm: 0 }), /rate cap of perFirm: expected a positive whole number/);
    assert.throws(() => cap.set({ perFirm: 2.5 }), /rate cap of perFirm/);
  });

  it('answers 429 with Retry-After past the cap, set and lifted over the control API; no cap unless set', async function () {
    ({ sim } = await start());
    const lookUp = () => op(sim!, 'getAccountStatus', { CSID: sim!.csid });
    for (let i = 0; i < 5; i++) assert.equal((await lookUp()).status, 200, 'no cap unless set');

    assert.deepEqual((await control(sim, 'PUT', '/rate-cap', { perOperation: { getAccountStatus: 1 } })).body, {
      perOperation: { getAccountStatus: 1 },
    });
    // Five calls in a row: at least two fall in one second, and the second of them is refused.
    const answers: Response[] = [];
    for (let i = 0; i < 5; i++) {
      answers.push(
        await fetch(`${sim.url}/ws/eca/getAccountStatus`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ CSID: sim.csid }),
        }),
      );
    }
    const refused = answers.filter((answer) => answer.status === 429);
    assert.ok(refused.length >= 1, 'no call refused past the cap');
    assert.ok(refused.every((answer) => answer.headers.get('retry-after') === '1'));
    const seconds = (await control(sim, 'GET', '/rates')).body.seconds as Array<{ refused: number }>;
    assert.equal(
      seconds.reduce((sum, second) => sum + second.refused, 0),
      refused.length,
      'refusals counted in their seconds',
    );
    assert.equal((await control(sim, 'PUT', '/rate-cap', { total: 0 })).status, 400);
    await control(sim, 'PUT', '/rate-cap', {});
    for (let i = 0; i < 3; i++) assert.equal((await lookUp()).status, 200, 'cap lifted');
  });

  it('holds each firm to its own cap over the control API and counts each firm’s calls per second', async function () {
    ({ sim } = await start());
    const other = (await control(sim, 'POST', '/firms', { name: 'second-firm' })).body.csid as string;
    assert.deepEqual((await control(sim, 'PUT', '/rate-cap', { perFirm: 1 })).body, { perFirm: 1 });
    // Four calls of each firm at once: at least two of each fall in one second, and past the first one
    // of a firm in a second its calls are refused, while the other firm's first call still goes through.
    const statuses = { [sim.csid]: await lookUps(sim.url, sim.csid, 4), [other]: await lookUps(sim.url, other, 4) };
    const seconds = (await control(sim, 'GET', '/rates')).body.seconds as SecondCount[];
    for (const csid of [sim.csid, other]) {
      const refused = statuses[csid]!.filter((status) => status === 429).length;
      assert.ok(refused >= 1, `${csid}: no call refused past its cap`);
      const counted = seconds.flatMap((second) => (second.byFirm[csid] ? [second.byFirm[csid]] : []));
      assert.equal(
        counted.reduce((sum, count) => sum + count.total, 0),
        4,
        `${csid}: every call counted`,
      );
      assert.equal(
        counted.reduce((sum, count) => sum + count.refused, 0),
        refused,
        `${csid}: its refusals counted in its seconds`,
      );
      for (const count of counted)
        assert.equal(count.total - count.refused, 1, `${csid}: one call a second let through`);
    }
    for (const second of seconds) {
      const firms = Object.values(second.byFirm);
      assert.equal(
        second.refused,
        firms.reduce((sum, count) => sum + count.refused, 0),
      );
    }
    assert.equal((await control(sim, 'PUT', '/rate-cap', { perFirm: 0 })).status, 400);
    await control(sim, 'PUT', '/rate-cap', {});
    assert.deepEqual(await lookUps(sim.url, other, 3), [200, 200, 200], 'cap lifted');
  });

  it('takes a per-firm cap from the CLI (--rate-cap per-firm=N)', async function () {
    this.timeout(60_000);
    const { child, line } = await startCli(['--rate-cap', '100,per-firm=1']);
    try {
      const match = /^ECA simulator listening on (http:\/\/127\.0\.0\.1:\d+) \(CSID (\S+),/.exec(line);
      assert.ok(match, line);
      const [, url, csid] = match;
      const statuses = await lookUps(url!, csid!, 4);
      assert.ok(statuses.includes(429), `no call refused past the firm's cap: ${statuses.join(', ')}`);
      const response = await fetch(`${url}/_sim/rates`);
      const { seconds } = (await response.json()) as { seconds: SecondCount[] };
      assert.equal(
        seconds.reduce((sum, second) => sum + (second.byFirm[csid!]?.refused ?? 0), 0),
        statuses.filter((status) => status === 429).length,
      );
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});

/**
 * The simulator's calls per second and its optional rate cap (simulator/rate-cap.ts): counted per second
 * of real time, refused with 429 past the cap before any work, off unless set.
 */
import assert from 'node:assert/strict';
import { RateCap } from '../../simulator/rate-cap.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { control, op, start } from './helpers.js';

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
      { second: 5, total: 5, byOperation: { create: 2, getAccountStatus: 3 }, refused: 3 },
      { second: 6, total: 1, byOperation: { create: 1 }, refused: 0 },
    ]);
    assert.throws(() => cap.set({ total: 0 }), /rate cap of total: expected a positive whole number/);
    assert.throws(() => cap.set({ perOperation: { create: 1.5 } }), /rate cap of create/);
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
});

import assert from 'node:assert/strict';
import { Batcher } from '../../../activities/batcher.js';

describe('Batcher (merged status reads)', function () {
  it('merges concurrent reads per key into calls of at most maxBatch distinct ids', async function () {
    const calls: Array<{ key: string; ids: string[] }> = [];
    const batcher = new Batcher<string>({
      windowMs: 20,
      maxBatch: 100,
      fetch: (key, ids) => {
        calls.push({ key, ids });
        return Promise.resolve(new Map(ids.map((id) => [id, `${key}:${id}`])));
      },
    });
    const reads = [
      ...Array.from({ length: 50 }, (_, i) => batcher.read('F1', `U${i}`)),
      batcher.read('F1', 'U7'), // the same account twice in one batch is fetched once
      ...Array.from({ length: 200 }, (_, i) => batcher.read('F1', `U${i + 50}`)),
      batcher.read('F2', 'U1'),
    ];
    const results = await Promise.all(reads);
    assert.equal(results[0], 'F1:U0');
    assert.equal(results[50], 'F1:U7');
    assert.equal(results[251], 'F2:U1');
    assert.deepEqual(
      calls.map((call) => [call.key, call.ids.length]),
      [
        ['F1', 100],
        ['F1', 100],
        ['F1', 50],
        ['F2', 1],
      ],
    );
    assert.deepEqual(batcher.stats, { calls: 4, reads: 252, largestBatch: 100 });
  });

  it('keeps no answer once its batch has gone: a later read of the same account is fetched again', async function () {
    const calls: string[][] = [];
    const batcher = new Batcher<string>({
      windowMs: 5,
      maxBatch: 10,
      fetch: async (_key, ids) => {
        const call = `call ${calls.push(ids)}`;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return new Map(ids.map((id) => [id, call]));
      },
    });
    const first = batcher.read('F', 'U1');
    // Asked once the first batch has gone, while its call is still out: a batch of its own.
    const inFlight = new Promise<string>((resolve) => setTimeout(() => resolve(batcher.read('F', 'U1')), 6));
    assert.deepEqual(await Promise.all([first, inFlight]), ['call 1', 'call 2']);
    assert.equal(await batcher.read('F', 'U1'), 'call 3');
    assert.deepEqual(calls, [['U1'], ['U1'], ['U1']]);
  });

  it('fails only the account whose entry is an error, and every read when the call fails', async function () {
    let fail = false;
    const batcher = new Batcher<number>({
      windowMs: 5,
      maxBatch: 10,
      fetch: (_key, ids) =>
        fail
          ? Promise.reject(new Error('HTTP 503'))
          : Promise.resolve(
              new Map<string, number | Error>(ids.map((id) => [id, id === 'bad' ? new Error('not yours') : 1])),
            ),
    });
    const [good, bad, missing] = await Promise.allSettled([
      batcher.read('F', 'ok'),
      batcher.read('F', 'bad'),
      Promise.resolve(1),
    ]);
    assert.deepEqual(good, { status: 'fulfilled', value: 1 });
    assert.equal(bad.status, 'rejected');
    assert.match(String(bad.status === 'rejected' ? bad.reason : ''), /not yours/);
    assert.equal(missing.status, 'fulfilled');

    fail = true;
    const outcomes = await Promise.allSettled([batcher.read('F', 'a'), batcher.read('F', 'b')]);
    assert.deepEqual(
      outcomes.map((outcome) => outcome.status),
      ['rejected', 'rejected'],
    );
  });
});

/**
 * The attempt's abort signal (activities/attempt-signal.ts), as the interceptor every engine worker installs
 * gives it to an activity: its brokerage calls abort when the attempt is cancelled, and a margin before its
 * start-to-close timeout lets the next attempt start.
 */
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { ABORT_MARGIN_MS, attemptSignal, attemptSignalInterceptor } from '../../../activities/attempt-signal.js';
import { engineActivityInterceptors } from '../../../activities/interceptors.js';

const quiet = { logger: new DefaultLogger('ERROR', () => undefined) };

/** Waits until `signal` aborts: how long after the start it did. */
function aborted(signal: AbortSignal, start: number): Promise<number> {
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(Date.now() - start)));
}

describe('the attempt signal (activities/attempt-signal)', function () {
  it('is given only under the interceptor, the engine’s among them', async function () {
    assert.equal(attemptSignal(), undefined, 'outside an attempt');
    const plain = new MockActivityEnvironment({ startToCloseTimeoutMs: 60_000 }, quiet);
    assert.equal(await plain.run(() => Promise.resolve(attemptSignal())), undefined, 'an activity without it');
    const engine = new MockActivityEnvironment(
      { startToCloseTimeoutMs: 60_000 },
      { ...quiet, interceptors: engineActivityInterceptors() },
    );
    const signal = await engine.run(() => Promise.resolve(attemptSignal()));
    assert.ok(signal instanceof AbortSignal, 'the engine’s interceptors give it');
    assert.equal(signal.aborted, false);
  });

  it('aborts when the attempt is cancelled', async function () {
    const env = new MockActivityEnvironment(
      { startToCloseTimeoutMs: 60_000 },
      { ...quiet, interceptors: [attemptSignalInterceptor] },
    );
    const start = Date.now();
    const running = env.run<[], number, () => Promise<number>>(() => aborted(attemptSignal()!, start));
    env.cancel();
    assert.ok((await running) < 1_000, 'aborted at once');
  });

  it('aborts a margin before the start-to-close timeout', async function () {
    this.timeout(20_000);
    const startToCloseTimeoutMs = ABORT_MARGIN_MS + 1_500;
    const env = new MockActivityEnvironment(
      { startToCloseTimeoutMs },
      { ...quiet, interceptors: [attemptSignalInterceptor] },
    );
    const start = Date.now();
    const after = await env.run<[], number, () => Promise<number>>(() => aborted(attemptSignal()!, start));
    assert.ok(after >= 1_400, `aborted after ${after} ms, before its time`);
    assert.ok(after < startToCloseTimeoutMs - ABORT_MARGIN_MS / 2, `aborted after ${after} ms: past the margin`);
  });
});

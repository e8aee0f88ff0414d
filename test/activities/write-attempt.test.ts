/**
 * A write is sent again only on proof that nothing was processed: the proof an attempt leaves in its
 * heartbeat details, read by the next attempt (MockActivityEnvironment plays Temporal's attempt info).
 */
import assert from 'node:assert/strict';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { EcaHttpError, EcaNetworkError, EcaRequestError, EcaSchemaError, EcaTimeoutError } from '../../eca/index.js';
import { provesNotProcessed, WriteAttempt } from '../../activities/write-attempt.js';

/** Runs one attempt in an activity context; the heartbeat details it leaves, if any. */
async function attempt<T>(
  info: { attempt: number; heartbeatDetails?: unknown },
  work: (attempt: WriteAttempt) => Promise<T>,
): Promise<{ result?: T; error?: unknown; left: unknown[] }> {
  // The failures are the point here: the environment's own log of them is left out.
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const left: unknown[] = [];
  env.on('heartbeat', (details: unknown) => left.push(details));
  try {
    return { result: await env.run(() => WriteAttempt.run(work)), left };
  } catch (error) {
    return { error, left };
  }
}

const refused = new EcaNetworkError('create', 'ECONNREFUSED');

describe('write attempts: sent again only on proof', function () {
  it('the first attempt may send; a later one only on the proof its predecessor left', async function () {
    const maySend = async (info: { attempt: number; heartbeatDetails?: unknown }) =>
      (await attempt(info, (a) => Promise.resolve(a.maySend))).result;
    assert.equal(await maySend({ attempt: 1 }), true);
    assert.equal(await maySend({ attempt: 2, heartbeatDetails: { notSentAttempt: 1 } }), true);
    // No details: attempt 1 died with its worker or ran out of time, mid-send perhaps.
    assert.equal(await maySend({ attempt: 2 }), false);
    // A proof of an older attempt says nothing of attempt 2, which may have sent.
    assert.equal(await maySend({ attempt: 3, heartbeatDetails: { notSentAttempt: 1 } }), false);
  });

  it('an error before the send, or one that proves the call was not processed, leaves the proof', async function () {
    const before = await attempt({ attempt: 1 }, () => Promise.reject(new Error('document store down')));
    assert.deepEqual(before.left, [{ notSentAttempt: 1 }]);
    const notConnected = await attempt({ attempt: 2, heartbeatDetails: { notSentAttempt: 1 } }, (a) =>
      a.send(() => Promise.reject(refused)),
    );
    assert.equal(notConnected.error, refused);
    assert.deepEqual(notConnected.left, [{ notSentAttempt: 2 }]);
    const answeredNo = await attempt({ attempt: 1 }, async (a) => {
      await a.send(() => Promise.resolve('isProcessed false'));
      a.answeredNotProcessed();
      throw new Error('not processed');
    });
    assert.deepEqual(answeredNo.left, [{ notSentAttempt: 1 }]);
  });

  it('an ambiguous failure of the send is an unknown outcome, not an error, and leaves no proof', async function () {
    for (const failure of [
      new EcaTimeoutError('create', 60_000),
      new EcaNetworkError('create', 'ECONNRESET'),
      new EcaHttpError('create', 503, ''),
      new EcaSchemaError('', 'truncated JSON'),
    ]) {
      const { result, error, left } = await attempt({ attempt: 1 }, (a) => a.send(() => Promise.reject(failure)));
      assert.equal(error, undefined, failure.message);
      assert.ok(result && 'unknown' in result, failure.message);
      assert.deepEqual(left, [], failure.message);
    }
    // An error after a send that may have reached the service (reading the account, say) leaves none either.
    const after = await attempt({ attempt: 1 }, async (a) => {
      await a.send(() => Promise.resolve('answer'));
      throw new Error('getFileDetails: HTTP 503');
    });
    assert.ok(after.error);
    assert.deepEqual(after.left, []);
  });

  it('an attempt that may not send refuses to, and leaves no proof when it fails', async function () {
    const { error, left } = await attempt({ attempt: 2 }, (a) => a.send(() => Promise.resolve('sent')));
    assert.match(String(error), /may not send/);
    assert.deepEqual(left, []);
  });

  it('tells which failures prove nothing was processed', function () {
    assert.equal(provesNotProcessed(new EcaRequestError('CSID', 'required')), true);
    assert.equal(provesNotProcessed(new EcaHttpError('create', 400, '')), true);
    assert.equal(provesNotProcessed(refused), true);
    assert.equal(provesNotProcessed(new EcaNetworkError('create', 'ENOTFOUND')), true);
    assert.equal(provesNotProcessed(new EcaHttpError('create', 500, '')), false);
    assert.equal(provesNotProcessed(new EcaNetworkError('create', 'UND_ERR_SOCKET')), false);
    assert.equal(provesNotProcessed(new Error('aborted')), false);
  });
});

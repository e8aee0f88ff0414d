/**
 * A write is sent again only on proof that nothing was processed: the proof an attempt leaves in its
 * heartbeat details, read by the next attempt (MockActivityEnvironment plays Temporal's attempt info).
 * Everything else in doubt is an outcome, not an error: the workflow looks again.
 */
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import {
  EcaCryptoError,
  EcaHttpError,
  EcaNetworkError,
  EcaRequestError,
  EcaSchemaError,
  EcaTimeoutError,
} from '../../../eca/index.js';
import { provesNotProcessed, WriteAttempt } from '../../../activities/write-attempt.js';

type Outcome = string | { inDoubt: string };

/** Runs one attempt in an activity context; its outcome or error, and the heartbeat details it left. */
async function attempt(
  info: { attempt: number; heartbeatDetails?: unknown },
  work: (attempt: WriteAttempt) => Promise<Outcome>,
  lookOnly = false,
): Promise<{ result?: Outcome; error?: unknown; left: unknown[] }> {
  // The failures are the point here: the environment's own log of them is left out.
  const env = new MockActivityEnvironment(info, { logger: new DefaultLogger('ERROR') });
  const left: unknown[] = [];
  env.on('heartbeat', (details: unknown) => left.push(details));
  try {
    const result: Outcome = await env.run(() =>
      WriteAttempt.run(work, { lookOnly, inDoubt: (reason) => ({ inDoubt: reason }) }),
    );
    return { result, left };
  } catch (error) {
    return { error, left };
  }
}

const refused = new EcaNetworkError('create', 'ECONNREFUSED');
const sends = (outcome: { result?: Outcome }) => outcome.result === 'sent';

describe('write attempts: sent again only on proof', function () {
  it('the first attempt may send; a later one only on the proof its predecessor left; a look never', async function () {
    const maySend = async (info: { attempt: number; heartbeatDetails?: unknown }, lookOnly = false) =>
      (await attempt(info, (a) => Promise.resolve(String(a.maySend)), lookOnly)).result;
    assert.equal(await maySend({ attempt: 1 }), 'true');
    assert.equal(await maySend({ attempt: 2, heartbeatDetails: { notSentAttempt: 1 } }), 'true');
    // No details: attempt 1 died with its worker or ran out of time, mid-send perhaps.
    assert.equal(await maySend({ attempt: 2 }), 'false');
    // A proof of an older attempt says nothing of attempt 2, which may have sent.
    assert.equal(await maySend({ attempt: 3, heartbeatDetails: { notSentAttempt: 1 } }), 'false');
    assert.equal(await maySend({ attempt: 1 }, true), 'false');
  });

  it('an error before the send, or one that proves the call was not processed, is thrown and leaves the proof', async function () {
    const before = await attempt({ attempt: 1 }, () => Promise.reject(new Error('document store down')));
    assert.match(String(before.error), /document store down/);
    assert.deepEqual(before.left, [{ notSentAttempt: 1 }]);
    const notConnected = await attempt({ attempt: 2, heartbeatDetails: { notSentAttempt: 1 } }, async (a) => {
      await a.send(() => Promise.reject(refused));
      return 'sent';
    });
    assert.equal(notConnected.error, refused);
    assert.deepEqual(notConnected.left, [{ notSentAttempt: 2 }]);
    const answeredNo = await attempt({ attempt: 1 }, async (a) => {
      await a.send(() => Promise.resolve('isProcessed false'));
      a.answeredNotProcessed();
      throw new Error('not processed');
    });
    assert.deepEqual(answeredNo.left, [{ notSentAttempt: 1 }]);
  });

  it('a send whose outcome is unknown, and any error after a send, is an outcome in doubt with no proof', async function () {
    for (const failure of [
      new EcaTimeoutError('create', 60_000),
      new EcaNetworkError('create', 'ECONNRESET'),
      new EcaHttpError('create', 503, ''),
      new EcaHttpError('create', 400, ''),
      new EcaSchemaError('', 'truncated JSON'),
      new EcaCryptoError('signature', 'the answer is not signed by the brokerage'),
    ]) {
      const { result, error, left } = await attempt({ attempt: 1 }, async (a) => {
        const sent = await a.send(() => Promise.reject(failure));
        return 'unknown' in sent ? { inDoubt: sent.unknown } : 'sent';
      });
      assert.equal(error, undefined, failure.message);
      assert.ok(typeof result === 'object' && result.inDoubt.length > 0, failure.message);
      assert.deepEqual(left, [], failure.message);
    }
    const after = await attempt({ attempt: 1 }, async (a) => {
      await a.send(() => Promise.resolve('answer'));
      throw new Error('getFileDetails: HTTP 503');
    });
    assert.deepEqual(after, { result: { inDoubt: 'getFileDetails: HTTP 503' }, left: [] });
  });

  it('an attempt that may not send, or only looks, never fails and never sends', async function () {
    const failing = () => Promise.reject(new Error('getResponseFile: HTTP 503'));
    for (const [info, lookOnly] of [
      [{ attempt: 2 }, false],
      [{ attempt: 1 }, true],
    ] as const) {
      const { result, error, left } = await attempt(info, failing, lookOnly);
      assert.deepEqual([result, error, left], [{ inDoubt: 'getResponseFile: HTTP 503' }, undefined, []]);
      const sending = await attempt(info, async (a) => (await a.send(() => Promise.resolve('sent')), 'sent'), lookOnly);
      assert.equal(sends(sending), false, 'an attempt that may not send sent');
    }
  });

  it('tells which failures prove nothing was processed', function () {
    assert.equal(provesNotProcessed(new EcaRequestError('CSID', 'required')), true);
    assert.equal(
      provesNotProcessed(ApplicationFailure.create({ type: 'EcaRequestError', message: 'x', nonRetryable: true })),
      true,
    );
    assert.equal(provesNotProcessed(refused), true);
    assert.equal(provesNotProcessed(new EcaNetworkError('create', 'ENOTFOUND')), true);
    assert.equal(provesNotProcessed(new EcaCryptoError('passphrase', 'wrong', { stage: 'seal' })), true);
    // The spec shows no HTTP status for failures: none proves anything.
    assert.equal(provesNotProcessed(new EcaHttpError('create', 400, '')), false);
    assert.equal(provesNotProcessed(new EcaHttpError('create', 500, '')), false);
    assert.equal(provesNotProcessed(new EcaCryptoError('firmPrivateKey', 'cannot decrypt the answer')), false);
    assert.equal(provesNotProcessed(new EcaNetworkError('create', 'UND_ERR_SOCKET')), false);
    assert.equal(provesNotProcessed(new Error('aborted')), false);
  });
});

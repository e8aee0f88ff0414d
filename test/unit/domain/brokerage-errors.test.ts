import assert from 'node:assert/strict';
import { BrokerageError, CallPutOff, paceOrDefer } from '../../../domain/brokerage-errors.js';
import type { BrokerageErrorKind } from '../../../domain/brokerage-errors.js';
import {
  EcaAddressRefusedError,
  EcaCryptoError,
  EcaDeferredError,
  EcaHttpError,
  EcaNetworkError,
  EcaRedirectError,
  EcaRequestError,
  EcaSchemaError,
  EcaTimeoutError,
} from '../../../eca/index.js';
import {
  JwtError,
  WebApiAnswerError,
  WebApiAuthError,
  WebApiDeferredError,
  WebApiHttpError,
  WebApiNetworkError,
  WebApiRedirectError,
  WebApiRequestError,
  WebApiSchemaError,
} from '../../../webapi/index.js';
import { brokerageAnomaly, describeError, isDeferral } from '../../../activities/brokerage-errors.js';
import { configurationErrorKind } from '../../../activities/configuration-errors.js';
import { provesNotProcessed } from '../../../activities/write-attempt.js';
import { callOutcome } from '../../../workers/metrics.js';

/** A fetch's failure for a connection that never opened, as undici gives it. */
const refusedConnection = () => Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });

/** Each protocol's failures, with the kind and the proof its library gives them. */
const CASES: Array<[BrokerageError, BrokerageErrorKind, boolean]> = [
  [new EcaRequestError('accountIds', 'empty'), 'invalid-request', true],
  [new WebApiRequestError('accountId', 'letters and digits, 1 to 32'), 'invalid-request', true],
  [new EcaAddressRefusedError('baseUrl', 'a link-local address'), 'address', true],
  [new WebApiRequestError('baseUrl', 'a link-local address'), 'address', true],
  [new EcaRedirectError('create', 302), 'address', false],
  [new WebApiRedirectError('createAccount', 307), 'address', false],
  [new EcaCryptoError('firmPrivateKey', 'wrong', { stage: 'seal' }), 'credentials', true],
  [new EcaCryptoError('signature', 'bad'), 'credentials', false],
  [new WebApiAuthError('client-1', 401, 'the token endpoint refused the client'), 'credentials', true],
  [new WebApiHttpError('accountStatus', 401, ''), 'credentials', true],
  [new JwtError('bad key'), 'credentials', true],
  [new EcaDeferredError('create', 1000, 'taken'), 'put-off', true],
  [new WebApiDeferredError('createAccount', 1000, 'taken'), 'put-off', true],
  [new EcaHttpError('create', 429, ''), 'put-off', false],
  [new WebApiHttpError('createAccount', 429, '', 2000), 'put-off', false],
  [new EcaHttpError('create', 403, ''), 'refused', false],
  [new WebApiHttpError('createAccount', 400, ''), 'refused', true],
  [new WebApiHttpError('accountStatus', 404, ''), 'refused', false],
  [new WebApiAnswerError('accountStatus', 'no such account'), 'refused', false],
  [new EcaSchemaError('result', 'not an array'), 'answer', false],
  [new WebApiSchemaError('accountStatus', 'status', 'not a letter'), 'answer', false],
  [new EcaHttpError('create', 503, ''), 'transport', false],
  [new WebApiHttpError('createAccount', 500, ''), 'transport', false],
  [new EcaTimeoutError('create', 10), 'transport', false],
  [new WebApiNetworkError('createAccount', new DOMException('timed out', 'TimeoutError')), 'transport', false],
  [new EcaNetworkError('create', 'ECONNRESET'), 'transport', false],
  [new EcaNetworkError('create', 'ECONNREFUSED'), 'transport', true],
  [new WebApiNetworkError('createAccount', refusedConnection()), 'transport', true],
];

describe('one brokerage error hierarchy', function () {
  it('gives every failure of both protocols its kind, its protocol and whether it proves nothing was processed', function () {
    for (const [error, kind, notProcessed] of CASES) {
      assert.ok(error instanceof BrokerageError, error.name);
      assert.equal(error.kind, kind, error.message);
      assert.equal(error.protocol, error.name.startsWith('Eca') ? 'xml' : 'webapi', error.message);
      assert.equal(error.notProcessed, notProcessed, `${error.message}: not processed`);
      assert.equal(provesNotProcessed(error), notProcessed, `${error.message}: the write attempt's reading`);
    }
  });

  it('is classified by kind alone: the same kind on either protocol is the same anomaly, alert and metric', function () {
    const readings = new Map<string, string>();
    for (const [error, kind] of CASES) {
      // A 429 was sent and answered: put off by the service, not by the firm's budget before sending.
      const key = kind === 'put-off' && error.status !== undefined ? 'answered later' : kind;
      const reading = JSON.stringify([brokerageAnomaly(error), configurationErrorKind(error), isDeferral(error)]);
      const seen = readings.get(key) ?? reading;
      readings.set(key, seen);
      assert.equal(reading, seen, `${error.message} (${kind})`);
    }
    assert.equal(readings.size, 8);
    assert.equal(brokerageAnomaly(new WebApiSchemaError('accountStatus', 'status', 'x')), 'brokerage-answer');
    assert.equal(brokerageAnomaly(new WebApiAnswerError('accountStatus', undefined)), 'brokerage-refusal');
    assert.equal(configurationErrorKind(new WebApiRedirectError('createAccount', 307)), 'firm');
    assert.equal(configurationErrorKind(new EcaAddressRefusedError('baseUrl', 'refused')), 'firm');
    assert.equal(configurationErrorKind(new WebApiHttpError('accountStatus', 401, '')), 'keys');
    assert.equal(isDeferral(new WebApiDeferredError('accountStatus', 5, 'taken')), true);
    assert.equal(isDeferral(new WebApiHttpError('accountStatus', 429, '', 5)), false, 'a 429 was sent');
    assert.equal(callOutcome(new WebApiHttpError('accountStatus', 401, '')), 'crypto');
    assert.equal(
      describeError(new WebApiHttpError('createAccount', 400, '{"firstName":"Ada"}')),
      'createAccount: HTTP 400',
    );
  });

  it('turns whatever stops a call’s pacing into the protocol’s deferral: nothing was sent', async function () {
    const deferred = (waitMs: number, reason: string) => new WebApiDeferredError('createAccount', waitMs, reason);
    const outcome = (pace: () => Promise<void>, signal?: AbortSignal) =>
      paceOrDefer(pace, signal, deferred).then(
        () => undefined,
        (error: unknown) => error as WebApiDeferredError,
      );
    assert.equal(await outcome(() => Promise.resolve()), undefined);
    const putOff = await outcome(() => Promise.reject(new CallPutOff(1234, "the firm's call budget is taken for now")));
    assert.ok(putOff instanceof WebApiDeferredError);
    assert.equal(putOff.retryAfterMs, 1234);
    assert.match(putOff.message, /^createAccount: not sent, the firm's call budget is taken for now; again in 2 s$/);
    const failed = await outcome(() => Promise.reject(new Error('the database is gone')));
    assert.equal(failed?.retryAfterMs, 1000);
    assert.match(failed.message, /the pacing before it failed/);
    for (const pace of [() => Promise.reject(new Error('aborted')), () => Promise.resolve()]) {
      const aborted = await outcome(pace, AbortSignal.abort());
      assert.equal(aborted?.retryAfterMs, 0, 'the call was cancelled while it waited');
    }
    const own = new EcaDeferredError('create', 5, 'taken');
    assert.equal(await outcome(() => Promise.reject(own)), own, "a protocol's own deferral passes as it is");
  });
});

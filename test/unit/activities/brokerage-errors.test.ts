import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import {
  brokerageAnomaly,
  callBrokerage,
  callBrokerageOrRefusal,
  describeError,
} from '../../../activities/brokerage-errors.js';
import { isRefusal } from '../../../domain/brokerage-errors.js';
import { EcaCryptoError, EcaHttpError, EcaRequestError, EcaSchemaError, EcaTimeoutError } from '../../../eca/index.js';

const failing = (error: Error) => () => Promise.reject(error);

describe('brokerage-error policy', function () {
  it('a refusal reported as an outcome is any 4xx; for the step-failure policy 408, 425 and 429 are transient', function () {
    for (const status of [400, 403, 404, 408, 425, 429, 499]) {
      assert.equal(isRefusal(new EcaHttpError('update', status, ''), { transient: true }), true, `HTTP ${status}`);
    }
    for (const status of [408, 425, 429]) {
      assert.equal(isRefusal(new EcaHttpError('update', status, ''), { transient: false }), false, `HTTP ${status}`);
      assert.equal(brokerageAnomaly(new EcaHttpError('create', status, '')), undefined);
    }
    assert.equal(isRefusal(new EcaHttpError('update', 500, ''), { transient: true }), false);
    assert.equal(brokerageAnomaly(new EcaHttpError('create', 403, '')), 'brokerage-refusal');
    assert.equal(brokerageAnomaly(new EcaSchemaError('result', 'not an array')), 'brokerage-answer');
    assert.equal(describeError(new EcaHttpError('create', 403, '{"first_name":"Ada"}')), 'create: HTTP 403');
  });

  it('a request error fails at once, typed by its name; refusals are reported only where asked; the rest is thrown as is', async function () {
    const request = new EcaRequestError('accountId', 'not an account id');
    for (const call of [callBrokerage, callBrokerageOrRefusal]) {
      await assert.rejects(
        call(failing(request)),
        (error: unknown) =>
          error instanceof ApplicationFailure &&
          error.type === 'EcaRequestError' &&
          error.nonRetryable &&
          error.message === request.message,
      );
      for (const passing of [
        new EcaCryptoError('passphrase', 'wrong'),
        new EcaTimeoutError('update', 10),
        new EcaHttpError('update', 503, ''),
      ]) {
        await assert.rejects(call(failing(passing)), (error: unknown) => error === passing);
      }
    }
    const refusal = new EcaHttpError('update', 429, '');
    await assert.rejects(callBrokerage(failing(refusal)), (error: unknown) => error === refusal);
    assert.deepEqual(await callBrokerageOrRefusal(failing(refusal)), { refusal });
    assert.deepEqual(await callBrokerageOrRefusal(() => Promise.resolve(1)), { answer: 1 });
  });
});

/** The visibility query of an application filter (client/listing.ts): no engine. */
import assert from 'node:assert/strict';
import { applicationQuery, APPLICATION_STATES, InvalidInputError } from '../../../client/index.js';
import { ACCOUNT_STATUS_LETTER_RULE } from '../../../domain/account.js';
import { ACCOUNT_STATUS_CODES } from '../../../eca/types.js';

describe('application filters (client/listing.ts)', function () {
  it('refuses a lifecycle state that does not exist, or a status no brokerage sends, naming what is taken', function () {
    assert.throws(
      () => applicationQuery({ lifecycleState: 'needsDocs' }),
      (error: unknown) =>
        error instanceof InvalidInputError &&
        error.input === 'lifecycleState' &&
        error.message.includes(`"needsDocs" is not a lifecycle state: one of ${APPLICATION_STATES.join(', ')}`),
    );
    assert.throws(
      () => applicationQuery({ accountStatus: 'o' }),
      (error: unknown) =>
        error instanceof InvalidInputError &&
        error.input === 'accountStatus' &&
        error.message.includes(`"o" is not ${ACCOUNT_STATUS_LETTER_RULE}`),
    );
  });

  it('queries every state, the XML service’s statuses and the Web API’s letters beyond them', function () {
    for (const state of APPLICATION_STATES) {
      assert.match(applicationQuery({ lifecycleState: state }), new RegExp(`EcaLifecycleState = '${state}'`));
    }
    for (const code of [...ACCOUNT_STATUS_CODES, 'W', 'Q']) {
      assert.match(applicationQuery({ accountStatus: code }), new RegExp(`EcaAccountStatus = '${code}'`));
    }
  });
});

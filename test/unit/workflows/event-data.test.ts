/** What each lifecycle event tells of the state it leads to (workflows/application/events.ts). */
import assert from 'node:assert/strict';
import { APPLICATION_STATES } from '../../../domain/application-states.js';
import type { ApplicationState } from '../../../domain/application-states.js';
import { eventsOfStep } from '../../../workflows/application/events.js';
import { startLifecycle } from '../../../workflows/lifecycle/index.js';
import type { LifecycleContext, LifecycleEvent } from '../../../workflows/lifecycle/index.js';

const context: LifecycleContext = {
  ...startLifecycle({
    csid: 'CSID1',
    externalId: 'ext-1',
    application: { sha1: 'a'.repeat(40), length: 10, ref: 'aa/aa' },
  }).context,
  status: 'P',
  tasks: [{ formNumber: '8001', formName: 'Proof of Address', action: 'to send' }],
  corrections: ['bad tax id'],
  unconfirmed: { step: 'create', reason: 'no answer' },
  blocked: { step: 'read', errorType: 'EcaSchemaError', reason: 'unreadable', since: 0 },
};

/** The data of the event that tells entering `to` (from `validating`) after `event`. */
function dataOf(to: ApplicationState, event: LifecycleEvent = { type: 'RETRY' }) {
  const drafts = eventsOfStep(event, { state: 'validating', context }, { state: to, context });
  return drafts.at(-1)?.data;
}

describe('event data (workflows/application/events)', function () {
  it('tells of each state what the brokerage said or the firm has', function () {
    const expected: Partial<Record<ApplicationState, unknown>> = {
      needsCorrection: { errors: ['bad tax id'] },
      needsDocuments: { tasks: ['8001'] },
      awaitingClient: { tasks: ['8001'] },
      blocked: { reason: 'unreadable' },
      unconfirmed: { reason: 'no answer' },
      open: { status: 'P' },
      rejected: { status: 'P' },
      closed: { status: 'P' },
      awaitingApproval: { status: 'P' },
    };
    for (const state of APPLICATION_STATES.filter((other) => other !== 'validating')) {
      assert.deepEqual(dataOf(state), expected[state] ?? {}, state);
    }
  });

  it('tells the refusal that led to another state', function () {
    assert.deepEqual(dataOf('tracking', { type: 'ABANDON_REFUSED', error: 'not pending' }), { reason: 'not pending' });
    assert.deepEqual(dataOf('needsDocuments', { type: 'DOCUMENTS_REFUSED', error: 'too big' }), { tasks: ['8001'] });
  });
});

/** The staff actions the Temporal UI's details offer in each state (workflows/application/details.ts). */
import assert from 'node:assert/strict';
import { APPLICATION_STATES } from '../../../domain/application-states.js';
import type { ApplicationState } from '../../../domain/application-states.js';
import { renderDetails } from '../../../workflows/application/details.js';
import type { ApplicationStateView } from '../../../workflows/application/messages.js';

function view(state: ApplicationState, fields: Partial<ApplicationStateView> = {}): ApplicationStateView {
  return {
    csid: 'CSID1',
    externalId: 'ext-1',
    lifecycleState: state,
    done: false,
    application: { sha1: 'a'.repeat(40), length: 10 },
    accountId: 'U100',
    pendingTasks: [],
    waitingDocuments: [],
    corrections: [],
    transitions: [],
    runs: 1,
    ...fields,
  };
}

/** The `eca` command of each action offered, in order. */
function offered(details: string): string[] {
  return [...details.matchAll(/^→ [^`]*`(eca [^`]*)`/gm)].map((match) => match[1]!);
}

const abandon = 'eca abandon ext-1 --reason "…"';
const pollNow = 'eca poll-now ext-1';
const retry = 'eca retry ext-1';

describe('application details (workflows/application/details)', function () {
  it('offer each state its staff actions, and none where staff have nothing to do', function () {
    const expected: Partial<Record<ApplicationState, string[]>> = {
      needsCorrection: ['eca resubmit ext-1 corrected.xml', abandon],
      needsDocuments: ['eca provide-docs ext-1 <form>:file.pdf …', abandon, pollNow],
      tracking: [abandon, pollNow],
      awaitingClient: [abandon, pollNow],
      awaitingApproval: [abandon, pollNow],
      abandoned: ['eca reset ext-1'],
      unconfirmed: [retry, abandon],
      blocked: [retry, abandon],
    };
    for (const state of APPLICATION_STATES) {
      assert.deepEqual(offered(renderDetails(view(state))), expected[state] ?? [], state);
    }
  });

  it('offer a resubmission where no account exists yet', function () {
    const unconfirmedCreate = view('unconfirmed', {
      accountId: undefined,
      unconfirmed: { step: 'create', reason: 'no answer' },
    });
    assert.deepEqual(offered(renderDetails(unconfirmedCreate)), [retry, 'eca resubmit ext-1 application.xml', abandon]);
    const blockedCreate = view('blocked', {
      accountId: undefined,
      blocked: { step: 'create', errorType: 'EcaSchemaError', reason: 'unreadable', since: 0 },
    });
    assert.deepEqual(offered(renderDetails(blockedCreate)), [retry, 'eca resubmit ext-1 application.xml', abandon]);
  });
});

/** The colours of lifecycle states and outcomes in the terminal (client/cli/color.ts). */
import assert from 'node:assert/strict';
import { APPLICATION_STATES } from '../../../domain/application-states.js';
import type { ApplicationState } from '../../../domain/application-states.js';
import { stateColor } from '../../../client/cli/color.js';
import type { Color } from '../../../client/cli/color.js';

describe('state colours (client/cli/color)', function () {
  it('paint an opened account green, a rejection red, a state waiting on the client or staff yellow', function () {
    const expected: Partial<Record<ApplicationState, Color>> = {
      open: 'green',
      rejected: 'red',
      needsDocuments: 'yellow',
      awaitingClient: 'yellow',
      needsCorrection: 'yellow',
      unconfirmed: 'yellow',
      blocked: 'yellow',
      abandoned: 'yellow',
    };
    for (const state of APPLICATION_STATES) assert.equal(stateColor(state), expected[state], state);
  });

  it('paint the outcomes of commands and runs', function () {
    for (const outcome of ['started', 'PROCESSED', 'COMPLETED', 'ok']) assert.equal(stateColor(outcome), 'green');
    for (const outcome of ['failed', 'REJECTED', 'FAILED', 'TERMINATED', 'TIMED_OUT', 'UNCONFIRMED']) {
      assert.equal(stateColor(outcome), 'red', outcome);
    }
    for (const other of ['existed', 'RUNNING', '-', 'constructor', 'needs']) assert.equal(stateColor(other), undefined);
    assert.equal(stateColor(undefined), undefined);
  });
});

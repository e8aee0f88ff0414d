import assert from 'node:assert/strict';
import { blocksApproval, documentPlan } from '../../../workflows/lifecycle/index.js';
import type { FormDocument } from '../../../domain/documents.js';
import type { TaskView } from '../../../domain/account.js';

const document: FormDocument = {
  formNumber: '8001',
  fileName: 'proof.pdf',
  sha1: 'b'.repeat(40),
  length: 4,
  ref: 'bb',
};
const task = (fields: Partial<TaskView>): TaskView => ({
  formNumber: '8001',
  formName: 'Proof of Address',
  action: 'to send',
  state: 'To Be Sent',
  ...fields,
});

// Spec, pending task: "isRequiredForApproval | boolean | true: the account is not approved until the task is done".
describe('lifecycle tasks: documentPlan and isRequiredForApproval', function () {
  it('blocksApproval: only an explicit false releases a task; absent is read as required', function () {
    assert.equal(blocksApproval(task({ isRequiredForApproval: true })), true);
    assert.equal(blocksApproval(task({})), true);
    assert.equal(blocksApproval(task({ isRequiredForApproval: false })), false);
  });

  it('a wanted document of a task not required for approval is not missing ("true: the account is not approved until the task is done")', function () {
    for (const optional of [
      task({ isRequiredForApproval: false }),
      task({ isRequiredForApproval: false, state: undefined, action: 'to sign' }),
      task({ isRequiredForApproval: false, state: 'Rejected', reason: 'blurry' }),
    ]) {
      assert.deepEqual(documentPlan([optional], {}, {}), { toSubmit: [], missing: [] });
    }
  });

  it('a document held for a task not required for approval is still submitted', function () {
    const optional = task({ isRequiredForApproval: false });
    assert.deepEqual(documentPlan([optional], { '8001': document }, {}), { toSubmit: [document], missing: [] });
  });

  it('a task required for approval, or without the field, is missing until a document is held or sent', function () {
    for (const required of [task({ isRequiredForApproval: true }), task({})]) {
      assert.deepEqual(documentPlan([required], {}, {}), { toSubmit: [], missing: [required] });
      assert.deepEqual(documentPlan([required], {}, { '8001': document.sha1 }), { toSubmit: [], missing: [] });
    }
  });
});

/**
 * The documents an application waits for, derived from its pending tasks and the forms held to send
 * (client/application-documents.ts): which tasks are documents, and where each stands.
 */
import assert from 'node:assert/strict';
import { applicationDocuments } from '../../../client/application-documents.js';
import type { TaskView } from '../../../domain/account.js';

const task = (formNumber: string, fields: Partial<TaskView> = {}): TaskView => ({
  formNumber,
  formName: `Form ${formNumber}`,
  action: 'to send',
  ...fields,
});

const documentsOf = (pendingTasks: TaskView[], waitingDocuments: string[] = []) =>
  applicationDocuments({ pendingTasks, waitingDocuments });

describe('applicationDocuments (the documents an application waits for)', function () {
  it('lists `to send` and `to sign` tasks as requested, with their form and action', function () {
    const documents = documentsOf([
      task('8001', { state: 'To Be Sent', isRequiredForApproval: true }),
      task('5001', { action: 'to sign', state: 'To Be Signed' }),
      task('8002', { state: 'To Be Submitted', isRequiredForApproval: false }),
      // No state: the action decides (the spec: `state` may be absent).
      task('8003'),
    ]);
    assert.deepEqual(documents, [
      {
        formNumber: '8001',
        formName: 'Form 8001',
        action: 'to send',
        state: 'requested',
        provided: false,
        requiredForApproval: true,
      },
      {
        formNumber: '5001',
        formName: 'Form 5001',
        action: 'to sign',
        state: 'requested',
        provided: false,
        requiredForApproval: true,
      },
      {
        formNumber: '8002',
        formName: 'Form 8002',
        action: 'to send',
        state: 'requested',
        provided: false,
        requiredForApproval: false,
      },
      {
        formNumber: '8003',
        formName: 'Form 8003',
        action: 'to send',
        state: 'requested',
        provided: false,
        requiredForApproval: true,
      },
    ]);
  });

  it('leaves out tasks done in the hosted portal and tasks in a state it does not know', function () {
    const documents = documentsOf([
      task('3203', { action: 'to complete', isOnlineTask: true }),
      task('3204', { action: 'to complete', state: 'To Be Completed' }),
      task('3205', { action: 'to complete', state: 'Received- Being Processed' }),
      task('9001', { state: 'Pending' }),
      task('9002', { action: 'to file' }),
    ]);
    assert.deepEqual(documents, []);
  });

  it('says which are held to send, with the brokerage, or rejected (with the reason)', function () {
    const documents = documentsOf(
      [
        task('8001', { state: 'To Be Sent' }),
        task('8002', { state: 'Received- Being Processed' }),
        task('8003', { state: 'Rejected', reason: 'document expired' }),
        task('8004', { state: 'Rejected', reason: 'illegible' }),
      ],
      ['8001', '8004', '7777'],
    );
    assert.deepEqual(
      documents.map(({ formNumber, state, provided, rejectionReason }) => ({
        formNumber,
        state,
        provided,
        rejectionReason,
      })),
      [
        { formNumber: '8001', state: 'provided', provided: true, rejectionReason: undefined },
        { formNumber: '8002', state: 'submitted', provided: true, rejectionReason: undefined },
        { formNumber: '8003', state: 'rejected', provided: false, rejectionReason: 'document expired' },
        // A new PDF after a rejection: held to send, the reason of the rejection kept.
        { formNumber: '8004', state: 'provided', provided: true, rejectionReason: 'illegible' },
      ],
    );
    // A form held that no task asks for is in `waitingDocuments` only.
    assert.ok(!documents.some((document) => document.formNumber === '7777'));
    assert.ok(!('rejectionReason' in documents[0]!));
  });

  it('is empty without tasks', function () {
    assert.deepEqual(documentsOf([], ['8001']), []);
  });
});

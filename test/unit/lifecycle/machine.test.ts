import assert from 'node:assert/strict';
import { getShortestPaths, getStateNodes } from '@xstate/graph';
import type { AnyStateNode } from 'xstate';
import {
  effectOf,
  firstReadChangesNothing,
  lifecycleMachine,
  lifecycleState,
  persistLifecycle,
  restoreLifecycle,
  startLifecycle,
  step,
} from '../../../workflows/lifecycle/index.js';
import type {
  LifecycleEvent,
  LifecycleInput,
  LifecycleSnapshot,
  PersistedLifecycle,
} from '../../../workflows/lifecycle/index.js';
import type { FormDocument } from '../../../domain/documents.js';
import type { AccountSnapshot, TaskView } from '../../../domain/account.js';

const input: LifecycleInput = {
  csid: 'CSID1',
  externalId: 'ext-1',
  application: { sha1: 'a'.repeat(40), length: 10, ref: 'aa/aa' },
  documents: [{ formNumber: '5001', fileName: 'w8.pdf', sha1: 'c'.repeat(40), length: 3, ref: 'cc/cc' }],
};

const proofOfAddress: FormDocument = {
  formNumber: '8001',
  fileName: 'proof.pdf',
  sha1: 'b'.repeat(40),
  length: 4,
  ref: 'bb/bb',
};
const newProofOfAddress: FormDocument = { ...proofOfAddress, sha1: 'd'.repeat(40), ref: 'dd/dd' };

const task = (fields: Partial<TaskView>): TaskView => ({
  formNumber: '8001',
  formName: 'Proof of Address',
  action: 'to send',
  ...fields,
});
const status = (account: Partial<AccountSnapshot>): LifecycleEvent => ({
  type: 'STATUS',
  account: { status: 'N', tasks: [], ...account },
});

const statuses = {
  underReview: status({
    status: 'P',
    stateText: 'Under Review',
    tasks: [task({ state: 'Received- Being Processed' })],
  }),
  documentWanted: status({ stateText: 'Documents Required', tasks: [task({ state: 'To Be Sent' })] }),
  documentRejected: status({ stateText: 'Documents Required', tasks: [task({ state: 'Rejected', reason: 'blurry' })] }),
  portalTask: status({
    stateText: 'Incomplete Application',
    tasks: [task({ formNumber: '3001', action: 'to complete', state: 'To Be Completed' })],
  }),
  pendingApproval: status({ status: 'P', stateText: 'Pending Approval' }),
  open: status({ status: 'O' }),
  rejected: status({ status: 'R' }),
  closed: status({ status: 'C' }),
  abandonedAtBrokerage: status({ status: 'A' }),
};

function run(events: LifecycleEvent[], from: LifecycleSnapshot = startLifecycle(input)): LifecycleSnapshot {
  return events.reduce(step, from);
}

describe('lifecycle statechart', function () {
  describe('paths of the lifecycle', function () {
    it('happy path: validate, create, review, approval queue, open', function () {
      const states: string[] = [];
      let snapshot = startLifecycle(input);
      for (const event of [
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U100', userName: 'jdoe100' },
        statuses.underReview,
        statuses.pendingApproval,
        statuses.open,
      ] as LifecycleEvent[]) {
        snapshot = step(snapshot, event);
        states.push(lifecycleState(snapshot));
      }
      assert.deepEqual(states, ['creating', 'tracking', 'tracking', 'awaitingApproval', 'open']);
      assert.equal(snapshot.status, 'done');
      assert.deepEqual(effectOf(snapshot), { kind: 'done', outcome: 'open' });
      assert.equal(snapshot.context.accountId, 'U100');
      // documents that went with create count as sent
      assert.equal(snapshot.context.submittedDocuments['5001'], 'c'.repeat(40));
    });

    it('invalid application: needs correction, then a resubmission is validated again', function () {
      let snapshot = run([{ type: 'VALIDATION_FAILED', errors: ['missing first name'] }]);
      assert.equal(lifecycleState(snapshot), 'needsCorrection');
      assert.deepEqual(snapshot.context.corrections, ['missing first name']);
      assert.deepEqual(effectOf(snapshot), { kind: 'awaitStaff' });

      const corrected = { sha1: 'e'.repeat(40), length: 11, ref: 'ee/ee' };
      snapshot = step(snapshot, { type: 'RESUBMIT', application: corrected });
      assert.equal(lifecycleState(snapshot), 'validating');
      assert.deepEqual(snapshot.context.application, corrected);
      assert.deepEqual(snapshot.context.corrections, []);
    });

    it('create refused (isProcessed false): needs correction', function () {
      const snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATE_REFUSED', errors: ['invalid XML format'] }]);
      assert.equal(lifecycleState(snapshot), 'needsCorrection');
    });

    it('a wanted document without one in hand waits for staff, then is submitted when provided', function () {
      let snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.documentWanted]);
      assert.equal(lifecycleState(snapshot), 'needsDocuments');
      assert.deepEqual(effectOf(snapshot), { kind: 'poll' });

      snapshot = step(snapshot, { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] });
      assert.equal(lifecycleState(snapshot), 'submittingDocuments');
      assert.deepEqual(effectOf(snapshot), { kind: 'submitDocuments', documents: [proofOfAddress] });

      snapshot = step(snapshot, { type: 'DOCUMENTS_SUBMITTED', documents: [proofOfAddress] });
      assert.equal(lifecycleState(snapshot), 'tracking');
      assert.deepEqual(snapshot.context.waitingDocuments, {});
      // the brokerage's task list may lag a poll behind: a sent document is not asked for again
      snapshot = step(snapshot, statuses.documentWanted);
      assert.equal(lifecycleState(snapshot), 'tracking');
    });

    it('a rejected document needs a different one: the same file is not sent twice', function () {
      let snapshot = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] },
        statuses.documentWanted,
        { type: 'DOCUMENTS_SUBMITTED', documents: [proofOfAddress] },
        statuses.documentRejected,
      ]);
      assert.equal(lifecycleState(snapshot), 'needsDocuments');
      snapshot = step(snapshot, { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] });
      assert.equal(lifecycleState(snapshot), 'needsDocuments', 'the rejected file itself is no answer');
      snapshot = step(snapshot, { type: 'PROVIDE_DOCUMENTS', documents: [newProofOfAddress] });
      assert.deepEqual(effectOf(snapshot), { kind: 'submitDocuments', documents: [newProofOfAddress] });
    });

    // Spec, pending task: "isRequiredForApproval | boolean | true: the account is not approved until the task is
    // done". A task that approval does not wait for (false) never makes the application wait for documents.
    it('a document task with isRequiredForApproval false ("true: the account is not approved until the task is done") does not wait for documents, yet a held document is still sent', function () {
      const optional = (state: string, reason?: string) =>
        status({
          stateText: 'Documents Required',
          tasks: [task({ state, isRequiredForApproval: false, ...(reason ? { reason } : {}) })],
        });
      let snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, optional('To Be Sent')]);
      assert.equal(lifecycleState(snapshot), 'tracking');
      assert.deepEqual(effectOf(snapshot), { kind: 'poll' });

      // A document provided for it is submitted all the same.
      snapshot = step(snapshot, { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] });
      assert.equal(lifecycleState(snapshot), 'submittingDocuments');
      assert.deepEqual(effectOf(snapshot), { kind: 'submitDocuments', documents: [proofOfAddress] });
      snapshot = step(snapshot, { type: 'DOCUMENTS_SUBMITTED', documents: [proofOfAddress] });

      // Rejected, it still does not hold the application.
      snapshot = step(snapshot, optional('Rejected', 'blurry'));
      assert.equal(lifecycleState(snapshot), 'tracking');
    });

    it('a document task without isRequiredForApproval is read as required (the conservative reading)', function () {
      const absent = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.documentWanted]);
      assert.equal(absent.context.tasks[0]?.isRequiredForApproval, undefined);
      assert.equal(lifecycleState(absent), 'needsDocuments');
      const required = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        status({ tasks: [task({ state: 'To Be Sent', isRequiredForApproval: true })] }),
      ]);
      assert.equal(lifecycleState(required), 'needsDocuments');
    });

    it('a `to complete` task waits for the portal', function () {
      const snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.portalTask]);
      assert.equal(lifecycleState(snapshot), 'awaitingClient');
      assert.deepEqual(effectOf(snapshot), { kind: 'poll' });
    });

    it('rejection by compliance ends the lifecycle', function () {
      const snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.rejected]);
      assert.deepEqual(effectOf(snapshot), { kind: 'done', outcome: 'rejected' });
    });

    it('abandon then reset returns to tracking; without reset the retention period ends it', function () {
      let snapshot = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        statuses.portalTask,
        { type: 'ABANDON', reason: 'client withdrew' },
      ]);
      assert.equal(lifecycleState(snapshot), 'abandoning');
      assert.equal(snapshot.context.abandonReason, 'client withdrew');
      snapshot = step(snapshot, { type: 'ABANDON_CONFIRMED' });
      assert.deepEqual(effectOf(snapshot), { kind: 'awaitReset' });

      const reset = run([{ type: 'RESET' }, { type: 'RESET_CONFIRMED' }], snapshot);
      assert.equal(lifecycleState(reset), 'tracking');

      const expired = step(snapshot, { type: 'RETENTION_EXPIRED' });
      assert.deepEqual(effectOf(expired), { kind: 'done', outcome: 'abandoned' });
    });

    it('abandon is refused while the account is being created and after the end', function () {
      const creating = run([{ type: 'VALIDATED' }]);
      assert.equal(creating.can({ type: 'ABANDON' }), false);
      const open = run([{ type: 'CREATED', accountId: 'U1' }, statuses.open], creating);
      assert.equal(open.can({ type: 'ABANDON' }), false);
      assert.equal(open.can({ type: 'RESET' }), false);
      const tracking = run([{ type: 'CREATED', accountId: 'U1' }], creating);
      assert.equal(tracking.can({ type: 'ABANDON' }), true);
      assert.equal(tracking.can({ type: 'RESUBMIT', application: input.application }), false);
    });

    it('a create whose processed file names no account found stops in unconfirmed: retry looks again, resubmit settles the file, abandon ends it', function () {
      const file = 'F_20250108_0001_0001.xml.report';
      const unconfirmed = run([
        { type: 'VALIDATED' },
        { type: 'CREATE_UNCONFIRMED', responseFile: file, reason: 'no account lists it' },
      ]);
      assert.equal(lifecycleState(unconfirmed), 'unconfirmed');
      assert.deepEqual(effectOf(unconfirmed), { kind: 'awaitStaff' });
      assert.equal(unconfirmed.context.unconfirmed?.responseFile, file);
      assert.equal(lifecycleState(step(unconfirmed, { type: 'RETRY' })), 'creating');
      const resubmitted = step(unconfirmed, { type: 'RESUBMIT', application: input.application });
      assert.equal(lifecycleState(resubmitted), 'validating');
      assert.deepEqual(resubmitted.context.settledFiles, [file]);
      // No account is known: abandoning ends the application without a call to the service.
      assert.equal(lifecycleState(step(unconfirmed, { type: 'ABANDON' })), 'closedAsAbandoned');
      // A failure entry settles its file at once.
      const refused = run([{ type: 'VALIDATED' }, { type: 'CREATE_REFUSED', errors: ['x'], settledFiles: [file] }]);
      assert.deepEqual(refused.context.settledFiles, [file]);
    });

    it('a create that may have been sent is kept in doubt through retries until resubmitted or answered by a failure entry', function () {
      const doubt = { type: 'CREATE_MAY_HAVE_BEEN_SENT', at: 1_000, reason: 'create: HTTP 503' } as const;
      const creating = run([{ type: 'VALIDATED' }, doubt]);
      assert.equal(lifecycleState(creating), 'creating', 'the step goes on looking');
      assert.deepEqual(creating.context.createMayHaveBeenSent, { at: 1_000, reason: 'create: HTTP 503' });
      const unconfirmed = step(creating, { type: 'CREATE_UNCONFIRMED', responseFile: '', reason: 'not listed' });
      // retry looks again, still in doubt: the next create step only looks.
      assert.ok(step(unconfirmed, { type: 'RETRY' }).context.createMayHaveBeenSent);
      // resubmit: staff declare the create made no account.
      assert.equal(
        step(unconfirmed, { type: 'RESUBMIT', application: input.application }).context.createMayHaveBeenSent,
        undefined,
      );
      // A failure entry for the external id answers the create in doubt: it made no account.
      const refused = step(creating, { type: 'CREATE_REFUSED', errors: ['x'], settledFiles: ['f.xml.report'] });
      assert.equal(refused.context.createMayHaveBeenSent, undefined);
    });

    it('an update request is kept until decided, so a retry after unconfirmed follows the same request', function () {
      const sent = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        statuses.underReview,
        { type: 'ABANDON' },
        { type: 'REQUEST_PREPARED', functionName: 'AbandonAccount', known: ['old.xml'] },
        { type: 'REQUEST_SENT', responseFile: 'new.xml' },
      ]);
      assert.deepEqual(sent.context.request, {
        functionName: 'AbandonAccount',
        known: ['old.xml'],
        responseFile: 'new.xml',
      });
      const stuck = step(sent, { type: 'REQUEST_UNCONFIRMED', reason: 'PENDING after 2 days' });
      assert.equal(lifecycleState(stuck), 'unconfirmed');
      assert.deepEqual(stuck.context.unconfirmed, {
        step: 'AbandonAccount',
        reason: 'PENDING after 2 days',
        responseFile: 'new.xml',
      });
      // Not a second abandon: the same request, with its file, is followed again.
      const again = step(stuck, { type: 'RETRY' });
      assert.equal(lifecycleState(again), 'abandoning');
      assert.equal(again.context.request?.responseFile, 'new.xml');
      const done = step(again, { type: 'ABANDON_CONFIRMED' });
      assert.equal(lifecycleState(done), 'abandoned');
      assert.equal(done.context.request, undefined);
      // Staff may abandon instead: the account is known, so AbandonAccount is sent (a new request).
      const documents = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] },
        statuses.documentWanted,
        { type: 'REQUEST_PREPARED', functionName: 'DocumentSubmission', known: [] },
        { type: 'REQUEST_UNCONFIRMED', reason: 'not listed' },
      ]);
      assert.equal(lifecycleState(documents), 'unconfirmed');
      assert.equal(lifecycleState(step(documents, { type: 'RETRY' })), 'submittingDocuments');
      const abandoning = step(documents, { type: 'ABANDON' });
      assert.equal(lifecycleState(abandoning), 'abandoning');
      assert.equal(abandoning.context.request, undefined);
    });

    it('a step no retry mends stops in blocked; retry runs the same step again, resubmit and abandon end it', function () {
      const blocked = (step: 'validate' | 'create' | 'read' | 'DocumentSubmission' | 'AbandonAccount') =>
        ({ type: 'BLOCKED', step, errorType: 'DocumentNotFound', reason: 'gone', since: 1 }) as const;
      const atValidate = run([blocked('validate')]);
      assert.equal(lifecycleState(atValidate), 'blocked');
      assert.deepEqual(atValidate.context.blocked, {
        step: 'validate',
        errorType: 'DocumentNotFound',
        reason: 'gone',
        since: 1,
      });
      assert.equal(effectOf(atValidate).kind, 'awaitStaff');
      const retried = step(atValidate, { type: 'RETRY' });
      assert.equal(lifecycleState(retried), 'validating');
      assert.equal(retried.context.blocked, undefined);
      // Before an account exists the application may be replaced, or ended at once.
      const corrected = { sha1: 'e'.repeat(40), length: 12, ref: 'ee/ee' };
      const resubmitted = step(run([{ type: 'VALIDATED' }, blocked('create')]), {
        type: 'RESUBMIT',
        application: corrected,
      });
      assert.equal(lifecycleState(resubmitted), 'validating');
      assert.deepEqual(resubmitted.context.application, corrected);
      assert.equal(lifecycleState(step(atValidate, { type: 'ABANDON' })), 'closedAsAbandoned');
      assert.equal(
        lifecycleState(step(run([{ type: 'VALIDATED' }, blocked('create')]), { type: 'RETRY' })),
        'creating',
      );

      // With an account: a failed read goes back to deciding; resubmit is refused; abandon sends AbandonAccount.
      const tracked = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.underReview]);
      const atRead = step(tracked, blocked('read'));
      assert.equal(lifecycleState(atRead), 'blocked');
      assert.equal(lifecycleState(step(atRead, { type: 'RETRY' })), 'tracking');
      assert.equal(atRead.can({ type: 'RESUBMIT', application: corrected }), false);
      assert.equal(lifecycleState(step(atRead, { type: 'ABANDON', reason: 'client left' })), 'abandoning');

      // A blocked submission keeps its request, so a retry follows it instead of sending another.
      const submitting = run([
        { type: 'VALIDATED' },
        { type: 'CREATED', accountId: 'U1' },
        { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] },
        statuses.documentWanted,
        { type: 'REQUEST_PREPARED', functionName: 'DocumentSubmission', known: ['old.xml'] },
        blocked('DocumentSubmission'),
      ]);
      assert.equal(lifecycleState(submitting), 'blocked');
      const again = step(submitting, { type: 'RETRY' });
      assert.equal(lifecycleState(again), 'submittingDocuments');
      assert.equal(again.context.request?.functionName, 'DocumentSubmission');
      assert.equal(step(submitting, { type: 'ABANDON' }).context.request, undefined);

      // A blocked AbandonAccount is followed, never sent twice, whether staff retry or abandon again.
      const abandoning = step(tracked, { type: 'ABANDON' });
      const sent = step(step(abandoning, { type: 'REQUEST_PREPARED', functionName: 'AbandonAccount', known: [] }), {
        type: 'REQUEST_SENT',
        responseFile: 'new.xml',
      });
      const atAbandon = step(sent, blocked('AbandonAccount'));
      for (const event of [{ type: 'RETRY' }, { type: 'ABANDON' }] as const) {
        const next = step(atAbandon, event);
        assert.equal(lifecycleState(next), 'abandoning');
        assert.equal(next.context.request?.responseFile, 'new.xml');
      }
    });

    it('ignores events a state does not take, leaving the snapshot as it was', function () {
      const snapshot = startLifecycle(input);
      const after = step(snapshot, { type: 'RESET' });
      assert.deepEqual(persistLifecycle(after), persistLifecycle(snapshot));
    });

    it('survives persistence (continue-as-new) with value and context intact', function () {
      const snapshot = run([{ type: 'VALIDATED' }, { type: 'CREATED', accountId: 'U1' }, statuses.documentWanted]);
      const restored = restoreLifecycle(JSON.parse(JSON.stringify(persistLifecycle(snapshot))) as PersistedLifecycle);
      assert.equal(lifecycleState(restored), 'needsDocuments');
      const next = step(restored, { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] });
      assert.equal(lifecycleState(next), 'submittingDocuments');
    });
  });

  describe('model: every state and transition is reachable', function () {
    const events: LifecycleEvent[] = [
      { type: 'VALIDATED' },
      { type: 'VALIDATION_FAILED', errors: ['missing last name'] },
      { type: 'CREATED', accountId: 'U1' },
      { type: 'CREATE_REFUSED', errors: ['invalid XML format'] },
      ...Object.values(statuses),
      { type: 'PROVIDE_DOCUMENTS', documents: [proofOfAddress] },
      { type: 'DOCUMENTS_SUBMITTED', documents: [proofOfAddress] },
      { type: 'DOCUMENTS_REFUSED', error: 'checksum mismatch' },
      { type: 'RESUBMIT', application: input.application },
      { type: 'ABANDON' },
      { type: 'ABANDON_CONFIRMED' },
      { type: 'ABANDON_REFUSED', error: 'not pending' },
      { type: 'RESET' },
      { type: 'RESET_CONFIRMED' },
      { type: 'RESET_REFUSED', error: 'not abandoned' },
      { type: 'RETENTION_EXPIRED' },
      { type: 'CREATE_UNCONFIRMED', responseFile: 'F_20250108_0001_0001.xml.report', reason: 'no account lists it' },
      { type: 'CREATE_MAY_HAVE_BEEN_SENT', at: 1, reason: 'create: HTTP 503' },
      { type: 'REQUEST_PREPARED', functionName: 'AbandonAccount', known: [] },
      { type: 'REQUEST_SENT', responseFile: 'F_20250108_0002_0002.xml' },
      { type: 'REQUEST_UNCONFIRMED', reason: 'PENDING after 2 days' },
      { type: 'REQUEST_IN_DOUBT' },
      { type: 'RETRY' },
      { type: 'BLOCKED', step: 'validate', errorType: 'DocumentNotFound', reason: 'gone', since: 1 },
    ];
    /** Whether an active state names the event (an event no state names changes nothing). */
    const handles = (state: { _nodes: AnyStateNode[] }, event: LifecycleEvent) =>
      state._nodes.some((node: AnyStateNode) => event.type in node.on);
    // Only the events a state handles are queued: the traversal's queue is an array it shifts, quadratic in its length.
    const paths = getShortestPaths(lifecycleMachine, {
      input,
      events: (state) => events.filter((event) => handles(state, event)),
      serializeState: (snapshot) =>
        JSON.stringify({
          value: snapshot.value,
          status: snapshot.context.status,
          stateText: snapshot.context.stateText,
          tasks: snapshot.context.tasks,
          waiting: snapshot.context.waitingDocuments,
          submitted: snapshot.context.submittedDocuments,
          unconfirmed: snapshot.context.unconfirmed?.step,
          blocked: snapshot.context.blocked?.step,
          request: snapshot.context.request,
          inDoubt: snapshot.context.createMayHaveBeenSent !== undefined,
        }),
    });

    /**
     * `state id|event type` of every transition exercised: each reachable state is fed every event. No
     * event transition of the machine has a guard, so the deepest active state naming the event takes it.
     */
    const taken = new Set<string>();
    for (const { state } of paths) {
      for (const event of events) {
        const handler = state._nodes.filter((node: AnyStateNode) => event.type in node.on).at(-1);
        if (!handler) continue;
        step(state, event);
        taken.add(`${handler.id}|${event.type}`);
      }
    }

    it('reaches every state of the machine', function () {
      const reached = new Set(paths.flatMap((path) => path.state._nodes.map((node: AnyStateNode) => node.id)));
      const all = getStateNodes(lifecycleMachine.root).map((node) => node.id);
      assert.deepEqual(
        all.filter((id) => !reached.has(id) && !id.endsWith('.deciding')),
        [],
        'unreachable states',
      );
    });

    it('takes every transition the machine defines', function () {
      const defined = getStateNodes(lifecycleMachine.root).flatMap((node) =>
        Object.keys(node.on).map((eventType) => `${node.id}|${eventType}`),
      );
      assert.ok(defined.includes('accountApplication.pending|ABANDON'), 'transitions were not enumerated');
      assert.deepEqual(
        defined.filter((transition) => !taken.has(transition)),
        [],
        'transitions never taken',
      );
    });

    it('gives every reachable state an effect', function () {
      for (const path of paths) assert.doesNotThrow(() => effectOf(path.state));
    });
  });

  it('tells which first read of its account a just-created application takes without a change', function () {
    const task: TaskView = { formNumber: '8001', formName: 'Proof of identity', action: 'to sign' };
    const cases: Array<[AccountSnapshot, boolean]> = [
      [{ status: 'N', tasks: [] }, true],
      [{ status: 'P', stateText: 'Under Review with the brokerage', tasks: [] }, true],
      [{ status: 'P', stateText: 'Pending Approval', tasks: [] }, false],
      [{ status: 'P', tasks: [task] }, false],
      [{ status: 'O', tasks: [] }, false],
      [{ status: 'R', tasks: [] }, false],
      [{ status: 'A', tasks: [] }, false],
    ];
    for (const [account, quiet] of cases)
      assert.equal(firstReadChangesNothing(account), quiet, JSON.stringify(account));
  });
});

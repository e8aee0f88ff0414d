import assert from 'node:assert/strict';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkflowHandle } from '@temporalio/client';
import { randomBytes } from 'node:crypto';
import type { accountApplication } from '../../workflows/index.js';
import { applicationDocuments } from '../../client/application-documents.js';
import type { TaskView } from '../../domain/account.js';
import type { FormDocument } from '../../domain/documents.js';
import { lifecycleState, persistLifecycle, startLifecycle, step } from '../../workflows/lifecycle/index.js';
import type { LifecycleEvent } from '../../workflows/lifecycle/index.js';
import {
  abandonUpdate,
  provideDocumentsUpdate,
  resubmitUpdate,
  stateQuery,
} from '../../workflows/application/messages.js';
import { stubbedEngine } from '../support/brokerage-stub.js';
import type { StubbedEngine } from '../support/brokerage-stub.js';
import { waitForState as waitForStateOn } from '../support/engine.js';
import { expectLog } from '../support/hooks.js';
import { applicant } from '../support/history-privacy.js';

type Handle = WorkflowHandle<typeof accountApplication>;

/** A PDF for form 8001 as the document store would refer to it (the stub reads no store): `digit` tells files apart. */
const proofOfIdentity = (digit: string): FormDocument => {
  const sha1 = digit.repeat(40);
  return { sha1, length: 10, ref: `sha1/${sha1.slice(0, 2)}/${sha1}`, formNumber: '8001', fileName: `id-${digit}.pdf` };
};

/** The stub's form 8001 as the brokerage lists it once it rejected the file sent for it. */
const REJECTED: TaskView = {
  formNumber: '8001',
  formName: 'Proof of identity',
  action: 'to send',
  state: 'Rejected',
  reason: 'Document older than three months',
};

/**
 * The application workflow's own logic, its activities stubbed (test/support/brokerage-stub.ts): what staff
 * messages it refuses, what it sends, how it waits and ends. Its conversations with the brokerage are
 * tested against the simulator over HTTP in application.test.ts.
 */
describe('accountApplication workflow logic (time-skipping server, stubbed activities)', function () {
  this.timeout(60_000);
  const engines = stubbedEngine();

  const waitForState = (engine: StubbedEngine, handle: Handle, state: string) =>
    waitForStateOn(engine.env, handle, state);

  it("staff messages without an input, or with the patch marker's shape, are refused and shown; nothing is sent", async function () {
    const engine = await engines.setUp();
    const handle = await engine.start('portal-task');
    await engine.worker.runUntil(async () => {
      await waitForState(engine, handle, 'awaitingClient');
      const marker = { id: 'status-sweep', deprecated: false };
      // What a client without the payload codec can send that a strict codec has nothing to refuse in:
      // no payload at all, or a plaintext one the codec lets through as the SDK's patch marker.
      await handle.signal('abandon');
      await handle.signal('abandon', marker);
      await handle.signal('pollNow');
      await handle.signal('retry', marker);
      for (const [name, args] of [
        ['abandon', []],
        ['abandon', [marker]],
        ['reset', []],
        ['retry', [marker]],
      ] as const) {
        await assert.rejects(
          handle.executeUpdate(name, { args: [...args] } as never),
          (error: unknown) =>
            error instanceof WorkflowUpdateFailedError &&
            /takes \{/.test(String(error.cause)) &&
            (error.cause as { type?: string }).type === 'InvalidArgument',
          `update ${name}(${JSON.stringify(args)})`,
        );
      }
      let view = await handle.query(stateQuery);
      for (let i = 0; i < 50 && (view.staffNotices ?? []).length < 4; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        view = await handle.query(stateQuery);
      }
      assert.deepEqual(
        (view.staffNotices ?? []).map(({ name, outcome, detail }) => [name, outcome, detail]),
        [
          [
            'abandon',
            'refused',
            'abandon takes {"reason": "…"} (the reason is optional): every staff message carries an input, encrypted by the sender\'s payload codec',
          ],
          [
            'abandon',
            'refused',
            'abandon takes {"reason": "…"} (the reason is optional), not the field(s) id, deprecated',
          ],
          [
            'pollNow',
            'refused',
            "pollNow takes {}: every staff message carries an input, encrypted by the sender's payload codec",
          ],
          ['retry', 'refused', 'retry takes {}, not the field(s) id, deprecated'],
        ],
      );
      assert.equal(view.lifecycleState, 'awaitingClient', 'nothing moved');
      assert.deepEqual(engine.brokerage.sent(), [], 'nothing sent');
      assert.equal(engine.brokerage.account(view.accountId!).status, 'P');
      await handle.terminate('test done');
    });
  });

  it('update validators say what input each staff update takes', async function () {
    const REF = { sha1: '0'.repeat(40), length: 10, ref: `sha1/00/${'0'.repeat(40)}` };
    const engine = await engines.setUp();
    const handle = await engine.start('portal-task');
    await engine.worker.runUntil(async () => {
      await waitForState(engine, handle, 'awaitingClient');
      for (const [update, args, message] of [
        [abandonUpdate, ['now'], /abandon takes \{"reason": "…"\}/],
        [provideDocumentsUpdate, [[{ formNumber: '8001' }]], /documents\[0\]: provideDocuments takes \[\{"formNumber"/],
        // what the submission needs: a form number of digits, a plain PDF file name, a real length
        [provideDocumentsUpdate, [[{ ...REF, formNumber: 'abc', fileName: 'id.pdf' }]], /formNumber must be/],
        [provideDocumentsUpdate, [[{ ...REF, formNumber: '8001', fileName: '../id.pdf' }]], /fileName must be/],
        [provideDocumentsUpdate, [[{ ...REF, formNumber: '8001', fileName: 'id.exe' }]], /fileName must be/],
        [
          provideDocumentsUpdate,
          [[{ ...REF, length: -1, formNumber: '8001', fileName: 'id.pdf' }]],
          /provideDocuments takes/,
        ],
        [resubmitUpdate, [{}], /resubmit takes the corrected application XML as a document store reference/],
      ] as const) {
        await assert.rejects(
          handle.executeUpdate(update as typeof abandonUpdate, { args: args as never }),
          (error: unknown) => error instanceof WorkflowUpdateFailedError && message.test(String(error.cause?.message)),
        );
      }
      assert.equal((await handle.query(stateQuery)).lifecycleState, 'awaitingClient');
      assert.deepEqual(engine.brokerage.sent(), [], 'nothing sent');
      await handle.terminate('test done');
    });
  });

  it('abandon without reset: the workflow completes as abandoned after the retention period', async function () {
    const engine = await engines.setUp();
    const handle = await engine.start('portal-task', { settings: { abandonedRetention: '7 days' } });
    await engine.worker.runUntil(async () => {
      await waitForState(engine, handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{}] });
      const result = await handle.result();
      assert.equal(result.outcome, 'abandoned');
      assert.deepEqual(engine.brokerage.sent(), ['AbandonAccount'], 'one AbandonAccount, nothing else');
      const abandoned = result.transitions.find((transition) => transition.state === 'abandoned');
      assert.ok(abandoned, result.transitions.map((transition) => transition.state).join(' '));
      // Ended by the retention timer: the last transition is the retention's end, at least 7 days later.
      const ended = result.transitions.at(-1)!;
      assert.equal(ended.state, 'closedAsAbandoned');
      assert.ok(ended.at - abandoned.at >= 7 * 86_400_000, `ended ${ended.at - abandoned.at} ms after abandoning`);
    });
    assert.deepEqual(
      engine.brokerage.events.all.slice(-2).map((event) => event.type),
      ['application.abandoned', 'application.closed_as_abandoned'],
    );
  });

  it('deadlines: reminders then overdue under the defaults, as events and in the state view; nothing else happens', async function () {
    const engine = await engines.setUp();
    // Reads once a day: the month passes in few activities.
    const handle = await engine.start('docs-required', { settings: { safetyPollInterval: '1 day' } });
    await engine.worker.runUntil(async () => {
      const waiting = await waitForState(engine, handle, 'needsDocuments');
      assert.equal(waiting.deadline?.state, 'needsDocuments');
      assert.equal(waiting.deadline?.overdue, false);
      const entered = waiting.transitions.at(-1)!.at;
      assert.equal(waiting.deadline?.due, entered + 30 * 86_400_000, 'the default: 30 days');
      const details = async () =>
        (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails ?? '';
      assert.match(await details(), /\*\*Deadline \(needsDocuments\):\*\* due \S+ · next reminder \S+/);
      await engine.env.sleep('31 days');
      const late = await handle.query(stateQuery);
      assert.equal(late.lifecycleState, 'needsDocuments', 'the default escalation is none');
      assert.equal(late.deadline?.overdue, true);
      assert.match(await details(), /\*\*Deadline \(needsDocuments\):\*\* overdue since \S+\n/);
      // A workflow left waiting would hold the shared server's time skipping.
      await handle.terminate('test done');
    });
    const marks = engine.brokerage.events.all.filter((event) =>
      ['application.reminder', 'application.overdue'].includes(event.type),
    );
    assert.deepEqual(
      marks.map((event) => [event.type, event.data.deadline?.reminder]),
      [
        ['application.reminder', 1],
        ['application.reminder', 2],
        ['application.reminder', 3],
        ['application.overdue', undefined],
      ],
    );
    assert.ok(marks.every((event) => event.data.deadline?.state === 'needsDocuments' && event.to === 'needsDocuments'));
    assert.deepEqual(engine.brokerage.sent(), [], 'nothing sent');
  });

  it('deadlines: a policy this build refuses (an activity of another build let it through): the application goes on, its deadlines unwatched', async function () {
    // An applicant's data in the policy: the run's log watch checks that the refusal's line holds none of it.
    const person = applicant('deadlines', randomBytes(4).toString('hex'));
    const refused = expectLog(/^deadlines not watched$/);
    try {
      const engine = await engines.setUp();
      // The activity checks a stored policy; this one answers as if it did not, with a deadline no duration reads.
      engine.brokerage.policy = { needsDocuments: { deadline: person.email, reminders: [], escalation: 'none' } };
      const handle = await engine.start('docs-required', { settings: { safetyPollInterval: '1 day' } });
      await engine.worker.runUntil(async () => {
        const waiting = await waitForState(engine, handle, 'needsDocuments');
        assert.equal(waiting.deadline, undefined, 'no deadline shown');
        // Past the default deadline (30 days): nothing is told, and the application still waits.
        await engine.env.sleep('31 days');
        const later = await handle.query(stateQuery);
        assert.equal(later.lifecycleState, 'needsDocuments');
        assert.equal(later.deadline, undefined);
        assert.equal((await handle.describe()).status.name, 'RUNNING');
        await handle.terminate('test done');
      });
      const types = engine.brokerage.events.all.map((event) => event.type);
      assert.ok(types.includes('application.needs_documents'), types.join(', '));
      assert.ok(!types.includes('application.reminder') && !types.includes('application.overdue'), types.join(', '));
      assert.ok(refused.seen >= 1, 'the refusal is logged');
    } finally {
      refused.done();
    }
  });

  it('a rejected document: the very file again is refused, naming the form and the rejection; the form stays asked for; a different file is sent', async function () {
    const engine = await engines.setUp();
    const handle = await engine.start('docs-required');
    await engine.worker.runUntil(async () => {
      const waiting = await waitForState(engine, handle, 'needsDocuments');
      await handle.executeUpdate(provideDocumentsUpdate, { args: [[proofOfIdentity('1')]] });
      await waitForState(engine, handle, 'tracking');
      assert.deepEqual(engine.brokerage.sent(), ['DocumentSubmission']);
      engine.brokerage.account(waiting.accountId!).tasks = [{ ...REJECTED }];
      await waitForState(engine, handle, 'needsDocuments');

      await assert.rejects(
        handle.executeUpdate(provideDocumentsUpdate, { args: [[proofOfIdentity('1')]] }),
        (error: unknown) => {
          assert.ok(error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure);
          assert.equal(error.cause.type, 'DocumentRejected');
          assert.equal(
            error.cause.message,
            'the PDF for form 8001 is the very file the brokerage rejected: provide a different one',
          );
          assert.deepEqual(error.cause.details, [
            [{ formNumber: '8001', formName: 'Proof of identity', reason: 'Document older than three months' }],
          ]);
          return true;
        },
      );
      const view = await handle.query(stateQuery);
      assert.equal(view.lifecycleState, 'needsDocuments');
      assert.deepEqual(view.waitingDocuments, []);
      assert.deepEqual(
        applicationDocuments(view).map(({ formNumber, state, provided }) => ({ formNumber, state, provided })),
        [{ formNumber: '8001', state: 'rejected', provided: false }],
      );
      assert.deepEqual(engine.brokerage.sent(), ['DocumentSubmission'], 'nothing sent again');

      const different = await handle.executeUpdate(provideDocumentsUpdate, { args: [[proofOfIdentity('2')]] });
      assert.equal(different.lifecycleState, 'submittingDocuments');
      // No time is skipped here: the file is sent, and no read has followed that could show what became of it.
      let sent = await handle.query(stateQuery);
      for (let i = 0; i < 300 && sent.lifecycleState !== 'tracking'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        sent = await handle.query(stateQuery);
      }
      assert.equal(sent.lifecycleState, 'tracking');
      assert.equal(sent.pendingTasks[0]?.state, 'Rejected', 'the tasks as last read: the rejection of the first file');
      // The same file again (a caller's retry): the rejection it meets is the first file's, so it is not refused.
      await handle.executeUpdate(provideDocumentsUpdate, { args: [[proofOfIdentity('2')]] });
      await waitForState(engine, handle, 'tracking');
      assert.deepEqual(engine.brokerage.sent(), ['DocumentSubmission', 'DocumentSubmission']);
      await handle.terminate('test done');
    });
  });

  it('a run carrying the very file the brokerage rejected, held as earlier builds took it: the form is not shown provided', async function () {
    const engine = await engines.setUp();
    engine.brokerage.accounts.set('U7000001', {
      accountId: 'U7000001',
      externalId: 'docs-required-carried',
      status: 'P',
      stateText: 'Incomplete Application',
      tasks: [{ ...REJECTED }],
    });
    const sent = proofOfIdentity('1');
    const asked = { status: 'P', stateText: 'Incomplete Application', tasks: [{ ...REJECTED, state: 'To Be Sent' }] };
    const events: LifecycleEvent[] = [
      { type: 'VALIDATED' },
      { type: 'CREATED', accountId: 'U7000001' },
      { type: 'STATUS', account: asked },
      { type: 'PROVIDE_DOCUMENTS', documents: [sent] },
      { type: 'DOCUMENTS_SUBMITTED', documents: [sent] },
      { type: 'STATUS', account: { ...asked, tasks: [{ ...REJECTED }] } },
      // What an earlier build took: the same file again, held and never sent.
      { type: 'PROVIDE_DOCUMENTS', documents: [sent] },
    ];
    const lifecycle = events.reduce(
      step,
      startLifecycle({ csid: 'CSID-STUB', externalId: 'docs-required-carried', application: sent }),
    );
    assert.equal(lifecycleState(lifecycle), 'needsDocuments');
    assert.deepEqual(Object.keys(lifecycle.context.waitingDocuments), ['8001'], 'held');
    const handle = await engine.start('docs-required', {
      carried: { lifecycle: persistLifecycle(lifecycle), transitions: [], runs: 1 },
    });
    await engine.worker.runUntil(async () => {
      const view = await waitForState(engine, handle, 'needsDocuments');
      assert.deepEqual(view.waitingDocuments, []);
      assert.deepEqual(
        applicationDocuments(view).map(({ state, provided, rejectionReason }) => ({
          state,
          provided,
          rejectionReason,
        })),
        [{ state: 'rejected', provided: false, rejectionReason: 'Document older than three months' }],
      );
      const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
      assert.match(details ?? '', /\| 8001 \| Proof of identity \| to send \| Rejected/);
      assert.doesNotMatch(details ?? '', /Documents to send/);
      assert.deepEqual(engine.brokerage.sent(), [], 'nothing sent');
      // A different file takes the rejected one's place, and is sent.
      await handle.executeUpdate(provideDocumentsUpdate, { args: [[proofOfIdentity('2')]] });
      await waitForState(engine, handle, 'tracking');
      const submitted = engine.brokerage.calls.filter((call) => call.name === 'sendApplicationUpdate');
      assert.equal(submitted.length, 1);
      assert.match(JSON.stringify(submitted[0]?.input), new RegExp(proofOfIdentity('2').sha1));
      await handle.terminate('test done');
    });
  });
});

import assert from 'node:assert/strict';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { persistLifecycle, startLifecycle, step } from '../../workflows/lifecycle/index.js';
import type { LifecycleEvent } from '../../workflows/lifecycle/index.js';
import { accountApplication } from '../../workflows/index.js';
import { defineSignal } from '@temporalio/workflow';
import {
  abandonSignal,
  abandonUpdate,
  pollNowSignal,
  provideDocumentsUpdate,
  resetSignal,
  resetUpdate,
  resubmitUpdate,
  stateQuery,
  accountObservedSignal,
} from '../../workflows/application/messages.js';
import { applicationXml } from '../support/engine.js';
import { applicationWorkflowTests } from '../support/application-workflow.js';

describe('accountApplication workflow (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const { engines, setUp, start, waitForState, keepFixture, documentFor } = applicationWorkflowTests();

  it('happy path: validated, created, reviewed, opened by the next business day', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'happy');
    const result = await harness.worker.runUntil(handle.result());
    assert.equal(result.outcome, 'open');
    assert.equal(result.status, 'O');
    assert.ok(result.accountId);
    assert.equal(harness.sim.control.account(result.accountId)?.status, 'O');
    const states = result.transitions.map((transition) => transition.state);
    assert.deepEqual(states.slice(0, 3), ['validating', 'creating', 'tracking']);
    assert.ok(states.includes('awaitingApproval'), `no approval wait in ${states.join(' → ')}`);

    // Search attributes are written when they change, not on every poll.
    const events = (await handle.fetchHistory()).events ?? [];
    const upserts = events.filter((event) => event.upsertWorkflowSearchAttributesEventAttributes).length;
    const polls = events.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'readAccount',
    ).length;
    assert.ok(upserts < polls, `${upserts} search attribute writes for ${polls} polls`);

    // One event per state entered, numbered in order, each with the account once it exists.
    const lifecycleEvents = harness.events.all;
    assert.deepEqual(
      lifecycleEvents.map((event) => event.type).filter((type) => type !== 'application.tracking'),
      [
        'application.validating',
        'application.validated',
        'application.created',
        'application.awaiting_approval',
        'application.open',
      ],
    );
    assert.deepEqual(
      lifecycleEvents.map((event) => event.seq),
      lifecycleEvents.map((_, i) => i + 1),
    );
    assert.equal(lifecycleEvents.at(-1)?.accountId, result.accountId);
    assert.equal(lifecycleEvents.at(-1)?.data.status, 'O');
    assert.equal(harness.events.repeated, 0);
  });

  it('documents required: waits for staff, submits the provided PDFs, then opens', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'docs-required');
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'needsDocuments');
      assert.deepEqual(waiting.pendingTasks.map((task) => task.formNumber).sort(), ['8001', '8002']);
      const documents = [await documentFor(harness, '8001', 'a'), await documentFor(harness, '8002', 'a')];
      const view = await handle.executeUpdate(provideDocumentsUpdate, { args: [documents] });
      assert.equal(view.lifecycleState, 'submittingDocuments');
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const account = harness.sim.control.account(result.accountId!);
      assert.equal(account?.status, 'O');
    });
  });

  it('a rejected document: needs another, the new one is accepted, the account opens', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'doc-rejected');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'needsDocuments');
      await handle.executeUpdate(provideDocumentsUpdate, {
        args: [[await documentFor(harness, '8001', 'a'), await documentFor(harness, '8002', 'a')]],
      });
      const rejected = await waitForState(handle, 'needsDocuments');
      const task = rejected.pendingTasks.find((candidate) => candidate.formNumber === '8002');
      assert.equal(task?.state, 'Rejected');
      assert.match(task?.reason ?? '', /older than three months/);
      await handle.executeUpdate(provideDocumentsUpdate, { args: [[await documentFor(harness, '8002', 'b')]] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      // The brokerage's reason reaches the firm as an event of its own, once.
      const rejections = harness.events.all.filter((event) => event.type === 'application.document_rejected');
      assert.equal(rejections.length, 1);
      assert.equal(rejections[0]?.data.formNumber, '8002');
      assert.match(rejections[0]?.data.reason ?? '', /older than three months/);
      const needs = harness.events.all.find((event) => event.type === 'application.needs_documents');
      assert.deepEqual(needs?.data.tasks?.sort(), ['8001', '8002']);
      assert.equal(
        harness.events.all.filter((event) => event.type === 'application.staff_action').length,
        2,
        'two provideDocuments',
      );
    });
  });

  it('a `to complete` task: waits for the portal, then opens', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'portal-task');
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'awaitingClient');
      assert.equal(waiting.pendingTasks[0]?.action, 'to complete');
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
    });
  });

  it('sweep mode with no sweep running: the application reads its account itself after the safety interval', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'stalled', {
      settings: { safetyPollInterval: '6 hours' },
    });
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'awaitingClient');
      // The next own read is the safety poll, not the 1-hour portal slot.
      assert.equal(waiting.nextPollAt! % (6 * 3_600_000), 0, 'the safety poll falls on a 6-hour slot');
      harness.sim.control.completeTask(waiting.accountId!);
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
    });
    const events = (await handle.fetchHistory()).events ?? [];
    const reads = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readAccount');
    assert.ok(reads.length >= 2, `the account was read by the application itself (${reads.length} reads)`);
    const observed = events.filter((e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'accountObserved');
    assert.equal(observed.length, 0);
  });

  it('sweep mode: a wake-up read before its wait, unlike what it last read, is not taken; the application reads itself at once', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'docs-required', {
      settings: { safetyPollInterval: '6 hours' },
    });
    const scheduledReads = async () =>
      ((await handle.fetchHistory()).events ?? []).filter(
        (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'readAccount',
      ).length;
    await harness.worker.runUntil(async () => {
      const needs = await waitForState(handle, 'needsDocuments');
      const documents = [await documentFor(harness, '8001', 'a'), await documentFor(harness, '8002', 'a')];
      await handle.executeUpdate(provideDocumentsUpdate, { args: [documents] });
      let waiting = await handle.query(stateQuery);
      // The submission's request is followed on timers: let workflow time pass until the application waits.
      for (let i = 0; i < 100 && !['tracking', 'awaitingApproval'].includes(waiting.lifecycleState); i++) {
        await engines.env.sleep('1 minute');
        waiting = await handle.query(stateQuery);
      }
      assert.ok(['tracking', 'awaitingApproval'].includes(waiting.lifecycleState), waiting.lifecycleState);
      const before = await scheduledReads();
      // As the sweep would send it had it read the account during the submission: after the application's
      // own last read, before its wait. Taken as is it would open the account; it must make the application read.
      await handle.signal(accountObservedSignal, {
        account: { status: 'O', tasks: [] },
        accountId: needs.accountId,
        observedAt: needs.lastPollAt! + 1,
      });
      // No time is skipped while the test polls the history: a read now is the wake-up's, not the safety poll's.
      for (let i = 0; i < 100 && (await scheduledReads()) === before; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await scheduledReads(), before + 1, 'the application read its account itself');
      const after = await handle.query(stateQuery);
      assert.notEqual(after.status, 'O', 'the older wake-up was not taken as the account');
      assert.equal((await handle.result()).outcome, 'open');
    });
  });

  it('sweep mode: an application that has read nothing takes a wake-up read before its wait, unless read before its last update was decided', async function () {
    const harness = await setUp();
    const first = await start(harness, 'stalled', {
      settings: { safetyPollInterval: '6 hours' },
    });
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(first, 'awaitingClient');
      await first.terminate('test: its account is taken over by a carried run');
      // A run that has created its account and read nothing, carrying a wake-up from before it began (the sweep
      // read the account while the create returned).
      const lifecycle = persistLifecycle(
        [{ type: 'VALIDATED' }, { type: 'CREATED', accountId: waiting.accountId! }].reduce(
          (snapshot, event) => step(snapshot, event as LifecycleEvent),
          startLifecycle({
            csid: waiting.csid,
            externalId: waiting.externalId,
            application: { sha1: 'a'.repeat(40), length: 1, ref: 'x' },
          }),
        ),
      );
      const reads = () => harness.sim.control.calls().getAccountStatus ?? 0;
      const carriedRun = (name: string, updatedAt?: number) =>
        engines.env.client.workflow.start(accountApplication, {
          taskQueue: harness.taskQueue,
          workflowId: `${first.workflowId}-${name}`,
          args: [
            {
              csid: waiting.csid,
              externalId: waiting.externalId,
              application: { sha1: 'a'.repeat(40), length: 1, ref: 'x' },
              settings: { documentRetention: null, safetyPollInterval: '6 hours' },
              carried: {
                lifecycle,
                transitions: [],
                runs: 1,
                observation: { account: { status: 'O', tasks: [] }, accountId: waiting.accountId, observedAt: 10 },
                ...(updatedAt !== undefined && { updatedAt }),
              },
            },
          ],
        });
      const before = reads();
      const taking = await carriedRun('carried');
      assert.equal((await taking.result()).outcome, 'open', 'the wake-up was taken');
      assert.equal(reads(), before, 'the application did not read itself');

      // The same wake-up, read before the application's last update was decided (a reset, say): it may not
      // show the update, so the application reads its account itself (awaiting its client, not open).
      const reading = await carriedRun('carried-after-update', 20);
      for (let i = 0; i < 300 && reads() === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      assert.equal(reads(), before + 1, 'the application read its account itself');
      const state = await reading.query(stateQuery);
      assert.notEqual(state.status, 'O', 'the older wake-up was not taken as the account');
      await reading.terminate('test finished');
    });
  });

  it('pollNow reads the status at once instead of at the next slot', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'awaitingClient');
      assert.ok(waiting.nextPollAt! > (waiting.lastPollAt ?? 0), 'a next poll is scheduled');
      const reads = harness.sim.control.calls().getAccountStatus ?? 0;
      await handle.signal(pollNowSignal, {});
      // No time is skipped here: only the signal can make the workflow read before its slot.
      for (let i = 0; i < 100 && (harness.sim.control.calls().getAccountStatus ?? 0) === reads; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(harness.sim.control.calls().getAccountStatus, reads + 1);
      const after = await handle.query(stateQuery);
      assert.equal(after.lifecycleState, 'awaitingClient');
      assert.ok(after.lastPollAt! < waiting.nextPollAt!, 'polled before the slot it was waiting for');
      await handle.terminate('test finished');
    });
  });

  it('a pollNow carried across continue-as-new makes the next run read at once, not at its slot', async function () {
    const harness = await setUp();
    const first = await start(harness, 'stalled', { settings: { safetyPollInterval: '1 day' } });
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(first, 'awaitingClient');
      await first.terminate('test: its account is taken over by a carried run');
      const reads = () => harness.sim.control.calls().getAccountStatus ?? 0;
      // The run after a continue-as-new, as the workflow builds its input (its lifecycle where the first stood).
      const lifecycle = persistLifecycle(
        [
          { type: 'VALIDATED' },
          { type: 'CREATED', accountId: waiting.accountId! },
          {
            type: 'STATUS',
            account: { status: waiting.status!, stateText: waiting.stateText, tasks: waiting.pendingTasks },
          },
        ].reduce(
          (snapshot, event) => step(snapshot, event as LifecycleEvent),
          startLifecycle({
            csid: waiting.csid,
            externalId: waiting.externalId,
            application: { sha1: 'a'.repeat(40), length: 1, ref: 'x' },
          }),
        ),
      );
      const carriedRun = async (pollRequested: boolean) => {
        const before = reads();
        const handle = await engines.env.client.workflow.start(accountApplication, {
          taskQueue: harness.taskQueue,
          workflowId: `${first.workflowId}-carried-${String(pollRequested)}`,
          args: [
            {
              csid: waiting.csid,
              externalId: waiting.externalId,
              application: { sha1: 'a'.repeat(40), length: 1, ref: 'x' },
              settings: { documentRetention: null, safetyPollInterval: '1 day' },
              carried: { lifecycle, transitions: [], runs: 1, ...(pollRequested && { pollRequested }) },
            },
          ],
        });
        // No time is skipped here (only awaiting a result or engines.env.sleep skips): a read within 15 s is not its
        // slot's (a day away), however slow a loaded host starts the run.
        for (let i = 0; i < 300 && reads() === before; i++) await new Promise((resolve) => setTimeout(resolve, 50));
        const state = await handle.query(stateQuery);
        await handle.terminate('test finished');
        return { read: reads() > before, state };
      };
      const carried = await carriedRun(true);
      assert.ok(carried.read, 'the carried pollNow was not served at once');
      assert.equal(carried.state.lifecycleState, 'awaitingClient');
      const control = await carriedRun(false);
      assert.equal(control.read, false, 'a run without a carried pollNow read before its slot');
    });
  });

  it('rejected by compliance: the workflow ends rejected', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'compliance-rejected');
    const result = await harness.worker.runUntil(handle.result());
    assert.equal(result.outcome, 'rejected');
    assert.equal(result.status, 'R');
  });

  it('abandon then reset: the application is tracked again and opens', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'client asked to pause' }] });
      const abandoned = await waitForState(handle, 'abandoned');
      assert.equal(harness.sim.control.account(abandoned.accountId!)?.status, 'A');
      // abandoning twice is refused by the validator, with a typed failure
      await assert.rejects(
        handle.executeUpdate(abandonUpdate, { args: [{}] }),
        (error: unknown) => error instanceof WorkflowUpdateFailedError && /not allowed/.test(String(error.cause)),
      );
      await handle.executeUpdate(resetUpdate, { args: [{}] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const states = result.transitions.map((transition) => transition.state);
      assert.ok(states.includes('resetting'));
      const types = harness.events.all.map((event) => event.type);
      const abandon = types.indexOf('application.staff_action');
      assert.deepEqual(types.slice(abandon, abandon + 3), [
        'application.staff_action',
        'application.abandoning',
        'application.abandoned',
      ]);
      assert.ok(types.includes('application.reset'), types.join(' '));
      assert.equal(types.at(-1), 'application.open');
    });
  });

  it('staff signals: abandon as a signal abandons; refused, malformed and unknown signals are shown in the state and current details', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.signal(resetSignal, {});
      await handle.signal(abandonSignal, 42 as never);
      await handle.signal(defineSignal('abandonn'));
      const notices = async (count: number) => {
        for (let i = 0; i < 50; i++) {
          const view = await handle.query(stateQuery);
          if ((view.staffNotices ?? []).length >= count) return view.staffNotices!;
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        assert.fail(`fewer than ${count} staff notices`);
      };
      const refused = await notices(3);
      assert.deepEqual(
        refused.map(({ name, outcome, detail }) => [name, outcome, detail]),
        [
          ['reset', 'refused', 'reset is not allowed while the application is awaitingClient'],
          ['abandon', 'refused', 'abandon takes {"reason": "…"} (the reason is optional)'],
          [
            'abandonn',
            'unknown',
            'no such signal: abandon, reset, retry and pollNow are signals; resubmit and provideDocuments are updates',
          ],
        ],
      );
      assert.equal((await handle.query(stateQuery)).lifecycleState, 'awaitingClient', 'nothing moved');
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      assert.match(metadata.currentDetails ?? '', /`abandonn` unknown: no such signal/);
      assert.match(metadata.currentDetails ?? '', /`reset` refused: reset is not allowed/);
      assert.match(metadata.currentDetails ?? '', /What staff can do now/);
      assert.match(
        metadata.currentDetails ?? '',
        /temporal workflow signal --workflow-id application:\S+ --name abandon/,
      );

      await handle.signal(abandonSignal, { reason: 'client unresponsive' });
      const abandoned = await waitForState(handle, 'abandoned');
      assert.equal(harness.sim.control.account(abandoned.accountId!)?.status, 'A');
      assert.deepEqual(abandoned.staffNotices?.at(-1)?.name, 'abandon');
      assert.deepEqual(abandoned.staffNotices?.at(-1)?.outcome, 'accepted');
      const details = (await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata')).currentDetails;
      assert.match(details ?? '', /reset the application at the brokerage: `eca reset /);
      await keepFixture('abandon-by-signal', handle);
      // Left running, its timers and polls would hold the shared server's time skipping for the next tests.
      await handle.terminate('test done');
    });
  });

  it('invalid application: needs correction until a corrected one is resubmitted', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'happy', {}, (xml) => xml.replace(' first="Jane"', ''));
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'needsCorrection');
      assert.ok(
        waiting.corrections.some((error) => /first name/i.test(error)),
        waiting.corrections.join('; '),
      );
      const corrected = await harness.store.put(new TextEncoder().encode(applicationXml(waiting.externalId)));
      await handle.executeUpdate(resubmitUpdate, { args: [corrected] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
    });
  });
});

import assert from 'node:assert/strict';
import { CancelledFailure, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { FormDocument } from '../../domain/documents.js';
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
  retryUpdate,
  stateQuery,
  accountObservedSignal,
} from '../../workflows/application/messages.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import {
  applicationXml,
  pdf,
  startApplication,
  timeSkippingEngine,
  waitForState as waitForStateOn,
} from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { recordFixture } from '../support/replay-fixtures.js';
import { expectLog } from '../support/hooks.js';
import { DeadlinePolicies } from '../../runtime/deadline-policies.js';
import { EventLog } from '../../runtime/events.js';
import { applicant, personalXml } from '../support/history-privacy.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSeededDatabase } from '../support/database-template.js';

type Handle = WorkflowHandle<typeof accountApplication>;

describe('accountApplication workflow (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();
  const { setUp } = engines;

  /** An application of the simulator's `scenario`, the example's XML edited by `edit`. */
  function start(
    harness: EngineHarness,
    scenario: string,
    input: Partial<ApplicationInput> = {},
    edit?: (xml: string) => string,
  ): Promise<Handle> {
    return startApplication(engines.env, harness, scenario, { input, xml: (id) => applicationXml(id, edit) });
  }

  /** Lets workflow time pass in steps until the application reaches `state`. */
  const waitForState = (handle: Handle, state: string) => waitForStateOn(engines.env, handle, state);

  /** Keeps the application's history as the replay fixture `application-<scenario>` (recordFixture). */
  const keepFixture = (scenario: string, handle: Handle) =>
    recordFixture(`application-${scenario}`, () => handle.fetchHistory());

  async function documentFor(harness: EngineHarness, formNumber: string, variant: string): Promise<FormDocument> {
    const ref = await harness.store.put(pdf(`${formNumber}-${variant}`));
    return { ...ref, formNumber, fileName: `form-${formNumber}-${variant}.pdf` };
  }

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

  it('a create whose response is lost makes exactly one account', async function () {
    let lost = 0;
    const losingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const url = input instanceof Request ? input.url : String(input);
      if (url.endsWith('/ws/eca/create') && lost === 0) {
        lost++;
        await response.arrayBuffer();
        throw new TypeError('fetch failed: connection reset after the request was processed');
      }
      return response;
    };
    const harness = await setUp({ fetch: losingFetch });
    const handle = await start(harness, 'happy');
    await harness.worker.runUntil(async () => {
      const result = await handle.result();
      assert.equal(lost, 1);
      assert.equal(result.outcome, 'open');
      assert.equal(harness.sim.control.calls().create, 1, 'create was sent again');
      const { externalId } = await handle.query(stateQuery);
      assert.equal(harness.sim.control.accountByExternalId(externalId)?.accountId, result.accountId);
    });
  });

  type RequestEntry = Record<string, { data: unknown[]; files: string[] }>;

  /**
   * A transport that loses the answer of the `nth` call of `operation` after the service processed it, and
   * lets the test rewrite what getAmRequestStatus lists (`listing`) from then on: a listing that lags, or
   * another sender's request appearing beside ours.
   */
  function losing(
    operation: string,
    {
      nth = 1,
      listing,
      stillAbandoned,
    }: {
      nth?: number;
      listing?: (entries: RequestEntry[]) => RequestEntry[];
      /** getAccountStatus keeps showing A (the reset's effect hidden) while this answers true. */
      stillAbandoned?: () => boolean;
    } = {},
  ): { fetch: typeof fetch; lost: () => number } {
    let calls = 0;
    let lost = 0;
    return {
      lost: () => lost,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith(`/ws/eca/${operation}`) && ++calls === nth) {
          lost++;
          await response.arrayBuffer();
          throw new TypeError('fetch failed: connection reset after the request was processed');
        }
        if (listing && url.endsWith('/ws/eca/getAmRequestStatus') && lost > 0) {
          const body = (await response.json()) as { result: RequestEntry[] };
          return Response.json({ ...body, result: listing(body.result) });
        }
        if (stillAbandoned?.() && url.endsWith('/ws/eca/getAccountStatus') && lost > 0) {
          const body = (await response.json()) as { status?: Array<Record<string, unknown>> };
          const status = body.status?.map((entry) => ('status' in entry ? { ...entry, status: 'A' } : entry));
          return Response.json({ ...body, status });
        }
        return response;
      },
    };
  }

  it('an abandon whose update response is lost sends exactly one AbandonAccount (found by account before a resend)', async function () {
    const transport = losing('update');
    const harness = await setUp({ fetch: transport.fetch });
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'client withdrew' }] });
      const abandoned = await waitForState(handle, 'abandoned');
      assert.equal(transport.lost(), 1);
      assert.equal(harness.sim.control.calls().update, 1, 'update was sent again');
      assert.equal(harness.sim.control.account(abandoned.accountId!)?.status, 'A');
      // Left waiting for a reset, its timers would fire on a queue no worker polls in later tests.
      await handle.terminate('test finished');
    });
  });

  it('documents whose update response is lost are submitted once and the account opens', async function () {
    const transport = losing('update');
    const harness = await setUp({ fetch: transport.fetch });
    const handle = await start(harness, 'docs-required');
    await harness.worker.runUntil(async () => {
      const waiting = await waitForState(handle, 'needsDocuments');
      const forms = waiting.pendingTasks.map((task) => task.formNumber);
      const documents = await Promise.all(forms.map((form) => documentFor(harness, form, 'first')));
      await handle.executeUpdate(provideDocumentsUpdate, { args: [documents] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      assert.equal(transport.lost(), 1);
      assert.equal(harness.sim.control.calls().update, 1, 'DocumentSubmission was sent again');
    });
  });

  it('a reset whose answer was lost and is listed late: looked for with backoff, never sent again, and the account opens', async function () {
    // The reset's request is left out of the first listings after the loss (the spec promises no listing delay).
    let looks = 0;
    const transport = losing('update', {
      nth: 2,
      listing: (entries) =>
        ++looks > 4 ? entries : entries.filter((entry) => !Object.keys(entry).includes('ResetAbandonedAccount')),
      // Nor does the account show the reset's effect until then (confirmedByEffect would find it first).
      stillAbandoned: () => looks <= 4,
    });
    const harness = await setUp({ fetch: transport.fetch });
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'client withdrew' }] });
      await waitForState(handle, 'abandoned');
      await handle.executeUpdate(resetUpdate, { args: [{}] });
      // The stalled scenario completes its portal task after a reset and opens.
      const result = await handle.result();
      assert.equal(transport.lost(), 1);
      assert.ok(looks > 4, `the request was found after ${looks} listings`);
      assert.equal(harness.sim.control.calls().update, 2, 'abandon and the reset, each sent once');
      assert.equal(result.outcome, 'open');
    });
  });

  it('a reset whose answer was lost and is never listed: unconfirmed after the window, nothing sent again', async function () {
    const transport = losing('update', {
      nth: 2,
      listing: (entries) => entries.filter((entry) => !Object.keys(entry).includes('ResetAbandonedAccount')),
      // Nor does the account show its effect: nothing establishes the reset.
      stillAbandoned: () => true,
    });
    const harness = await setUp({ fetch: transport.fetch });
    const handle = await start(harness, 'stalled', { settings: { lostAnswerWindow: '20 minutes' } });
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'client withdrew' }] });
      await waitForState(handle, 'abandoned');
      await handle.executeUpdate(resetUpdate, { args: [{}] });
      const stopped = await waitForState(handle, 'unconfirmed');
      assert.match(stopped.unconfirmed?.reason ?? '', /ResetAbandonedAccount may have been received .* look\(s\) over/);
      assert.equal(harness.sim.control.calls().update, 2, 'the reset was sent again');
      await handle.terminate('test finished');
    });
  });

  it('a create whose answer was lost is looked up until listed, never sent again; one never processed waits for staff', async function () {
    const harness = await setUp({
      simulator: { listingLag: { getResponseFile: { minMs: 5 * 60_000, maxMs: 5 * 60_000 } } },
    });
    harness.sim.control.addFault({ operation: 'create', kind: 'lost-response', count: 1 });
    const late = await start(harness, 'happy');
    await harness.worker.runUntil(async () => {
      const result = await late.result();
      assert.equal(result.outcome, 'open');
      assert.equal(harness.sim.control.calls().create, 1, 'create was sent again');
      const states = result.transitions.map((transition) => transition.state);
      assert.ok(!states.includes('unconfirmed'), states.join(' → '));
      // Refused with a 503 (never processed, which the engine cannot know): unconfirmed after the window;
      // the staff, told by the brokerage that nothing arrived, resubmit and the account is created once.
      harness.sim.control.addFault({ operation: 'create', kind: 'http503', count: 1 });
      const never = await start(harness, 'happy', { settings: { lostAnswerWindow: '10 minutes' } });
      const stopped = await waitForState(never, 'unconfirmed');
      assert.match(stopped.unconfirmed?.reason ?? '', /may have been processed .* resubmit/);
      assert.equal(harness.sim.control.calls().create, 2);
      const xml = await harness.store.put(new TextEncoder().encode(applicationXml(stopped.externalId)));
      await never.executeUpdate(resubmitUpdate, { args: [xml] });
      assert.equal((await never.result()).outcome, 'open');
      assert.equal(harness.sim.control.calls().create, 3);
      await keepFixture('create-listed-late', late);
      await keepFixture('create-unconfirmed-resubmitted', never);
      const records = harness.sim.control.records({ externalId: stopped.externalId });
      assert.equal(records.externalIds[0]?.accounts.length, 1);
    });
  });

  it("another sender's request beside a lost abandon: unconfirmed, and a staff retry looks again instead of sending", async function () {
    let other = true;
    const foreign: RequestEntry = {
      ChangeAccountHolderDetail: {
        data: [{ RequestDetail: 'X1', status: 'PENDING' }],
        files: ['Other_20250101_0001_0001.xml'],
      },
    };
    const transport = losing('update', { listing: (entries) => (other ? [...entries, foreign] : entries) });
    const harness = await setUp({ fetch: transport.fetch });
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{}] });
      const stuck = await waitForState(handle, 'unconfirmed');
      assert.match(stuck.unconfirmed?.reason ?? '', /more than one new request/);
      // A retry while both are listed looks again (finds two) and sends nothing.
      await handle.executeUpdate(retryUpdate, { args: [{}] });
      await waitForState(handle, 'unconfirmed');
      assert.equal(harness.sim.control.calls().update, 1, 'a staff retry sent a second AbandonAccount');
      // Once only ours is new, the retry adopts it and follows it to its decision.
      other = false;
      await handle.executeUpdate(retryUpdate, { args: [{}] });
      const abandoned = await waitForState(handle, 'abandoned');
      assert.equal(harness.sim.control.calls().update, 1, 'a staff retry sent a second AbandonAccount');
      assert.equal(harness.sim.control.account(abandoned.accountId!)?.status, 'A');
      await handle.terminate('test finished');
    });
  });

  it('a request listing with an error entry for the account stops in unconfirmed instead of retrying for ever', async function () {
    // Convention 3: "an entry for a failing account carries isError = true and an error text".
    const harness = await setUp({
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (!url.endsWith('/ws/eca/getAmRequestStatus')) return response;
        await response.arrayBuffer();
        return Response.json({ result: [{ isError: true, Error: 'request history unavailable' }] });
      },
    });
    const handle = await start(harness, 'stalled');
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{}] });
      const stuck = await waitForState(handle, 'unconfirmed');
      assert.equal(stuck.unconfirmed?.step, 'AbandonAccount');
      assert.match(stuck.unconfirmed?.reason ?? '', /request history unavailable/);
      assert.equal(harness.sim.control.calls().update ?? 0, 0, 'nothing is sent while requests cannot be seen');
      await handle.terminate('test finished');
    });
  });

  it('a request left PENDING past the bound stops in unconfirmed; retry follows the same request, never a second one', async function () {
    const harness = await setUp({ simulator: { timings: { requestProcessingMs: 3 * 60 * 60_000 } } });
    const handle = await start(harness, 'stalled', { settings: { requestConfirmTimeout: '1 hour' } });
    await harness.worker.runUntil(async () => {
      await waitForState(handle, 'awaitingClient');
      await handle.executeUpdate(abandonUpdate, { args: [{}] });
      const stuck = await waitForState(handle, 'unconfirmed');
      assert.match(stuck.unconfirmed?.reason ?? '', /PENDING after 1 hour/);
      assert.equal(stuck.unconfirmed?.step, 'AbandonAccount');
      // Staff may not resubmit an unconfirmed update; they retry once the brokerage decided.
      await assert.rejects(
        handle.executeUpdate(resubmitUpdate, { args: [await harness.store.put(new TextEncoder().encode('x'))] }),
        (error: unknown) => error instanceof WorkflowUpdateFailedError && /not allowed/.test(String(error.cause)),
      );
      await engines.env.sleep('3 hours');
      await handle.executeUpdate(retryUpdate, { args: [{}] });
      const abandoned = await waitForState(handle, 'abandoned');
      assert.equal(harness.sim.control.calls().update, 1, 'a second AbandonAccount was sent');
      assert.equal(harness.sim.control.account(abandoned.accountId!)?.status, 'A');
      await handle.terminate('test finished');
    });
  });

  it('an application XML gone from the store: retried with an alert, blocked past the bound, resubmitted and opened', async function () {
    const harness = await setUp({ stepFailureBounds: { blockAfterMs: 30 * 60_000, anomalyAttempts: 3 } });
    const gone = await harness.store.put(new TextEncoder().encode('<Applications/>'));
    await harness.store.delete(gone);
    const handle = await start(harness, 'happy', { application: gone });
    const alerts = expectLog(/^configuration error \(document-store\)/);
    await harness.worker.runUntil(async () => {
      const blocked = await waitForState(handle, 'blocked');
      alerts.done();
      assert.ok(alerts.seen >= 2, `every attempt alerts in the worker's log (${alerts.seen})`);
      assert.equal(blocked.blocked?.step, 'validate');
      assert.equal(blocked.blocked?.errorType, 'DocumentNotFound');
      assert.match(blocked.blocked?.reason ?? '', /configuration error \(document-store\) for \d+ min/);
      assert.equal(harness.sim.control.calls().validateXML ?? 0, 0, 'nothing reaches the service without the XML');
      const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      assert.match(currentDetails ?? '', /\*\*Blocked at validate since .*DocumentNotFound/);
      assert.match(currentDetails ?? '', /eca retry .*eca resubmit/s);
      // Staff store the application again and resubmit it: validated, created once, opened.
      const application = await harness.store.put(new TextEncoder().encode(applicationXml(blocked.externalId)));
      const resubmitted = await handle.executeUpdate(resubmitUpdate, { args: [application] });
      assert.equal(resubmitted.blocked, undefined);
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      assert.equal(harness.sim.control.calls().create, 1);
      assert.deepEqual(result.transitions.map((transition) => transition.state).slice(0, 4), [
        'validating',
        'blocked',
        'validating',
        'creating',
      ]);
      await keepFixture('blocked-resubmitted', handle);
    });
  });

  it('a create answered with a 4xx is in doubt (the spec shows no HTTP status): unconfirmed, then resubmitted once', async function () {
    let refusing = true;
    const harness = await setUp({
      fetch: async (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (refusing && url.endsWith('/ws/eca/create')) return new Response('{"error":"forbidden"}', { status: 403 });
        return fetch(input, init);
      },
    });
    const handle = await start(harness, 'happy', { settings: { lostAnswerWindow: '10 minutes' } });
    await harness.worker.runUntil(async () => {
      const stopped = await waitForState(handle, 'unconfirmed');
      assert.equal(stopped.unconfirmed?.step, 'create');
      assert.match(stopped.unconfirmed?.reason ?? '', /may have been processed \(create: HTTP 403\)/);
      assert.equal(stopped.inDoubt?.step, 'create');
      // A retry only looks again: still in doubt, nothing is sent.
      await handle.executeUpdate(retryUpdate, { args: [{}] });
      await waitForState(handle, 'unconfirmed');
      // The brokerage says it never arrived: the staff resubmit, and one create goes out.
      refusing = false;
      const xml = await harness.store.put(new TextEncoder().encode(applicationXml(stopped.externalId)));
      await handle.executeUpdate(resubmitUpdate, { args: [xml] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      assert.equal(harness.sim.control.calls().create, 1, 'one create reached the service');
    });
  });

  it('continues as new in the middle of a long wait and carries its state', async function () {
    const harness = await setUp();
    const handle = await start(harness, 'portal-task', {
      settings: { continueAsNewAfterEvents: 40, safetyPollInterval: '5 minutes' },
    });
    await harness.worker.runUntil(async () => {
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const view = await handle.query(stateQuery);
      assert.ok(view.runs >= 1, `expected at least one continue-as-new, got ${view.runs}`);
      assert.equal(result.transitions[0]?.state, 'validating', 'transitions of earlier runs were carried');
      // The runs number their events as one application: no gap, no repeat, one id each.
      const events = harness.events.all;
      assert.deepEqual(
        events.map((event) => event.seq),
        events.map((_, i) => i + 1),
      );
      assert.equal(new Set(events.map((event) => event.id)).size, events.length);
      await keepFixture('continued-as-new', handle);
    });
  });

  it('events: while the event log is away its writes are retried and the application runs on; a cancel ends them', async function () {
    // An applicant's application: the run's log watch checks that the lines of the failed writes hold none of it.
    const person = applicant('events', randomBytes(4).toString('hex'));
    const attempts = expectLog(/^Activity failed$/);
    const unwritten = expectLog(/^events not written$/);
    // The steps go on without their events, which the workflow then writes alone (activities/event-riders.ts).
    const unridden = expectLog(/^(created )?events? not written with the step/);
    // The cancel ends the deadlines' watch too, silently: it is not an error.
    const unwatched = expectLog(/^deadlines not watched$/);
    const dir = await mkdtemp(join(tmpdir(), 'eca-events-away-'));
    // The engine's event log on a database that has gone away: every write fails.
    const database = await openSeededDatabase(dir);
    await database.close();
    const eventLog = new EventLog(database);
    let appends = 0;
    try {
      const harness = await setUp({
        events: {
          append: (events) => {
            appends++;
            return eventLog.append(events);
          },
          find: (application, seq) => eventLog.find(application, seq),
        },
      });
      const handle = await startApplication(engines.env, harness, 'happy', { xml: (id) => personalXml(id, person) });
      await harness.worker.runUntil(async () => {
        for (let i = 0; i < 100 && appends < 2; i++) await engines.env.sleep('1 minute');
        assert.ok(appends >= 2, `${appends} write(s)`);
        assert.equal((await handle.describe()).status.name, 'RUNNING');
        assert.notEqual((await handle.query(stateQuery)).lifecycleState, 'validating', 'the lifecycle went on');
        await handle.cancel();
        await assert.rejects(
          handle.result(),
          (error) => error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure,
        );
        assert.equal((await handle.describe()).status.name, 'CANCELLED');
        // Its writes are not tried again (they are retried at least every minute while it runs).
        const written = appends;
        await engines.env.sleep('5 minutes');
        assert.equal(appends, written);
        assert.equal(unwatched.seen, 0, 'a cancellation logged as an error');
      });
    } finally {
      attempts.done();
      unwritten.done();
      unridden.done();
      unwatched.done();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("deadlines: a firm's policy set while applications wait applies to them; escalation abandons with the deadline as reason", async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-deadlines-'));
    const database = await openSeededDatabase(dir);
    const escalations = expectLog(/^deadline passed: escalated$/);
    try {
      const harness = await setUp({ database });
      const handle = await start(harness, 'docs-required', { settings: { safetyPollInterval: '1 day' } });
      await harness.worker.runUntil(async () => {
        await waitForState(handle, 'needsDocuments');
        // Set after the application started waiting (under the defaults): read again within a day.
        await new DeadlinePolicies(database).set(harness.sim.csid, {
          needsDocuments: { deadline: '2d', reminders: ['12h'], escalation: 'abandon' },
        });
        await engines.env.sleep('3 days');
        const abandoned = await waitForState(handle, 'abandoned');
        assert.match(abandoned.abandonReason ?? '', /^deadline passed: needsDocuments for longer than 2d$/);
        await keepFixture('deadline-escalated', handle);
        await handle.terminate('test done');
      });
      const types = harness.events.all.map((event) => event.type);
      const from = types.indexOf('application.needs_documents');
      // The policy was read again at the next daily refresh, past its reminder: told then, the deadline a day later.
      assert.deepEqual(types.slice(from), [
        'application.needs_documents',
        'application.reminder',
        'application.overdue',
        'application.escalated',
        'application.abandoning',
        'application.abandoned',
      ]);
      assert.ok(!types.includes('application.staff_action'), 'no staff acted');
      const escalated = harness.events.all.find((event) => event.type === 'application.escalated');
      assert.equal(escalated?.data.deadline?.escalation, 'abandon');
      assert.equal(harness.sim.control.account(harness.events.all.at(-1)!.accountId!)?.status, 'A');
      assert.equal(escalations.seen, 1);
    } finally {
      escalations.done();
      await database.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

import assert from 'node:assert/strict';
import { CancelledFailure, WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import {
  abandonUpdate,
  provideDocumentsUpdate,
  resetUpdate,
  resubmitUpdate,
  retryUpdate,
  stateQuery,
} from '../../workflows/application/messages.js';
import { applicationXml, startApplication } from '../support/engine.js';
import { expectLog } from '../support/hooks.js';
import { DeadlinePolicies } from '../../runtime/deadline-policies.js';
import { EventLog } from '../../runtime/events.js';
import { applicant, personalXml } from '../support/history-privacy.js';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSeededDatabase } from '../support/database-template.js';
import { applicationWorkflowTests } from '../support/application-workflow.js';

describe('accountApplication workflow: answers lost, doubtful or refused, long waits (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const { engines, setUp, start, waitForState, keepFixture, documentFor } = applicationWorkflowTests();

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

/**
 * The firm's status sweep, end to end on the dev server (visibility queries), with the simulator over
 * HTTP: brokerage calls per slot are the simulator's own counts; wake-ups are read from each
 * application's history (`accountObserved` signals), not from the engine's view of itself. On the engine's
 * embedded database: the sweep compares against its snapshot there, and lists the waiting applications
 * again when the snapshot is lost or its database fails. A slot that fails runs on the time-skipping server,
 * its brokerage read replaced.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { startApplication } from '../../client/applications.js';
import type { ApplicationHandle } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import { ensureStatusSweep, sweepState } from '../../client/sweep.js';
import { pollNowSignal, stateQuery } from '../../workflows/application/messages.js';
import { sweepWorkflowId } from '../../domain/workflow-ids.js';
import { EcaHttpError } from '../../eca/index.js';
import { firmStatusSweep } from '../../workflows/index.js';
import { sweepStateQuery } from '../../workflows/sweep/messages.js';
import type { SweepReport, SweepView } from '../../workflows/sweep/messages.js';
import { applicationXml, startEngine, timeSkippingEngine } from '../support/engine.js';
import { expectLog } from '../support/hooks.js';
import { applicant } from '../support/history-privacy.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { openSeededDatabase } from '../support/database-template.js';
import type { Database } from '../../runtime/database/index.js';

const SLOT_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('status sweep (dev server, worker, simulator)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let ctx: EngineContext;
  let database: Database;
  let dir: string | undefined;

  before(async function () {
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-sweep-'));
    database = await openSeededDatabase(join(dir, 'database'));
    engine = await startEngine(env, { simulator: { timeScale: 20_000 }, database });
    ctx = {
      client: env.client,
      store: engine.store,
      csid: engine.sim.csid,
      taskQueue: engine.taskQueue,
      sweepInterval: SLOT_MS,
      settings: {
        pollIntervals: { tracking: '1 second' },
        requestPollInterval: '1 second',
      },
    };
  });

  after(async function () {
    await engine?.close();
    await database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function snapshotRows(): Promise<string[]> {
    const rows = await database.query<{ account_id: string }>('SELECT account_id FROM sweep_accounts');
    return rows.map((row) => row.account_id);
  }

  async function signals(handle: ApplicationHandle, name: string): Promise<number> {
    const events = (await handle.fetchHistory()).events ?? [];
    return events.filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === name).length;
  }

  async function reads(handle: ApplicationHandle): Promise<number> {
    const events = (await handle.fetchHistory()).events ?? [];
    return events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'readAccount')
      .length;
  }

  async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
    const giveUpAt = Date.now() + ms;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      assert.ok(Date.now() < giveUpAt, `timed out waiting for ${what}`);
      await sleep(200);
    }
  }

  async function stateOf(handle: ApplicationHandle): Promise<string> {
    return (await handle.query(stateQuery)).lifecycleState;
  }

  it('reads the firm with three calls a slot, wakes only the changed applications, misses nothing across a stopped sweep', async function () {
    const run = randomUUID().slice(0, 6);
    const count = 20;
    await engine.worker.runUntil(async () => {
      const handles: ApplicationHandle[] = [];
      for (let i = 0; i < count; i++) {
        const started = await startApplication(ctx, { applicationXml: applicationXml(`stalled-${run}-${i}`) });
        handles.push(started.handle);
      }
      // startApplication started the firm's sweep on the engine's task queue.
      await until('every application waiting for the client', async () =>
        (await Promise.all(handles.map(stateOf))).every((state) => state === 'awaitingClient') ? true : undefined,
      );
      const accountIds = await Promise.all(handles.map(async (h) => (await h.query(stateQuery)).accountId!));

      // Quiet slots: nothing changes at the brokerage, so the sweep's three reads are the only calls.
      const woken = await Promise.all(handles.map((h) => signals(h, 'accountObserved')));
      assert.ok(
        woken.every((n) => n >= 1),
        'each application learnt of its account from the sweep',
      );
      engine.sim.control.resetCalls();
      const slots = 4;
      await sleep(slots * SLOT_MS);
      const calls = engine.sim.control.calls();
      assert.ok(
        (calls.getAccountStatus ?? 0) <= 2 * (slots + 1),
        `getAccountStatus ${calls.getAccountStatus} in ${slots} slots`,
      );
      assert.ok(
        (calls.getPendingTasks ?? 0) <= slots + 1,
        `getPendingTasks ${calls.getPendingTasks} in ${slots} slots`,
      );
      assert.ok((calls.getPendingTasks ?? 0) >= slots - 1, 'the sweep ran every slot');
      assert.deepEqual(
        await Promise.all(handles.map((h) => signals(h, 'accountObserved'))),
        woken,
        'no application was woken while nothing changed',
      );
      assert.deepEqual(await Promise.all(handles.map(reads)), new Array<number>(count).fill(0), 'no own reads');
      const quiet = (await sweepState(ctx)).last!;
      assert.equal(quiet.listPages, 0, 'a quiet slot compares against the snapshot, listing nothing');
      assert.deepEqual((await snapshotRows()).sort(), [...accountIds].sort(), 'each create registered its account');

      // One account changes: only its application is woken, and it follows the account to Open (which
      // leaves the N/P listing: the sweep reads it by id).
      assert.ok(engine.sim.control.completeTask(accountIds[0]!));
      const first = await handles[0]!.result();
      assert.equal(first.outcome, 'open');
      const after = await Promise.all(handles.slice(1).map((h) => signals(h, 'accountObserved')));
      assert.deepEqual(after, woken.slice(1), 'the unchanged applications were not woken');

      // pollNow still reads at once.
      await handles[2]!.signal(pollNowSignal, {});
      await until('the pollNow read', async () => ((await reads(handles[2]!)) === 1 ? true : undefined), 10_000);

      assert.ok(!(await snapshotRows()).includes(accountIds[0]!), 'an account that left N and P leaves the snapshot');
      // The snapshot is lost: the next slot lists the waiting applications again and compares what each
      // last read itself, so nobody is woken for nothing and the rows are back.
      const before = await Promise.all(handles.slice(1).map((h) => signals(h, 'accountObserved')));
      await database.query('DELETE FROM sweep_accounts; DELETE FROM sweep_firms');
      await until('the snapshot listed again', async () =>
        (await snapshotRows()).length === count - 1 ? true : undefined,
      );
      await sleep(2 * SLOT_MS);
      assert.deepEqual(
        await Promise.all(handles.slice(1).map((h) => signals(h, 'accountObserved'))),
        before,
        'a lost snapshot woke nobody whose account had not changed',
      );

      // The snapshot's database fails: the slots list instead, say so, and still wake a changed account.
      await database.query('ALTER TABLE sweep_accounts RENAME TO sweep_accounts_away');
      try {
        assert.ok(engine.sim.control.completeTask(accountIds[3]!));
        assert.equal((await handles[3]!.result()).outcome, 'open');
        const failed = (await sweepState(ctx)).last!;
        assert.match(failed.snapshotError ?? '', /sweep_accounts/);
        assert.ok(failed.listPages >= 1, 'the slot listed instead');
      } finally {
        await database.query('ALTER TABLE sweep_accounts_away RENAME TO sweep_accounts');
      }

      // The sweep stops; an account changes meanwhile; a restarted sweep (which keeps no state) wakes it.
      await env.client.workflow.getHandle(sweepWorkflowId(ctx.csid)).terminate('test: the sweep stops');
      // A slot's activity in flight when the sweep stopped ends its reads first (it learns of the end at its
      // next heartbeat): the account changes once no status read has come for a whole slot.
      const statusReads = () => engine.sim.control.calls().getAccountStatus ?? 0;
      for (let last = -1, i = 0; statusReads() !== last && i < 10; i++) {
        last = statusReads();
        await sleep(SLOT_MS);
      }
      assert.ok(engine.sim.control.completeTask(accountIds[1]!));
      await sleep(3 * SLOT_MS);
      assert.equal(await stateOf(handles[1]!), 'awaitingClient', 'nothing reads the account while the sweep is down');
      await ensureStatusSweep(ctx, { force: true });
      const second = await handles[1]!.result();
      assert.equal(second.outcome, 'open');
      const view = await sweepState(ctx);
      assert.ok(view.last && view.last.waiting >= count - 2, `the sweep lists the waiting applications`);

      // Those still running (the snapshot run opened one more).
      for (const handle of handles.slice(2)) await handle.terminate('test over').catch(() => undefined);

      // Workers moved to another task queue: the sweep follows the queue applications start on.
      const sweep = env.client.workflow.getHandle(sweepWorkflowId(ctx.csid));
      assert.equal((await sweep.describe()).taskQueue, engine.taskQueue);
      await ensureStatusSweep({ ...ctx, taskQueue: `${engine.taskQueue}-moved` });
      assert.equal((await sweep.describe()).taskQueue, `${engine.taskQueue}-moved`);
      await sweep.terminate('test over');
    });
  });

  it('an application that has read nothing is not woken while its account shows nothing to act on; a change wakes it', async function () {
    const run = randomUUID().slice(0, 6);
    // An engine of its own (a worker runs once): real time at its brokerage, where a happy account stays new
    // (N, no task) until the clock is moved.
    const own = await startEngine(env, { simulator: { timeScale: 1 }, database });
    const ownCtx: EngineContext = { ...ctx, store: own.store, csid: own.sim.csid, taskQueue: own.taskQueue };
    try {
      await own.worker.runUntil(async () => {
        const { handle } = await startApplication(ownCtx, { applicationXml: applicationXml(`happy-${run}`) });
        const created = await until('the account created', async () => {
          const view = await handle.query(stateQuery);
          return view.accountId !== undefined && view.lifecycleState === 'tracking' ? view : undefined;
        });
        assert.equal(own.sim.control.account(created.accountId!)?.status, 'N');
        // Slots read the new account; the application would take it without a change: nobody is woken.
        const slotsBefore = (await sweepState(ownCtx)).slots;
        await until('three slots', async () =>
          (await sweepState(ownCtx)).slots >= slotsBefore + 3 ? true : undefined,
        );
        assert.equal(await signals(handle, 'accountObserved'), 0, 'woken for a read that changes nothing');
        assert.equal(await reads(handle), 0, 'no own reads');
        const waiting = await handle.query(stateQuery);
        assert.equal(waiting.lifecycleState, 'tracking');
        assert.equal(waiting.status, undefined, 'it has read nothing of its account');

        // The account opens (the approval queue is processed by the next business day): one wake-up.
        own.sim.control.advanceClock({ days: 4 });
        assert.equal((await handle.result()).outcome, 'open');
        assert.equal(await signals(handle, 'accountObserved'), 1);
        assert.equal(await reads(handle), 0, 'no own reads');
        await env.client.workflow.getHandle(sweepWorkflowId(ownCtx.csid)).terminate('test over');
      });
    } finally {
      await own.close();
    }
  });
});

describe('status sweep: a slot that fails (time-skipping server)', function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();

  it('a slot whose brokerage read keeps failing: tried three times, its error shown, and the next slot runs as usual', async function () {
    // The brokerage's text names an applicant, as its errors may: the run's log watch checks the sweep's lines.
    const person = applicant('sweep', randomBytes(4).toString('hex'));
    const failedSlot = expectLog(/^status sweep failed; the next slot runs as usual$/);
    const attempts = expectLog(/^Activity failed$/);
    const report: SweepReport = {
      observedAt: 0,
      pending: 0,
      waiting: 0,
      left: 0,
      changed: 0,
      woken: 0,
      gone: 0,
      errors: 0,
      brokerageCalls: 1,
      listPages: 0,
      durationMs: 1,
    };
    let calls = 0;
    try {
      const harness = await engines.setUp({
        replace: {
          // The first slot's three attempts fail; the next slot's read succeeds.
          sweepFirm: () =>
            ++calls <= 3
              ? Promise.reject(
                  new EcaHttpError(
                    'getAccountStatus',
                    500,
                    `{"error":"account of ${person.first} ${person.last} (${person.email}) is under review"}`,
                  ),
                )
              : Promise.resolve({ ...report, observedAt: Date.now() }),
        },
      });
      const handle = await engines.env.client.workflow.start(firmStatusSweep, {
        taskQueue: harness.taskQueue,
        workflowId: sweepWorkflowId(harness.sim.csid),
        args: [{ csid: harness.sim.csid, interval: '5 minutes' }],
      });
      /** Lets workflow time pass a minute at a time until the sweep has run `slots` slots. */
      const afterSlots = async (slots: number): Promise<SweepView> => {
        for (let i = 0; i < 30; i++) {
          const view = await handle.query(sweepStateQuery);
          if (view.slots >= slots) return view;
          await engines.env.sleep('1 minute');
        }
        assert.fail(`the sweep did not run ${slots} slot(s)`);
      };
      await harness.worker.runUntil(async () => {
        const failed = await afterSlots(1);
        assert.equal(calls, 3, 'the slot failed after its three attempts');
        assert.match(failed.lastError ?? '', /^getAccountStatus: HTTP 500/);
        assert.equal(failed.last, undefined);
        assert.equal((await handle.describe()).status.name, 'RUNNING');
        const next = await afterSlots(2);
        assert.equal(calls, 4, 'the next slot read once, at its time');
        assert.equal(next.lastError, undefined);
        assert.equal(next.last?.brokerageCalls, 1);
        await handle.terminate('test done');
      });
    } finally {
      failedSlot.done();
      attempts.done();
    }
  });
});

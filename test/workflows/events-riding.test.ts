/**
 * What an application costs Temporal, and how its events reach the log (workflows/application/events.ts):
 * its events ride with the step that follows them, a create writes its own `created` event, and the last
 * activity writes the last events and starts the document retention. Events made while a step runs are
 * written alone, at once, in order.
 */
import assert from 'node:assert/strict';
import type { WorkflowHandle } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import type { accountApplication } from '../../workflows/index.js';
import { abandonUpdate, accountObservedSignal, stateQuery } from '../../workflows/application/messages.js';
import { documentRetentionWorkflowId } from '../../domain/workflow-ids.js';
import { stubbedEngine } from '../support/brokerage-stub.js';

type Handle = WorkflowHandle<typeof accountApplication>;

/** The activities a history scheduled, in order, and how many workflow tasks it completed. */
async function costOf(
  handle: Handle,
): Promise<{ activities: string[]; workflowTasks: number; children: number; types: string }> {
  const events: temporal.api.history.v1.IHistoryEvent[] = (await handle.fetchHistory()).events ?? [];
  return {
    activities: events.flatMap((event) => event.activityTaskScheduledEventAttributes?.activityType?.name ?? []),
    workflowTasks: events.filter((event) => event.workflowTaskCompletedEventAttributes).length,
    children: events.filter((event) => event.startChildWorkflowExecutionInitiatedEventAttributes).length,
    // The whole history's event types, to show where a count went wrong.
    types: events.map((event) => String(event.eventType)).join(' '),
  };
}

async function until(what: string, done: () => boolean, look?: () => Promise<void>): Promise<void> {
  for (let i = 0; i < 200 && !done(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    await look?.();
  }
  assert.ok(done(), what);
}

describe('events riding with the steps (time-skipping server, stubbed activities)', function () {
  this.timeout(60_000);
  const engines = stubbedEngine();

  it('a happy application costs 5 workflow tasks and 3 activities, and writes each event once, in order', async function () {
    // The retention's wait is skipped with the rest: it finds nothing to delete.
    const engine = await engines.setUp({
      replace: () => ({ releaseDocuments: () => Promise.resolve({ deleted: 0, kept: 0 }) }),
    });
    const handle = await engine.start('happy', {
      settings: { safetyPollInterval: '6 hours', documentRetention: '30 days' },
    });
    await engine.worker.runUntil(async () => {
      // No query, no skipped time: what the application wrote says it waits (a query may cost a task here).
      const created = () => engine.brokerage.events.all.find((event) => event.type === 'application.created');
      await until('the account created', () => created() !== undefined);
      const waiting = created()!;
      // The status sweep's wake-up, as its activity sends it.
      await handle.signal(accountObservedSignal, {
        account: { status: 'O', tasks: [] },
        accountId: waiting.accountId,
        observedAt: Date.now(),
      });
      assert.equal((await handle.result()).outcome, 'open');
      const { externalId } = waiting;
      const retention = engine.env.client.workflow.getHandle(documentRetentionWorkflowId(waiting.csid, externalId));
      assert.equal((await retention.describe()).type, 'documentRetention', 'the last activity started the retention');

      const events = engine.brokerage.events.of(externalId);
      assert.deepEqual(
        events.map((event) => event.type),
        ['application.validating', 'application.validated', 'application.created', 'application.open'],
      );
      assert.deepEqual(
        events.map((event) => event.seq),
        [1, 2, 3, 4],
      );
      assert.equal(events[2]?.accountId, waiting.accountId, 'the create wrote its event with the account');
      assert.equal(engine.brokerage.events.repeated, 0, 'no event written twice');
    });
    const { types, ...cost } = await costOf(handle);
    assert.deepEqual(
      cost,
      {
        activities: ['validateApplication', 'createAccount', 'finishApplication'],
        // The start, validate's and create's completions, the sweep's wake-up, the last activity's completion.
        workflowTasks: 5,
        children: 0,
      },
      types,
    );
  });

  it('events made while a step runs are written alone at once, in order, before the step ends', async function () {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let validating = false;
    const engine = await engines.setUp({
      replace: (stub) => ({
        // validate writes what it carries, then takes its time at the brokerage.
        validateApplication: async (input) => {
          const answer = await stub.validateApplication(input);
          validating = true;
          await gate;
          return answer;
        },
      }),
    });
    const handle = await engine.start('happy');
    await engine.worker.runUntil(async () => {
      await until('validate runs', () => validating);
      const { externalId } = await handle.query(stateQuery);
      const view = await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'client withdrew' }] });
      assert.equal(view.lifecycleState, 'closedAsAbandoned');
      const types = () => engine.brokerage.events.typesOf(externalId);
      let written = false;
      await until('the abandon told while validate runs', () => types().length === 3);
      assert.deepEqual(types(), [
        'application.validating',
        'application.staff_action',
        'application.closed_as_abandoned',
      ]);
      // The write alone is in history before validate ends: nothing is left for a last activity to carry.
      await until(
        'the events written alone',
        () => written,
        async () => {
          const history = (await handle.fetchHistory()).events ?? [];
          written = history.some((event) => event.activityTaskCompletedEventAttributes);
        },
      );
      release();
      assert.equal((await handle.result()).outcome, 'abandoned');
      assert.deepEqual(
        engine.brokerage.events.of(externalId).map((event) => event.seq),
        [1, 2, 3],
      );
    });
    const { activities } = await costOf(handle);
    // The write alone carried `validating` again (validate had it): written once, the repeat left.
    assert.deepEqual(activities, ['validateApplication', 'recordEvents']);
    assert.equal(engine.brokerage.events.repeated, 1);
  });
});

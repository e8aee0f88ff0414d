/**
 * `npm run test:faults`, the processes: workers killed, the dev server and the simulator restarted, and a
 * client without the codec keys, while many applications are in flight. The brokerage's faults are in
 * brokerage.test.ts; both run at once, each on a world of its own.
 */
import assert from 'node:assert/strict';
import { getState } from '../../client/applications.js';
import { EXPECTED, runFleet } from './world.js';
import type { Tracked } from './world.js';
import { APPLICATIONS, describeFaults } from './suite.js';
import { checkApplication, EventsWorld } from './events.js';

/** The events case's fleet (the end-to-end figure: 100 applications across the scenarios). */
const EVENT_APPLICATIONS = Number(process.env.FAULTS_EVENT_APPLICATIONS ?? 100);

describeFaults('fault injection, the processes (real processes: dev server, simulator, workers)', (suite) => {
  it('a client without the codec tells every application in flight to abandon: refused, none disturbed', async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    // What a client without the codec can send: a plaintext input, no input at all (nothing for the strict
    // codec to refuse), or a plaintext input shaped like the SDK's patch marker (which the codec lets through).
    const inputs: unknown[][] = [[{ reason: 'sent in plaintext' }], [], [{ id: 'status-sweep', deprecated: false }]];
    let updates = 0;
    let refused = 0;
    // AbandonAccount requests the simulator recorded (its own records, kept across cases).
    const abandons = async () =>
      (await suite.world.records()).accounts.reduce(
        (sum, account) => sum + (account.requestsPerFunction.AbandonAccount ?? 0),
        0,
      );
    const abandonsBefore = await abandons();
    await runFleet(suite.world, {
      name: 'plaintext client',
      listingLag: false,
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'plaintext, empty and marker-shaped abandon signals + updates',
      disrupt: async (w) => {
        const plain = w.plaintextClient();
        const query = `TaskQueue = '${taskQueue}' AND WorkflowType = 'accountApplication' AND ExecutionStatus = 'Running'`;
        for await (const execution of plain.workflow.list({ query })) {
          const handle = plain.workflow.getHandle(execution.workflowId);
          for (const args of inputs) {
            await handle.signal('abandon', ...args).catch(() => undefined);
            updates++;
            // Refused to its sender; the reason is encrypted for codec holders, so any error counts.
            await handle.executeUpdate('abandon', { args } as never).then(
              () => undefined,
              () => refused++,
            );
          }
        }
        return updates * 2;
      },
    });
    // Every application ended in its scenario's state (runFleet), and the brokerage saw no abandon at all.
    assert.ok(updates > 0, 'no application was running when the plaintext client sent its messages');
    assert.equal(refused, updates, 'a plaintext, empty or marker-shaped update was accepted');
    assert.equal(await abandons(), abandonsBefore, 'AbandonAccount reached the brokerage');
  });

  it('a worker is killed (SIGKILL) mid-run and another one started', async function () {
    const taskQueue = suite.nextQueue();
    const first = await suite.world.worker('worker 1', taskQueue);
    await runFleet(suite.world, {
      name: 'worker SIGKILL, new worker',
      taskQueue,
      applications: APPLICATIONS,
      disrupt: async (w) => {
        await w.killWorker(first);
        await w.worker('worker 2', taskQueue);
        return 1;
      },
    });
  });

  it('two workers share the queue and one dies', async function () {
    const taskQueue = suite.nextQueue();
    const [doomed] = await Promise.all([
      suite.world.worker('worker A', taskQueue),
      suite.world.worker('worker B', taskQueue),
    ]);
    await runFleet(suite.world, {
      name: 'two workers, one SIGKILLed',
      taskQueue,
      applications: APPLICATIONS,
      disrupt: async (w) => {
        await w.killWorker(doomed);
        return 1;
      },
    });
  });

  it('the Temporal dev server is stopped and restarted on the same database file', async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    await runFleet(suite.world, {
      name: 'dev server restart',
      taskQueue,
      applications: APPLICATIONS,
      disrupt: async (w) => {
        w.checkGone(await w.server.restart('SIGTERM'), 'dev server restart');
        return 1;
      },
    });
  });

  it('the simulator restarts from its data dir', async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    await runFleet(suite.world, {
      name: 'simulator restart',
      taskQueue,
      applications: APPLICATIONS,
      // A create sent while the simulator is down is refused before it is processed, and sent again.
      createCallsMayFail: true,
      disrupt: async (w) => {
        w.checkGone(await w.sim.restart(), 'simulator restart');
        return 1;
      },
    });
  });

  it('events: the webhook receiver, a worker and the API are killed or restarted mid-run; none lost, none out of order', async function () {
    const taskQueue = suite.nextQueue();
    const first = await suite.world.worker('worker 1', taskQueue);
    const events = new EventsWorld(suite.world, taskQueue);
    await events.start();
    let fleet: readonly Tracked[] = [];
    try {
      const report = await runFleet(suite.world, {
        name: 'events: receiver, worker, API down',
        taskQueue,
        applications: EVENT_APPLICATIONS,
        faultKinds: 'receiver SIGKILL, worker SIGKILL, API restart',
        disrupt: async (w, tracked) => {
          fleet = tracked;
          const at = () => new Date().toISOString();
          console.log(`      ${at()} receiver SIGKILL`);
          await events.killReceiver();
          // Deliveries and event writes are under way: the worker dies in the middle of them.
          console.log(`      ${at()} receiver back; worker 1 SIGKILL`);
          await w.killWorker(first);
          await w.worker('worker 2', taskQueue);
          console.log(`      ${at()} worker 2 up; API restart`);
          await events.restartApi();
          console.log(`      ${at()} API back`);
          return 3;
        },
      });
      await events.settle();
      const deliveries = await events.deliveries();
      const ctx = suite.world.context(taskQueue);
      let received = 0;
      let repeats = 0;
      let streamed = 0;
      for (const app of fleet) {
        const view = await getState(ctx, app.externalId);
        const states = view.transitions.map((transition) => transition.state);
        const final = EXPECTED[app.scenario];
        const mine = deliveries
          .filter((delivery) => delivery.event.externalId === app.externalId)
          .map((delivery) => ({ id: delivery.webhookId, event: delivery.event }));
        let hooks: ReturnType<typeof checkApplication>;
        try {
          hooks = checkApplication('webhooks', app.externalId, mine, states, final);
        } catch (error) {
          throw new Error(`${(error as Error).message}\n${await events.diagnose(app.externalId)}`);
        }
        received += hooks.unique;
        repeats += hooks.repeats;
        const sse = events.sse
          .filter((followed) => followed.event.externalId === app.externalId)
          .map((followed) => ({ id: followed.event.id, event: followed.event }));
        streamed += checkApplication('SSE', app.externalId, sse, states, final).unique;
      }
      assert.equal(streamed, received);
      assert.ok(events.sseReconnects >= 1, 'the SSE reader never saw the API go');
      console.log(
        `      events: ${received} received by the webhook receiver (${repeats} repeats, same webhook-id), ` +
          `${streamed} by the SSE reader (${events.sseReconnects} reconnections), ${report.applications} applications`,
      );
    } finally {
      await events.close();
    }
  });
});

/**
 * `npm run test:faults`, a client without the codec keys telling every application in flight to abandon:
 * refused, none disturbed, and no AbandonAccount reaches the brokerage (its own records).
 */
import assert from 'node:assert/strict';
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults } from './suite.js';

describeFaults(
  'fault injection, a client without the codec (real processes: dev server, simulator, workers)',
  (suite) => {
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
  },
);

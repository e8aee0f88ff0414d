/**
 * `npm run test:faults`, the brokerage misbehaving: 5xx, timeouts and malformed JSON, a document gone from
 * the store, while many applications are in flight. Answers lost are in lost-answers.test.ts, key faults in keys.test.ts,
 * the processes' faults in processes.test.ts and servers.test.ts; the files run at once, each on a world
 * of its own.
 */
import assert from 'node:assert/strict';
import { getState, resubmit } from '../../client/applications.js';
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults, simulatorFaults } from './suite.js';

describeFaults('fault injection, the brokerage (real processes: dev server, simulator, workers)', (suite) => {
  it('simulator answers 5xx, times out, drops connections and sends malformed JSON on every operation', async function () {
    const taskQueue = suite.nextQueue();
    await suite.world.worker('worker', taskQueue);
    await runFleet(suite.world, {
      name: 'simulator 5xx/timeout/drop/malformed',
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'every operation 5xx, timeout, drop, malformed',
      createCallsMayFail: true,
      // A write whose failure leaves its outcome unknown is looked up, never sent again, for the window
      // (2 minutes); then the staff ask the brokerage: slower, by design (about 8 minutes here).
      timeLimitMs: 12 * 60_000,
      before: (w) =>
        simulatorFaults(
          w,
          (['http500', 'http503', 'drop', 'malformed', 'timeout'] as const).map((kind) => ({
            operation: '*',
            kind,
            rate: 0.04,
            count: 100_000,
            ...(kind === 'timeout' ? { ms: 6000 } : {}),
          })),
        ),
    });
  });

  it('application XML gone from the document store: blocked past the bound, resubmitted by staff, opened', async function () {
    const taskQueue = suite.nextQueue();
    let removed = 0;
    const removedIds = new Set<string>();
    const unexpected: string[] = [];
    const report = await runFleet(suite.world, {
      name: 'missing document, resubmitted',
      listingLag: false,
      taskQueue,
      applications: APPLICATIONS,
      faultKinds: 'application XML deleted from the store',
      // Once every application is started, before any worker runs: a quarter of the XMLs are removed.
      disruptWhen: () => true,
      disrupt: async (w, fleet) => {
        for (const app of fleet.filter((_, index) => index % 4 === 1)) {
          await w.store.delete(await w.store.put(new TextEncoder().encode(app.xml)));
          removedIds.add(app.externalId);
          removed++;
        }
        // Configuration errors (a document the store does not have) are retried for 10 s, then blocked.
        await w.worker('worker', taskQueue, { ECA_BLOCK_AFTER_MS: '10000' });
        return removed;
      },
      onBlocked: async (ctx, app) => {
        // Asserted after the run (errors thrown here are taken for a server hiccup and looked at again).
        const state = await getState(ctx, app.externalId);
        if (!removedIds.has(app.externalId) || state.blocked?.errorType !== 'DocumentNotFound') {
          unexpected.push(`${app.externalId}: ${JSON.stringify(state.blocked)}`);
        }
        // The staff send the application again: stored anew, validated, created once.
        await resubmit(ctx, app.externalId, app.xml);
      },
    });
    assert.ok(removed > 0);
    assert.deepEqual(unexpected, [], 'blocked otherwise than by the removed XML');
    assert.equal(report.unblocked, removed, 'every application whose XML was removed was blocked, then resubmitted');
  });
});

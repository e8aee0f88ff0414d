/**
 * `npm run test:faults`, the servers: the Temporal dev server and the simulator restarted with many
 * applications in flight. The webhook receiver, a worker and the API killed while events flow are in
 * event-delivery.test.ts; workers killed and a client without the codec keys in processes.test.ts.
 */
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults } from './suite.js';

describeFaults('fault injection, the servers (real processes: dev server, simulator, workers)', (suite) => {
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
});

/**
 * `npm run test:faults`, the processes: workers killed while many applications are in flight. A client
 * without the codec keys is in plaintext-client.test.ts. The servers restarted are in servers.test.ts, the brokerage's faults in
 * brokerage.test.ts and keys.test.ts; the files run at once, each on a world of its own.
 */
import { runFleet } from './world.js';
import { APPLICATIONS, describeFaults } from './suite.js';

describeFaults('fault injection, the processes (real processes: dev server, simulator, workers)', (suite) => {
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
});

/**
 * `npm run test:faults`: many applications in flight while the brokerage misbehaves and processes
 * die. Every case ends with each application in its expected final state, exactly one account per
 * application and no failed workflow (see world.ts). The counts are printed at the end. Every
 * process stopped or killed, mid-case or after it, is checked to be gone with all it had started.
 */
import { assertGone, World, printReports, runFleet } from './world.js';

const APPLICATIONS = Number(process.env.FAULTS_APPLICATIONS ?? 40);

interface FaultRuleView {
  id: number;
  count?: number;
}

/** Adds simulator fault rules; the function returned removes them and says how many fired. */
async function simulatorFaults(
  world: World,
  rules: Array<{ operation: string; kind: string; rate?: number; count: number; ms?: number }>,
): Promise<() => Promise<number>> {
  const added: Array<{ id: number; count: number }> = [];
  for (const rule of rules) {
    const { id } = await world.sim.control<FaultRuleView>('POST', '/faults', rule);
    added.push({ id, count: rule.count });
  }
  return async () => {
    const { faults } = await world.sim.control<{ faults: FaultRuleView[] }>('GET', '/faults');
    let fired = 0;
    for (const rule of added) {
      const left = faults.find((candidate) => candidate.id === rule.id)?.count ?? 0;
      fired += rule.count - left;
      await world.sim.control('DELETE', `/faults/${rule.id}`).catch(() => undefined);
    }
    return fired;
  };
}

describe('fault injection (real processes: dev server, simulator, workers)', function () {
  this.timeout(10 * 60_000);
  let world: World;
  let queue = 0;
  const nextQueue = () => `faults-${process.pid}-${++queue}`;

  before(async function () {
    world = await World.start();
  });

  afterEach(async function () {
    const stopped = (await world?.stopWorkers()) ?? [];
    for (const report of stopped) assertGone(report, `${report.name} stop after the case`);
  });

  after(async function () {
    printReports();
    const stopped = (await world?.close()) ?? [];
    for (const { what, report } of stopped) assertGone(report, what);
  });

  it('simulator answers 5xx, times out, drops connections and sends malformed JSON on every operation', async function () {
    const taskQueue = nextQueue();
    await world.worker('worker', taskQueue);
    await runFleet(world, {
      name: 'simulator 5xx/timeout/drop/malformed',
      taskQueue,
      applications: APPLICATIONS,
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

  it("create's response is lost after the account was made", async function () {
    const taskQueue = nextQueue();
    await world.worker('worker', taskQueue);
    const lost = Math.ceil(APPLICATIONS / 2);
    await runFleet(world, {
      name: 'create response lost',
      taskQueue,
      applications: APPLICATIONS,
      before: (w) => simulatorFaults(w, [{ operation: 'create', kind: 'lost-response', count: lost }]),
    });
  });

  it('a worker is killed (SIGKILL) mid-run and another one started', async function () {
    const taskQueue = nextQueue();
    const first = await world.worker('worker 1', taskQueue);
    await runFleet(world, {
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
    const taskQueue = nextQueue();
    const [doomed] = await Promise.all([world.worker('worker A', taskQueue), world.worker('worker B', taskQueue)]);
    await runFleet(world, {
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
    const taskQueue = nextQueue();
    await world.worker('worker', taskQueue);
    await runFleet(world, {
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
    const taskQueue = nextQueue();
    await world.worker('worker', taskQueue);
    await runFleet(world, {
      name: 'simulator restart',
      taskQueue,
      applications: APPLICATIONS,
      disrupt: async (w) => {
        w.checkGone(await w.sim.restart(), 'simulator restart');
        return 1;
      },
    });
  });
});

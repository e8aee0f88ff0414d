/**
 * The fault suite's frame, shared by its files (mocha runs them in parallel, `test/faults.mocharc.cjs`):
 * each file has a world of its own (dev server, simulator), its workers are stopped after each case and
 * checked gone, and its counts are printed when it ends. Every case ends with each application in its
 * expected final state, exactly one account per application and no failed workflow (see world.ts).
 */
import { assertGone, World, printReports } from './world.js';

export const APPLICATIONS = Number(process.env.FAULTS_APPLICATIONS ?? 20);

/** What a case reaches: the file's world (once started) and a task queue of its own. */
export interface FaultSuite {
  readonly world: World;
  nextQueue(): string;
}

/** A describe block with its own world; the cases are declared by `cases`. */
export function describeFaults(title: string, cases: (suite: FaultSuite) => void): void {
  describe(title, function () {
    // Above the longest case's own time limit (12 minutes), so that a slow case fails with its diagnosis.
    this.timeout(14 * 60_000);
    let world: World | undefined;
    let queue = 0;
    const suite: FaultSuite = {
      get world() {
        if (!world) throw new Error('the fault world is not started');
        return world;
      },
      nextQueue: () => `faults-${process.pid}-${++queue}`,
    };

    before(async function () {
      world = await World.start();
    });

    afterEach(async function () {
      await world?.clearFaults();
      const stopped = (await world?.stopWorkers()) ?? [];
      for (const report of stopped) assertGone(report, `${report.name} stop after the case`);
    });

    after(async function () {
      printReports();
      const stopped = (await world?.close()) ?? [];
      for (const { what, report } of stopped) assertGone(report, what);
    });

    cases(suite);
  });
}

interface FaultRuleView {
  id: number;
  count?: number;
}

/** Adds simulator fault rules; the function returned removes them and says how many fired. */
export async function simulatorFaults(
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

/**
 * scripts/processes.ts: a stop or a kill reaches the process that does the work and everything it
 * started, and the stop's report says so; processes left running when the starter goes are killed.
 * The checks read /proc (Linux); elsewhere the cases that need it are skipped.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { ProcessInfo } from '../../../scripts/processes.js';
import {
  describeSurvivors,
  groupMembers,
  PROC_AVAILABLE,
  processTree,
  ROOT,
  SimulatorProcess,
  start,
  startTypeScript,
  stillAlive,
} from '../../../scripts/processes.js';

const PARENT = 'test/e2e/processes/fixtures/parent.ts';
const STARTER = 'test/e2e/processes/fixtures/starter.ts';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The process as /proc shows it now (throws when it is not there). */
function info(pid: number): ProcessInfo {
  const found = processTree(pid)[0];
  assert.ok(found, `process ${pid} is not running`);
  return found;
}

/** Waits (bounded) until none of the processes is alive; answers those still alive. */
async function gone(processes: ProcessInfo[], ms = 5_000): Promise<ProcessInfo[]> {
  const giveUpAt = Date.now() + ms;
  let alive = stillAlive(processes);
  while (alive.length > 0 && Date.now() < giveUpAt) {
    await sleep(50);
    alive = stillAlive(processes);
  }
  return alive;
}

/** `kill(-pgid, 0)` fails with ESRCH: no process (not even a zombie) is left in the group. */
function groupIsEmpty(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

async function groupEmpties(pgid: number, ms = 5_000): Promise<boolean> {
  for (const giveUpAt = Date.now() + ms; Date.now() < giveUpAt; await sleep(50)) if (groupIsEmpty(pgid)) return true;
  return groupIsEmpty(pgid);
}

describe('process faults reach the whole process (scripts/processes.ts)', function () {
  this.timeout(90_000);

  before(function () {
    if (!PROC_AVAILABLE) this.skip();
  });

  for (const signal of ['SIGKILL', 'SIGTERM'] as const) {
    it(`${signal}: the process and the process it started are gone, and the report says so`, async function () {
      const child = startTypeScript('parent', PARENT);
      const grandchildPid = Number((await child.waitFor(/grandchild (\d+)/, 30_000))[1]);
      const pid = child.pid!;
      // The process started runs the code itself: node with tsx's loader, no wrapper in between.
      assert.match(info(pid).command, new RegExp(`^${process.execPath} --import tsx ${PARENT}`));
      assert.equal(info(pid).pgid, pid, 'the child leads a process group of its own');
      assert.equal(info(grandchildPid).ppid, pid);
      assert.equal(info(grandchildPid).pgid, pid);

      const report = await child.stop(signal);

      assert.equal(report.wasRunning, true);
      // The tree holds the process and the grandchild it started; it may hold more (tsx's loader can start an
      // esbuild service when its transform cache is cold), and every one of them must be gone.
      const treePids = report.tree.map((p) => p.pid);
      assert.equal(treePids[0], pid);
      assert.ok(
        treePids.includes(grandchildPid),
        `the grandchild ${grandchildPid} is in the tree ${treePids.join(' ')}`,
      );
      assert.deepEqual(report.survivors, [], describeSurvivors(report));
      assert.deepEqual(stillAlive(report.tree), []);
      assert.ok(await groupEmpties(pid), `process group ${pid} still has members`);
      assert.equal(child.running, false);
    });
  }

  it('the simulator (SimulatorProcess) is gone after SIGKILL: no process left, its port closed', async function () {
    const sim = new SimulatorProcess({ timeScale: 1 });
    try {
      await sim.start();
      const pid = sim.child!.pid!;
      assert.match(info(pid).command, / --import tsx simulator\/main\.ts /);
      assert.equal((await fetch(`${sim.url}/_sim/clock`)).status, 200);

      const report = await sim.stop('SIGKILL');

      assert.ok(report);
      assert.equal(report.tree[0]?.pid, pid);
      assert.deepEqual(report.survivors, [], describeSurvivors(report));
      assert.ok(await groupEmpties(pid));
      await assert.rejects(fetch(`${sim.url}/_sim/clock`), 'nothing answers on the port any more');
    } finally {
      await sim.stop('SIGKILL');
    }
  });

  it('the report counts a process that left the group and outlived the stop (then kills it)', async function () {
    const child = startTypeScript('parent', PARENT, ['--escape']);
    const grandchildPid = Number((await child.waitFor(/grandchild (\d+)/, 30_000))[1]);
    assert.notEqual(info(grandchildPid).pgid, child.pid, 'the grandchild is in a group of its own');

    const report = await child.stop('SIGKILL');

    assert.deepEqual(
      report.survivors.map((p) => p.pid),
      [grandchildPid],
    );
    assert.deepEqual(await gone(report.survivors), [], 'the survivor is killed once counted');
  });

  it('under the tsx CLI, killing the process started leaves the code running (why the CLI is not used)', async function () {
    // The way the processes were started before: the tsx CLI runs the file in a child `node`.
    const child = start('parent under the tsx CLI', join(ROOT, 'node_modules', '.bin', 'tsx'), [PARENT]);
    const grandchildPid = Number((await child.waitFor(/grandchild (\d+)/, 30_000))[1]);
    const pid = child.pid!;
    const tree = processTree(pid);
    assert.equal(tree.length, 3, `the CLI, the node it runs the file in and the grandchild: ${JSON.stringify(tree)}`);

    // A SIGKILL to the process started, not to its group.
    process.kill(pid, 'SIGKILL');
    await child.exited;
    await sleep(500);
    const orphans = stillAlive(tree);
    assert.deepEqual(
      orphans.map((p) => p.pid).sort(),
      tree
        .filter((p) => p.pid !== pid)
        .map((p) => p.pid)
        .sort(),
      'the node running the file and its grandchild outlive the CLI',
    );
    assert.ok(orphans.some((p) => p.pid === grandchildPid));

    // A stop of the (already dead) child still finds them through the group, and kills them.
    const report = await child.stop('SIGKILL');
    assert.equal(report.wasRunning, false);
    assert.deepEqual(report.survivors.map((p) => p.pid).sort(), orphans.map((p) => p.pid).sort());
    assert.deepEqual(await gone(orphans), []);
    assert.deepEqual(groupMembers(pid), []);
  });

  for (const how of ['exit', 'throw', 'SIGTERM', 'SIGINT'] as const) {
    it(`processes still running when their starter ends (${how}) are killed with it`, async function () {
      const starter = startTypeScript('starter', STARTER, [how === 'throw' || how === 'exit' ? how : 'wait']);
      const [, childPid, grandchildPid] = (await starter.waitFor(/started (\d+) (\d+)/, 30_000)).map(Number);
      const started = [info(childPid!), info(grandchildPid!)];
      // The child leads a group of its own, so a signal to the starter's group would not reach it.
      assert.notEqual(started[0]!.pgid, starter.pid);
      if (how === 'SIGTERM' || how === 'SIGINT') process.kill(starter.pid!, how);
      await starter.exited;

      assert.deepEqual(await gone(started), [], `left running after the starter ended:\n${starter.output}`);
      const report = await starter.stop('SIGKILL');
      assert.deepEqual(report.survivors, [], describeSurvivors(report));
    });
  }
});

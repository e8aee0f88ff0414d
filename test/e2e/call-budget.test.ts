/**
 * The firm's call budget end to end: applications started at once against a simulator that refuses
 * calls past 10 a second, an engine paced at 9 a second. Counted by the simulator: no second holds
 * more than 10 calls and none is refused; calls put off by the budget are made later, once each.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureStatusSweep } from '../../client/sweep.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type { Database } from '../../runtime/database/index.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { accountApplication } from '../../workflows/index.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { expectLog } from '../support/hooks.js';
import type { ExpectedLog } from '../support/hooks.js';
import { CallPutOff } from '../../domain/brokerage-errors.js';
import { createCallBudget } from '../../runtime/call-budget.js';
import { openSeededDatabase } from '../support/database-template.js';

const FAST: ApplicationInput['settings'] = {
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};

const CAP = 10;

describe('call budget end to end (dev server, worker, simulator with a rate cap)', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let dir: string;
  let db: Database;
  let engine: EngineHarness;
  let deferred = 0;
  let failedAttempts: ExpectedLog;

  before(async function () {
    env = await devServerEnv();
    // Each deferral fails an activity attempt on purpose: the worker's warnings are counted, not printed.
    failedAttempts = expectLog(/^Activity failed$/);
    dir = await mkdtemp(join(tmpdir(), 'eca-call-budget-'));
    db = await openSeededDatabase(join(dir, 'database'));
    engine = await startEngine(env, {
      simulator: { timeScale: 20_000, rateCap: { total: CAP } },
      database: db,
      pace: (csid) => {
        // A short longest wait: the burst at the start is more than 3 s of calls, so some are put off. One call a
        // second below the brokerage's cap, as a deployment sets it: the budget spaces calls as they leave, and
        // their transit (here a loaded machine's: two cores, three test files at once) is outside it. At the cap
        // itself, a CI run saw one call of 300 arrive in the next second and be refused.
        const budget = createCallBudget(db, csid, { perSecond: CAP - 1, maxWaitMs: 3_000 });
        return (operation) =>
          budget.pace(operation).catch((error: unknown) => {
            if (error instanceof CallPutOff) deferred++;
            throw error;
          });
      },
    });
    await ensureStatusSweep({ client: env.client, csid: engine.sim.csid, taskQueue: engine.taskQueue, settings: FAST });
  });

  after(async function () {
    failedAttempts?.done();
    await engine?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it(`30 applications started at once: never more than ${CAP} calls in a second of the simulator's, none refused, one account each`, async function () {
    const run = randomUUID().slice(0, 6);
    // External id → the outcome its scenario ends in: 25 happy, 5 rejected by compliance.
    const expected = new Map(
      Array.from({ length: 30 }, (_, i) =>
        i % 6 === 5 ? [`compliance-rejected-${run}-${i}`, 'rejected'] : [`happy-${run}-${i}`, 'open'],
      ),
    );
    await engine.worker.runUntil(async () => {
      const handles = await Promise.all(
        [...expected.keys()].map(async (externalId) => {
          const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
          return env.client.workflow.start(accountApplication, {
            taskQueue: engine.taskQueue,
            workflowId: applicationWorkflowId(engine.sim.csid, externalId),
            args: [{ csid: engine.sim.csid, externalId, application, settings: FAST }],
          });
        }),
      );
      for (const handle of handles) {
        const result = await handle.result();
        const externalId = handle.workflowId.slice(applicationWorkflowId(engine.sim.csid, '').length);
        assert.equal(result.outcome, expected.get(externalId), `${externalId} ended ${result.outcome}`);
        assert.equal(engine.sim.control.accountByExternalId(externalId)?.accountId, result.accountId);
        const history = await handle.fetchHistory();
        deferred += (history.events ?? []).filter(
          (event) =>
            event.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type === 'EcaDeferredError',
        ).length;
      }
      assert.ok(deferred > 0, 'no call was put off: the test did not load the budget');
    });

    const seconds = engine.sim.control.callCounts.rates.counts();
    const busiest = Math.max(...seconds.map((second) => second.total));
    const refused = seconds.reduce((sum, second) => sum + second.refused, 0);
    assert.equal(refused, 0, 'calls refused past the cap');
    assert.ok(busiest <= CAP, `${busiest} calls in one second`);
    assert.equal(engine.sim.control.calls().create, expected.size, 'one create per application');
  });
});

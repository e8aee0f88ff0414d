/**
 * Worker Versioning (docs/architecture.md, "Changing workflow code"): two builds of the engine's worker
 * run side by side as versions of one worker deployment on a dev server. An application started on the
 * first build, while the deployment made it current, finishes on the second once that is made current
 * (applications auto-upgrade), and its whole history replays against the workflow code.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { accountApplication, engineSmokeCheck } from '../../workflows/index.js';
import { provideDocumentsUpdate, stateQuery } from '../../workflows/application/messages.js';
import { createEngineWorker, workflowBundle } from '../../workers/engine-worker.js';
import type { WorkerDeployment } from '../../workers/engine-worker.js';
import { applicationXml, startEngine, storedForms } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Worker Versioning: two builds side by side (dev server, workers, simulator)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  const deploymentName = `eca-onboarding-${randomUUID().slice(0, 8)}`;
  const first: WorkerDeployment = { deploymentName, buildId: '1.0.0' };
  const second: WorkerDeployment = { deploymentName, buildId: '1.0.1' };

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 }, deployment: first });
  });

  after(async function () {
    await engine?.close();
  });

  /** Makes `version` the deployment's current one, once a worker of it has polled (the server learns of it then). */
  async function makeCurrent(version: WorkerDeployment): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await env.client.workflowService.setWorkerDeploymentCurrentVersion({
          namespace: env.client.options.namespace,
          deploymentName: version.deploymentName,
          buildId: version.buildId,
          identity: 'versioning test',
        });
        return;
      } catch (error) {
        if (attempt >= 100) throw error;
        await sleep(200);
      }
    }
  }

  it('an application started on one build finishes on the next, made current while it waited; its history replays', async function () {
    const firstRun = engine.worker.run();
    try {
      await onBothBuilds(firstRun);
    } finally {
      if (engine.worker.getState() === 'RUNNING') engine.worker.shutdown();
      await firstRun;
    }
  });

  async function onBothBuilds(firstRun: Promise<void>): Promise<void> {
    await makeCurrent(first);
    // The smoke check is seconds long: pinned to the build that started it.
    const smoke = await env.client.workflow.start(engineSmokeCheck, {
      taskQueue: engine.taskQueue,
      workflowId: `smoke-${randomUUID()}`,
      args: [{ sleep: '1 second' }],
    });
    await smoke.result();
    const pinned = (await smoke.describe()).raw.workflowExecutionInfo?.versioningInfo;
    assert.equal(String(pinned?.behavior), '1', 'the smoke check is pinned (VERSIONING_BEHAVIOR_PINNED)');
    const externalId = `docs-required-${randomUUID().slice(0, 6)}`;
    const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
    const handle = await env.client.workflow.start(accountApplication, {
      taskQueue: engine.taskQueue,
      workflowId: applicationWorkflowId(engine.sim.csid, externalId),
      args: [
        {
          csid: engine.sim.csid,
          externalId,
          application,
          settings: {
            pollIntervals: { tracking: '1 second' },
            requestPollInterval: '1 second',
            safetyPollInterval: '1 second',
          },
        },
      ],
    });
    for (let i = 0; (await handle.query(stateQuery)).lifecycleState !== 'needsDocuments'; i++) {
      assert.ok(i < 300, 'the application never asked for documents');
      await sleep(100);
    }
    const onFirst = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
    assert.equal(onFirst?.deploymentVersion?.buildId, first.buildId, 'started on the first build');
    assert.equal(String(onFirst?.behavior), '2', 'applications auto-upgrade (VERSIONING_BEHAVIOR_AUTO_UPGRADE)');

    // The second build starts beside the first and is made current; the first stops.
    const next = await createEngineWorker({
      connection: env.nativeConnection,
      taskQueue: engine.taskQueue,
      activities: engine.activities,
      deployment: second,
    });
    const secondRun = next.run();
    try {
      await makeCurrent(second);
      engine.worker.shutdown();
      await firstRun;

      const documents = await storedForms(engine.store, ['8001', '8002']);
      await handle.executeUpdate(provideDocumentsUpdate, { args: [documents] });
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const onSecond = (await handle.describe()).raw.workflowExecutionInfo?.versioningInfo;
      assert.equal(onSecond?.deploymentVersion?.buildId, second.buildId, 'finished on the second build');

      // Each build completed workflow tasks of it, and the whole history replays.
      const history = await handle.fetchHistory();
      const builds = new Set(
        (history.events ?? [])
          .map((event) => event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId)
          .filter((buildId): buildId is string => typeof buildId === 'string' && buildId !== ''),
      );
      assert.deepEqual([...builds].sort(), [first.buildId, second.buildId]);
      await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, handle.workflowId);
    } finally {
      next.shutdown();
      await secondRun;
    }
  }
});

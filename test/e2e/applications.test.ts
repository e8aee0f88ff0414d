/**
 * End to end: the Temporal dev server, a worker with the engine's activities and the simulator over
 * HTTP with compressed time, several applications at once, each to its expected final state.
 * The histories are replay fixtures: `UPDATE_REPLAY_FIXTURES=1 npx mocha <this file>` rewrites them.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { ensureStatusSweep } from '../../client/sweep.js';
import { sweepWorkflowId } from '../../domain/workflow-ids.js';
import { accountApplication } from '../../workflows/index.js';
import { provideDocumentsUpdate, stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { EcaLifecycleState } from '../../domain/search-attributes.js';
import { applicationXml, startEngine, storedForms } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { recordFixture } from '../support/replay-fixtures.js';

const FAST: ApplicationInput['settings'] = {
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};

describe('end to end (dev server, worker, simulator)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;

  before(async function () {
    env = await devServerEnv();
    // One simulated day in about four seconds.
    engine = await startEngine(env, { simulator: { timeScale: 20_000 } });
    // Waiting applications wake on the firm's status sweep, as in production.
    await ensureStatusSweep({ client: env.client, csid: engine.sim.csid, taskQueue: engine.taskQueue, settings: FAST });
  });

  after(async function () {
    await engine?.close();
  });

  it('drives applications of every scenario to their final states, with one account each', async function () {
    const scenarios = {
      happy: 'open',
      'docs-required': 'open',
      'portal-task': 'open',
      'compliance-rejected': 'rejected',
    };
    const run = randomUUID().slice(0, 6);
    const handles = new Map<string, WorkflowHandle<typeof accountApplication>>();

    await engine.worker.runUntil(async () => {
      for (const scenario of Object.keys(scenarios)) {
        const externalId = `${scenario}-${run}`;
        const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
        const handle = await env.client.workflow.start(accountApplication, {
          taskQueue: engine.taskQueue,
          workflowId: applicationWorkflowId(engine.sim.csid, externalId),
          args: [{ csid: engine.sim.csid, externalId, application, settings: FAST }],
        });
        handles.set(scenario, handle);
      }

      // Staff provide the documents the docs-required application asks for.
      const docs = handles.get('docs-required')!;
      for (let i = 0; (await docs.query(stateQuery)).lifecycleState !== 'needsDocuments'; i++) {
        assert.ok(i < 300, 'docs-required never asked for documents');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const documents = await storedForms(engine.store, ['8001', '8002']);
      await docs.executeUpdate(provideDocumentsUpdate, { args: [documents] });

      for (const [scenario, expected] of Object.entries(scenarios)) {
        const handle = handles.get(scenario)!;
        const result = await handle.result();
        assert.equal(result.outcome, expected, `${scenario} ended ${result.outcome}`);
        const account = engine.sim.control.accountByExternalId(`${scenario}-${run}`);
        assert.equal(account?.accountId, result.accountId, `${scenario}: one account, the workflow's`);
        assert.equal((await handle.describe()).typedSearchAttributes.get(EcaLifecycleState), expected);
      }
    });
    assert.equal(engine.sim.control.calls().create, Object.keys(scenarios).length, 'one create per application');

    for (const [scenario, handle] of handles)
      await recordFixture(`application-${scenario}`, () => handle.fetchHistory());
    await recordFixture('firm-sweep', () =>
      env.client.workflow.getHandle(sweepWorkflowId(engine.sim.csid)).fetchHistory(),
    );
  });
});

/**
 * A maintenance request's body, end to end on the dev server: stored as the request's own by the client,
 * and deleted by the next document retention once the request's workflow has closed (the worker's own
 * client tells the retention's activity so).
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { documentRetention } from '../../workflows/index.js';
import { startMaintenance } from '../../client/maintenance.js';
import { DocumentNotFound } from '../../runtime/document-store.js';
import { startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { applicationWorkflowId, documentRetentionWorkflowId } from '../../domain/workflow-ids.js';
import { expectLog } from '../support/hooks.js';

describe('maintenance documents released once the request is final (dev server, worker, simulator)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 } });
  });

  after(async function () {
    await engine?.close();
  });

  it('deletes the body of a closed maintenance request at the next retention', async function () {
    // The service refuses the account's request listing: logged by the worker as the activity's failure.
    const refused = expectLog(/^Activity failed$/);
    const ctx = { client: env.client, store: engine.store, csid: engine.sim.csid, taskQueue: engine.taskQueue };
    const run = randomUUID().slice(0, 6);
    const started = await startMaintenance(ctx, {
      // No such account: the request ends at once, unconfirmed or rejected, and is final either way.
      accountId: `U0${run.replace(/\W/g, '')}`,
      firmType: 'advisor',
      functionName: 'SecurityQuestions',
      body: '<SecurityAnswer>the name of my first pet</SecurityAnswer>',
      requestKey: `k-${run}`,
    });
    await engine.worker.runUntil(async () => {
      await started.handle.result();
      const refs = await engine.store.list();
      assert.equal(refs.length, 1, 'the body is stored');
      assert.equal((await engine.store.closingOwners()).owners.length, 1);
      const retention = await env.client.workflow.start(documentRetention, {
        taskQueue: engine.taskQueue,
        workflowId: documentRetentionWorkflowId(engine.sim.csid, `someone-${run}`),
        args: [
          {
            csid: engine.sim.csid,
            externalId: `someone-${run}`,
            owner: applicationWorkflowId(engine.sim.csid, `someone-${run}`),
            finishedAt: Date.now(),
            retentionMs: 0,
          },
        ],
      });
      assert.deepEqual(await retention.result(), { deleted: 0, kept: 0 });
      for (const ref of refs) await assert.rejects(engine.store.read(ref), DocumentNotFound);
      assert.deepEqual(await engine.store.list(), []);
      assert.deepEqual((await engine.store.closingOwners()).owners, []);
    });
    refused.done();
  });
});

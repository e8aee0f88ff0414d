/**
 * Document retention, end to end on the dev server: a finished application leaves a
 * `documentRetention` workflow that deletes the documents it stored once the retention ends.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { documentRetention } from '../../workflows/index.js';
import { accountApplication } from '../../workflows/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { documentRetentionWorkflowId } from '../../domain/workflow-ids.js';
import { applicationXml, pdf, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { recordFixture } from '../support/replay-fixtures.js';

const FAST = {
  pollIntervals: { tracking: '1 second' },
  safetyPollInterval: '1 second',
};

describe('document retention (dev server, worker, simulator)', function () {
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

  it("deletes a finished application's documents after the retention, except what another application holds", async function () {
    const externalId = `happy-retention-${randomUUID().slice(0, 6)}`;
    const workflowId = applicationWorkflowId(engine.sim.csid, externalId);
    // Stored as the client stores them: owned by the application's workflow id.
    const owner = { owner: workflowId };
    const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)), owner);
    const w9 = { ...(await engine.store.put(pdf(`${externalId} W-9`), owner)), formNumber: '5002', fileName: 'w9.pdf' };
    const form = pdf('a blank form');
    const shared = { ...(await engine.store.put(form, owner)), formNumber: '5003', fileName: 'form.pdf' };
    // The same blank form, stored earlier for an application still in flight: it must stay.
    await engine.store.put(form, { owner: applicationWorkflowId(engine.sim.csid, 'another-application') });
    const handle = await env.client.workflow.start(accountApplication, {
      taskQueue: engine.taskQueue,
      workflowId,
      args: [
        {
          csid: engine.sim.csid,
          externalId,
          application,
          documents: [w9, shared],
          settings: { ...FAST, documentRetention: '4 seconds' },
        },
      ],
    });
    await engine.worker.runUntil(async () => {
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const { credentials } = await handle.query(stateQuery);
      assert.ok(credentials, 'the create left a response file for staff');
      const before = new Set(await engine.store.list());
      for (const kept of [application, w9, shared, credentials]) assert.ok(before.has(kept.ref), 'deleted too early');
      const retention = env.client.workflow.getHandle<typeof documentRetention>(
        documentRetentionWorkflowId(engine.sim.csid, externalId),
      );
      assert.deepEqual(await retention.result(), { deleted: 3, kept: 1 });
      await recordFixture('document-retention-deleted', () => retention.fetchHistory());
      const stored = new Set(await engine.store.list());
      for (const gone of [application, w9, credentials]) {
        assert.ok(!stored.has(gone.ref), `${gone.ref} is still stored`);
      }
      assert.ok(stored.has(shared.ref), 'the form another application holds was deleted');
      assert.ok(Buffer.from(await engine.store.get(shared)).equals(Buffer.from(form)));
    });
  });
});

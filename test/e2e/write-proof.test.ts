/**
 * The proof a write attempt leaves for the next one, through a real Temporal server: a create whose
 * connection was refused (nothing reached the brokerage) is sent by the activity's next attempt, which
 * reads that proof from the heartbeat details the server kept with the failed attempt.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { accountApplication } from '../../workflows/index.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';

const FAST = {
  pollIntervals: { tracking: '1 second' },
  safetyPollInterval: '1 second',
  // Were the proof lost, the create would be in doubt and end `unconfirmed` after this window.
  createConfirmInterval: '5 seconds',
  lostAnswerWindow: '30 seconds',
};

describe('a write sent again only on proof (dev server, worker, simulator)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let refusals = 0;

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, {
      simulator: { timeScale: 20_000 },
      // The first create meets a refused connection: nothing reaches the simulator.
      fetch: (input, init) => {
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith('/ws/eca/create') && refusals++ === 0) {
          const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
          return Promise.reject(new TypeError('fetch failed', { cause }));
        }
        return fetch(input, init);
      },
    });
  });

  after(async function () {
    await engine?.close();
  });

  it('a create refused before it reached the brokerage is sent by the next attempt, once', async function () {
    const externalId = `happy-proof-${randomUUID().slice(0, 6)}`;
    const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
    const handle = await env.client.workflow.start(accountApplication, {
      taskQueue: engine.taskQueue,
      workflowId: applicationWorkflowId(engine.sim.csid, externalId),
      args: [{ csid: engine.sim.csid, externalId, application, settings: FAST }],
    });
    await engine.worker.runUntil(async () => {
      const result = await handle.result();
      assert.equal(result.outcome, 'open');
      const states = result.transitions.map((transition) => transition.state);
      assert.ok(!states.includes('unconfirmed'), `the create was taken for one in doubt: ${states.join(' → ')}`);
    });
    assert.equal(refusals, 2, 'two create attempts: the refused one and the one sent');
    assert.equal(engine.sim.control.calls().create, 1);
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createEngineWorker } from '../../workers/engine-worker.js';
import type { engineSmokeCheck } from '../../workflows/index.js';
import { timeSkippingEnv } from '../support/servers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

describe('time-skipping test server', function () {
  let env: TestWorkflowEnvironment;

  before(async function () {
    this.timeout(120_000);
    env = await timeSkippingEnv();
  });

  it('runs a workflow that sleeps for days to completion, skipping the time', async function () {
    const taskQueue = `smoke-${randomUUID()}`;
    const worker = await createEngineWorker({ connection: env.nativeConnection, taskQueue });
    const serverTimeBefore = await env.currentTimeMs();

    const result = await worker.runUntil(
      env.client.workflow.execute<typeof engineSmokeCheck>('engineSmokeCheck', {
        taskQueue,
        workflowId: `smoke-${randomUUID()}`,
        args: [{ sleep: '3 days' }],
      }),
    );

    assert.ok(
      result.workflowFinishedAt - result.workflowStartedAt >= 3 * DAY_MS,
      `workflow clock advanced only ${result.workflowFinishedAt - result.workflowStartedAt} ms`,
    );
    assert.ok((await env.currentTimeMs()) - serverTimeBefore >= 3 * DAY_MS, 'server clock did not skip 3 days');
    assert.match(result.workerIdentity, /^\d+@/);
  });
});

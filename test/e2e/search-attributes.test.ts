import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createEngineWorker } from '../../workers/engine-worker.js';
import type { engineSmokeCheck } from '../../workflows/index.js';
import { EcaCsid, EcaExternalId, EcaLifecycleState } from '../../domain/search-attributes.js';
import { devServerEnv } from '../support/servers.js';

/** Visibility is eventually consistent: list until the expected workflows show up. */
async function listUntil(env: TestWorkflowEnvironment, query: string, expected: number): Promise<string[]> {
  const giveUpAt = Date.now() + 20_000;
  for (;;) {
    const ids: string[] = [];
    for await (const execution of env.client.workflow.list({ query })) ids.push(execution.workflowId);
    if (ids.length >= expected || Date.now() > giveUpAt) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('dev server', function () {
  let env: TestWorkflowEnvironment;

  before(async function () {
    this.timeout(120_000);
    env = await devServerEnv();
  });

  it('registers the engine search attributes and answers visibility queries on them', async function () {
    const taskQueue = `sa-${randomUUID()}`;
    const csid = `CSID-${randomUUID()}`;
    const worker = await createEngineWorker({ connection: env.nativeConnection, taskQueue });
    // A workflow activation is stopped only past 60 s (runtime/config.ts DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS).
    assert.equal(worker.options.isolateExecutionTimeoutMs, 60_000);
    const start = (externalId: string, state: string) =>
      env.client.workflow.start<typeof engineSmokeCheck>('engineSmokeCheck', {
        taskQueue,
        workflowId: `smoke-${csid}-${externalId}`,
        args: [{ sleep: '1 hour' }],
        typedSearchAttributes: [
          { key: EcaCsid, value: csid },
          { key: EcaExternalId, value: externalId },
          { key: EcaLifecycleState, value: state },
        ],
      });

    await worker.runUntil(async () => {
      const handles = await Promise.all([start('a', 'tracking'), start('b', 'tracking'), start('c', 'open')]);
      try {
        const tracking = await listUntil(env, `EcaCsid = '${csid}' AND EcaLifecycleState = 'tracking'`, 2);
        assert.deepEqual(tracking.sort(), [`smoke-${csid}-a`, `smoke-${csid}-b`]);

        const byExternalId = await listUntil(env, `EcaCsid = '${csid}' AND EcaExternalId = 'c'`, 1);
        assert.deepEqual(byExternalId, [`smoke-${csid}-c`]);

        const description = await handles[2].describe();
        assert.equal(description.typedSearchAttributes.get(EcaLifecycleState), 'open');
      } finally {
        await Promise.all(handles.map((handle) => handle.terminate('test finished')));
      }
    });
  });
});

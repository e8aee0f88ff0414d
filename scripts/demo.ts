/**
 * `npm run demo`: starts the embedded Temporal dev server with its UI, a worker, runs the engine's
 * smoke check workflow and prints its result and where to see its history.
 *
 *   --keep   leave the server and worker running (Ctrl-C to stop) to explore the UI
 */
import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable } from './temporal-servers.js';
import { createEngineWorker, DEFAULT_TASK_QUEUE } from '../workers/engine-worker.js';
import type { engineSmokeCheck } from '../workflows/index.js';
import { ECA_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';

const { values } = parseArgs({ options: { keep: { type: 'boolean', default: false } } });

Runtime.install({ logger: new DefaultLogger('WARN') });

console.log('Starting the Temporal dev server with its UI...');
const env = await TestWorkflowEnvironment.createLocal({
  server: {
    executable: await devServerExecutable(),
    ui: true,
    extraArgs: DEV_SERVER_EXTRA_ARGS,
    searchAttributes: ECA_SEARCH_ATTRIBUTES,
  },
});
const [host = '127.0.0.1', port = '7233'] = env.address.split(':');
const uiAddress = `http://${host}:${Number(port) + 1000}`;
const worker = await createEngineWorker({ connection: env.nativeConnection, taskQueue: DEFAULT_TASK_QUEUE });
const running = worker.run();

try {
  const workflowId = `smoke-${randomUUID()}`;
  console.log(`Temporal server at ${env.address}; running smoke check workflow ${workflowId}...`);
  const result = await env.client.workflow.execute<typeof engineSmokeCheck>('engineSmokeCheck', {
    taskQueue: DEFAULT_TASK_QUEUE,
    workflowId,
    args: [{ sleep: '2 seconds' }],
  });
  console.log('Smoke check completed:');
  console.log(`  worker:        ${result.workerIdentity}`);
  console.log(`  durable timer: ${result.workflowFinishedAt - result.workflowStartedAt} ms of workflow time`);
  console.log(`  history:       ${uiAddress}/namespaces/default/workflows/${workflowId}`);
  console.log(`Temporal UI:     ${uiAddress}`);
  if (values.keep) {
    console.log('Leaving the server and worker running (--keep); press Ctrl-C to stop.');
    await new Promise<void>((resolve) => {
      process.once('SIGINT', resolve);
      process.once('SIGTERM', resolve);
    });
  }
} finally {
  worker.shutdown();
  await running;
  await env.teardown();
}

import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as activities from '../activities/index.js';

import { DEFAULT_TASK_QUEUE } from '../workflows/application/messages.js';

export { DEFAULT_TASK_QUEUE };

const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** Bundles the workflow code once per process: every worker this process creates shares it. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({ workflowsPath, logger: quietBundlerLogger });
  return bundle;
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

export interface EngineWorkerOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /** Activity implementations; the engine's own by default. */
  activities?: object;
  /** Any further Temporal worker option (cache size, concurrency, identity...). */
  tuning?: Partial<Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle'>>;
}

/** A worker hosting the engine's workflows and activities on one task queue. */
export async function createEngineWorker(options: EngineWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle: await workflowBundle(),
    activities: options.activities ?? activities,
    ...options.tuning,
  });
}

import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type { NativeConnection, WorkerOptions, WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as activities from '../activities/index.js';
import { codecDataConverter, FAILURE_CONVERTER_PATH } from '../codec/data-converter.js';
import type { CodecKeyring } from '../codec/keyring.js';

import { DEFAULT_TASK_QUEUE } from '../workflows/application/messages.js';

export { DEFAULT_TASK_QUEUE };

const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

const bundles = new Map<boolean, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Bundles the workflow code once per process and kind: every worker this process creates shares it.
 * With `encryptFailures`, workflow failures carry their message and stack in an (encrypted) payload.
 */
export function workflowBundle(encryptFailures = false): Promise<WorkflowBundleWithSourceMap> {
  let bundle = bundles.get(encryptFailures);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath,
      logger: quietBundlerLogger,
      ...(encryptFailures ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
    });
    bundles.set(encryptFailures, bundle);
  }
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
  /** Keys of the payload codec (codec/): every payload and failure message this worker writes is encrypted. */
  codec?: CodecKeyring;
  /** Any further Temporal worker option (cache size, concurrency, identity...). */
  tuning?: Partial<
    Omit<WorkerOptions, 'connection' | 'namespace' | 'taskQueue' | 'activities' | 'workflowBundle' | 'dataConverter'>
  >;
}

/** A worker hosting the engine's workflows and activities on one task queue. */
export async function createEngineWorker(options: EngineWorkerOptions): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle: await workflowBundle(options.codec !== undefined),
    activities: options.activities ?? activities,
    ...(options.codec ? { dataConverter: codecDataConverter(options.codec) } : {}),
    ...options.tuning,
  });
}

/**
 * `npm run worker`: the engine's worker process. Configuration comes from the environment (and
 * `ECA_CONFIG_FILE`), see workers/config.ts; SIGINT/SIGTERM drain the worker before it exits.
 */
import { readFile } from 'node:fs/promises';
import { NativeConnection } from '@temporalio/worker';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { createApplicationActivities } from '../activities/application.js';
import { createEcaClientFromConfig } from './brokerage.js';
import { ConfigurationError, loadWorkerConfig } from './config.js';
import type { WorkerConfig } from './config.js';
import { createEngineWorker } from './engine-worker.js';
import * as smokeActivities from '../activities/smoke.js';
import { FileDocumentStore } from '../activities/document-store.js';

async function connectionOptions(config: WorkerConfig['temporal']): Promise<NativeConnectionOptions> {
  const options: NativeConnectionOptions = { address: config.address };
  if (config.apiKey) options.apiKey = config.apiKey;
  if (config.tls.enabled) {
    const read = async (path: string | undefined, name: string) => {
      if (!path) return undefined;
      try {
        return await readFile(path);
      } catch {
        throw new ConfigurationError(`${name} ${path} cannot be read`);
      }
    };
    const [ca, crt, key] = await Promise.all([
      read(config.tls.caFile, 'TEMPORAL_TLS_CA'),
      read(config.tls.certFile, 'TEMPORAL_TLS_CERT'),
      read(config.tls.keyFile, 'TEMPORAL_TLS_KEY'),
    ]);
    options.tls = {
      serverNameOverride: config.tls.serverName,
      serverRootCACertificate: ca,
      clientCertPair: crt && key ? { crt, key } : undefined,
    };
  }
  return options;
}

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  const eca = createEcaClientFromConfig(config.brokerage);
  const connection = await NativeConnection.connect(await connectionOptions(config.temporal));
  const worker = await createEngineWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    activities: {
      ...smokeActivities,
      ...createApplicationActivities({
        eca,
        store: new FileDocumentStore(config.documentStore.path),
        batchWindowMs: config.polling.batchWindowMs,
        maxAccountsPerCall: config.polling.maxAccountsPerCall,
      }),
    },
    tuning: {
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
      maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
      maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
      shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    },
  });
  console.log(
    `eca worker polling task queue "${config.temporal.taskQueue}" on ${config.temporal.address} (namespace ${config.temporal.namespace})`,
  );
  // The SDK shuts the worker down on SIGINT/SIGTERM (its default shutdownSignals) and run() resolves once drained.
  await worker.run();
  await connection.close();
  console.log('eca worker stopped');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) console.error(error.message);
  else console.error('eca worker failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * `npm run worker`: the engine's worker process. Configuration comes from the environment (and
 * `ECA_CONFIG_FILE`), see workers/config.ts; SIGINT/SIGTERM drain the worker before it exits.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import type { NativeConnectionOptions } from '@temporalio/worker';
import { createApplicationActivities } from '../activities/application.js';
import { createEcaClientFromConfig } from './brokerage.js';
import { ConfigurationError, loadWorkerConfig } from './config.js';
import type { WorkerConfig } from './config.js';
import { createEngineWorker } from './engine-worker.js';
import * as smokeActivities from '../activities/smoke.js';
import { FileDocumentStore } from '../activities/document-store.js';
import { createDocumentsActivities } from '../activities/documents.js';
import { FileDailyDocumentsLedger, planCreateDocuments } from '../activities/forms.js';
import { createMaintenanceActivities } from '../activities/maintenance.js';
import { codecDisabled, codecKeyringFromEnv, CodecConfigurationError, CODEC_DISABLED_ENV } from '../codec/keyring.js';
import { instrumentEcaClient, startLifecycleGauge } from './metrics.js';

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
  // Payload keys are checked before anything connects: a missing or malformed key stops the start.
  const codec = codecDisabled() ? undefined : codecKeyringFromEnv();
  const { logLevel, metricsAddress } = config.telemetry;
  Runtime.install({
    logger: new DefaultLogger(logLevel),
    ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
  });
  const meter = Runtime.instance().metricMeter;
  const eca = instrumentEcaClient(createEcaClientFromConfig(config.brokerage), meter);
  const connection = await NativeConnection.connect(await connectionOptions(config.temporal));
  const store = new FileDocumentStore(config.documentStore.path);
  // The days' submission records live beside the documents, on the same shared volume.
  const ledger = new FileDailyDocumentsLedger(join(store.root, 'daily'));
  const worker = await createEngineWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    codec,
    activities: {
      ...smokeActivities,
      ...createApplicationActivities({
        eca,
        store,
        batchWindowMs: config.polling.batchWindowMs,
        maxAccountsPerCall: config.polling.maxAccountsPerCall,
        createDocuments: (input) => planCreateDocuments(ledger, input),
      }),
      ...createDocumentsActivities({ eca, store, ledger }),
      ...createMaintenanceActivities({ eca, store }),
    },
    tuning: {
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
      maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
      maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
      shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    },
  });
  if (!codec) console.warn(`${CODEC_DISABLED_ENV}: payloads are NOT encrypted; histories are readable in plaintext`);
  const gauge = metricsAddress
    ? startLifecycleGauge({
        client: new Client({ connection, namespace: config.temporal.namespace }),
        meter,
        intervalMs: config.telemetry.applicationsGaugeIntervalMs,
        onError: (error) => console.warn(`eca_applications not counted: ${(error as Error).message}`),
      })
    : undefined;
  if (metricsAddress) console.log(`eca worker metrics on http://${metricsAddress}/metrics`);
  console.log(
    `eca worker polling task queue "${config.temporal.taskQueue}" on ${config.temporal.address} (namespace ${config.temporal.namespace})`,
  );
  // The SDK shuts the worker down on SIGINT/SIGTERM (its default shutdownSignals) and run() resolves once drained.
  await worker.run();
  gauge?.stop();
  await connection.close();
  console.log('eca worker stopped');
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError || error instanceof CodecConfigurationError) console.error(error.message);
  else console.error('eca worker failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});

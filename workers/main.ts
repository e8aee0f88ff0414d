/**
 * `npm run worker`: the engine's worker process. Configuration comes from the environment (and
 * `ECA_CONFIG_FILE`), see runtime/config.ts; SIGINT/SIGTERM drain the worker before it exits.
 */
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { activitySignal } from '../activities/deadline.js';
import { createEcaClientFromConfig } from '../runtime/brokerage.js';
import { ConfigurationError, loadWorkerConfig } from '../runtime/config.js';
import type { WorkerConfig } from '../runtime/config.js';
import { createEngineWorker, prebuiltBundleDir } from './engine-worker.js';
import { startTracing } from '../runtime/tracing.js';
import { temporalConnectionOptions } from '../runtime/temporal-connection.js';
import { openDocumentStore } from '../runtime/document-store-location.js';
import { createEngineActivities } from '../activities/engine.js';
import { codecDataConverter } from '../codec/data-converter.js';
import {
  codecAllowsPlaintext,
  CodecConfigurationError,
  CODEC_ALLOW_PLAINTEXT_ENV,
  CODEC_DISABLED_ENV,
  configuredCodecKeyring,
} from '../codec/keyring.js';
import { activityMetrics, instrumentEcaClient, startLifecycleGauge } from './metrics.js';
import { DatabaseError, databaseUrlFromEnv, openDatabase, redactUrl } from '../runtime/database/index.js';
import type { Database } from '../runtime/database/index.js';
import { EventLog } from '../runtime/events.js';
import { callBudgetOf, pacesCalls, createCallBudget, describeBudget } from '../runtime/call-budget.js';
import type { CallBudgetSettings } from '../runtime/call-budget.js';

/** The brokerage client, its calls paced by the firm's call budget when one is set (runtime/call-budget.ts). */
function brokerageClient(config: WorkerConfig, database: Database, budget: CallBudgetSettings) {
  return createEcaClientFromConfig(config.brokerage, {
    signal: activitySignal,
    cryptoThreads: config.worker.cryptoThreads,
    ...(pacesCalls(budget) && { pace: createCallBudget(database, config.brokerage.csid ?? '', budget).pace }),
  });
}

/** What the worker says as it starts: where it polls, what it runs, where its events go, how it calls. */
function startLine(
  config: WorkerConfig,
  { tracing, databaseUrl, budget }: { tracing: boolean; databaseUrl: string; budget: CallBudgetSettings },
): string {
  const bundleDir = prebuiltBundleDir();
  const { taskQueue, address, namespace } = config.temporal;
  const threads = config.worker.cryptoThreads;
  return (
    `eca worker polling task queue "${taskQueue}" on ${address} (namespace ${namespace}); ` +
    `workflows ${bundleDir && !tracing ? `from the prebuilt bundles in ${bundleDir}` : 'bundled at start'}` +
    (tracing ? '; tracing on (OpenTelemetry)' : '') +
    `; events to ${redactUrl(databaseUrl)}` +
    `; OpenPGP ${threads > 0 ? `on ${threads} thread(s)` : 'on the event loop'}` +
    (pacesCalls(budget) ? `; brokerage calls paced (${describeBudget(budget)})` : '')
  );
}

async function main(): Promise<void> {
  const config = loadWorkerConfig();
  // Payload keys are checked before anything connects: a missing or malformed key stops the start.
  const codec = configuredCodecKeyring();
  const { logLevel, metricsAddress } = config.telemetry;
  Runtime.install({
    logger: new DefaultLogger(logLevel),
    ...(metricsAddress ? { telemetryOptions: { metrics: { prometheus: { bindAddress: metricsAddress } } } } : {}),
  });
  const meter = Runtime.instance().metricMeter;
  // Off unless OTEL_* variables ask for it (runtime/tracing.ts).
  const tracing = await startTracing('eca-worker');
  // The engine's database (ECA_DATABASE_URL, shared with the onboarding API): the applications' event log,
  // and the firm's call budget shared by every worker.
  const databaseUrl = databaseUrlFromEnv(process.env);
  const database = await openDatabase(databaseUrl);
  const budget = callBudgetOf(config.brokerage);
  const eca = instrumentEcaClient(brokerageClient(config, database, budget), meter);
  const connection = await NativeConnection.connect(await temporalConnectionOptions(config.temporal));
  // Documents at rest under the codec's keys, in a directory or the database (runtime/document-store-location.ts).
  const store = await openDocumentStore(config.documentStore.path, { keyring: codec });
  // The status sweep lists and signals applications: its payloads go through the same codec.
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
  });
  const { activities } = createEngineActivities({
    eca,
    store,
    client,
    // Configuration errors, sweeps and daily documents counted for the alert rules (workers/metrics.ts).
    ...activityMetrics(meter),
    stepFailureBounds: config.steps,
    batchWindowMs: config.polling.batchWindowMs,
    maxAccountsPerCall: config.polling.maxAccountsPerCall,
    sweepListingIntervalMs: config.polling.sweepListingIntervalMs,
    events: new EventLog(database),
    // Webhook delivery and the firms' deadline policies, from the same database; secrets sealed under the codec's keys.
    database,
    keyring: codec,
  });
  const plaintext = codecAllowsPlaintext() ? 'accept' : 'refuse';
  const worker = await createEngineWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    codec,
    plaintext,
    activities,
    tracing,
    tuning: {
      maxCachedWorkflows: config.worker.maxCachedWorkflows,
      maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
      maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
      shutdownGraceTime: config.worker.shutdownGraceTimeMs,
      isolateExecutionTimeout: config.worker.isolateExecutionTimeoutMs,
    },
  });
  if (!codec) console.warn(`${CODEC_DISABLED_ENV}: payloads are NOT encrypted; histories are readable in plaintext`);
  else if (plaintext === 'accept') {
    console.warn(`${CODEC_ALLOW_PLAINTEXT_ENV}: payloads that are not encrypted are accepted (migration mode)`);
  }
  const gauge = metricsAddress
    ? startLifecycleGauge({
        client,
        meter,
        intervalMs: config.telemetry.applicationsGaugeIntervalMs,
        onError: (error) => console.warn(`eca_applications not counted: ${(error as Error).message}`),
      })
    : undefined;
  if (metricsAddress) console.log(`eca worker metrics on http://${metricsAddress}/metrics`);
  console.log(startLine(config, { tracing: tracing !== undefined, databaseUrl, budget }));
  // The SDK shuts the worker down on SIGINT/SIGTERM (its default shutdownSignals) and run() resolves once drained.
  await worker.run();
  gauge?.stop();
  await tracing?.shutdown();
  await connection.close();
  await store.close();
  await database.close();
  console.log('eca worker stopped');
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigurationError ||
    error instanceof CodecConfigurationError ||
    error instanceof DatabaseError
  ) {
    console.error(error.message);
  } else console.error('eca worker failed:', error instanceof Error ? error.message : error);
  process.exit(1);
});

/**
 * `npm run worker` / `eca-worker`: the engine's worker process. Configuration comes from the environment
 * (and `ECA_CONFIG_FILE`), see runtime/config.ts; SIGINT/SIGTERM drain the worker before it exits.
 * `--help` lists the variables; any other argument is refused (exit 2).
 */
import { Client } from '@temporalio/client';
import { serviceCommandLine } from '../runtime/command-line.js';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { announcer, createLogger, temporalLogger } from '../runtime/logger.js';
import type { PinoLogger } from '../runtime/logger.js';
import { attemptSignal } from '../activities/attempt-signal.js';
import { environmentFirmOf, FirmBrokerages } from '../runtime/firm-brokerages.js';
import { FirmRegistry } from '../runtime/firms.js';
import type { FirmRecord } from '../runtime/firms.js';
import type { CodecKeyring } from '../codec/keyring.js';
import {
  ConfigurationError,
  DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS,
  DEFAULT_MAX_CACHED_WORKFLOWS,
  loadWorkerConfig,
} from '../runtime/config.js';
import type { WorkerConfig } from '../runtime/config.js';
import { createEngineWorker, packageDeployment, prebuiltBundleDir } from './engine-worker.js';
import type { WorkerDeployment } from './engine-worker.js';
import { assertSearchAttributes } from './search-attributes.js';
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
import {
  activityMetrics,
  brokerageCallMetrics,
  instrumentEcaClient,
  startLifecycleGauge,
  webApiCallRecorder,
} from './metrics.js';
import type { BrokerageCallMetrics } from './metrics.js';
import { DatabaseError, databaseUrlFromEnv, openDatabase, redactUrl } from '../runtime/database/index.js';
import type { Database } from '../runtime/database/index.js';
import { EventLog } from '../runtime/events.js';
import { callBudgetOf, pacesCalls, describeBudget } from '../runtime/call-budget.js';
import type { CallBudgetSettings } from '../runtime/call-budget.js';
import {
  DEFAULT_BATCH_WINDOW_MS,
  DEFAULT_MAX_ACCOUNTS_PER_CALL,
  DEFAULT_STEP_FAILURE_BOUNDS,
  DEFAULT_SWEEP_LISTING_INTERVAL_MS,
} from '../runtime/defaults.js';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { DEFAULT_DOCUMENT_STORE } from '../runtime/document-store-location.js';
import { DEFAULT_DATABASE_URL } from '../runtime/database/url.js';

/** What `--help` lists after the usage: the variables the worker reads (runtime/config.ts and the modules it starts). */
const ENVIRONMENT = `
Environment: Temporal (its standard variables, read as the temporal CLI reads them)
  TEMPORAL_ADDRESS                      the Temporal frontend, host:port (localhost:7233)
  TEMPORAL_NAMESPACE                    the namespace (default)
  TEMPORAL_API_KEY                      a Temporal Cloud API key, implies TLS (or TEMPORAL_API_KEY_FILE)
  TEMPORAL_TLS                          true or false: TLS on or off
  TEMPORAL_TLS_CLIENT_CERT_PATH         the client certificate for mTLS (..._DATA: the PEM itself)
  TEMPORAL_TLS_CLIENT_KEY_PATH          the client key for mTLS (..._DATA: the PEM itself)
  TEMPORAL_TLS_SERVER_CA_CERT_PATH      a private CA (..._DATA: the PEM itself)
  TEMPORAL_TLS_SERVER_NAME              the server certificate's name, where it is not the address's
  TEMPORAL_GRPC_META_<NAME>             gRPC metadata sent with every call
  TEMPORAL_PROFILE                      the profile of Temporal's config file (default)
  TEMPORAL_CONFIG_FILE                  that TOML file (~/.config/temporalio/temporal.toml)

Environment: the engine's settings (X_FILE may name a file that holds X)
  ECA_TASK_QUEUE                        the task queue (${DEFAULT_TASK_QUEUE})
  ECA_CSID                              a firm's client service id: seeded into the firms at start (eca firms)
  ECA_ENVIRONMENT                       the brokerage's environment: qa or prod (qa)
  ECA_BASE_URL                          the brokerage's web service address (the environment's)
  ECA_PREFERENCE_URL                    the brokerage's preference service address (the environment's)
  ECA_FIRM_PRIVATE_KEY                  the firm's OpenPGP private key, armored or a file path
  ECA_FIRM_KEY_PASSPHRASE               its passphrase
  ECA_BROKERAGE_PUBLIC_KEY              the brokerage's OpenPGP public key, armored or a file path
  ECA_TIMEOUT_MS                        the timeout of one brokerage request (30000)
  ECA_SSO_ALLOW_INSECURE_LOOPBACK       true: http SSO links on loopback, a local simulator only (false)
  ECA_CALLS_PER_SECOND                  the firm's brokerage calls a second, all workers together (no cap)
  ECA_CALLS_PER_SECOND_BY_OPERATION     the same per operation: create=2,validateXML=5 (no cap)
  ECA_CALL_WAIT_MAX_MS                  a call whose budget slot is further away is put off, retried (20000)
  ECA_MAINTENANCE_WINDOWS               no brokerage call inside: 03:00-03:30; Sun 22:00-02:00 (none)
  ECA_MAINTENANCE_TIME_ZONE             the windows' IANA time zone (UTC)
  ECA_DOCUMENT_STORE                    a directory or a database URL (${DEFAULT_DOCUMENT_STORE})
  ECA_POLL_BATCH_WINDOW_MS              how long a status read waits for others to join it (${DEFAULT_BATCH_WINDOW_MS})
  ECA_POLL_MAX_ACCOUNTS_PER_CALL        accounts in one status call (${DEFAULT_MAX_ACCOUNTS_PER_CALL})
  ECA_SWEEP_LISTING_INTERVAL_MS         how often the status sweep lists the waiting applications (${DEFAULT_SWEEP_LISTING_INTERVAL_MS})
  ECA_BLOCK_AFTER_MS                    a step failing on configuration is blocked after (${DEFAULT_STEP_FAILURE_BOUNDS.blockAfterMs})
  ECA_BLOCK_AFTER_ATTEMPTS              attempts of a step failing on an anomaly before it is blocked (${DEFAULT_STEP_FAILURE_BOUNDS.anomalyAttempts})
  WORKER_MAX_CACHED_WORKFLOWS           workflows kept in memory (${DEFAULT_MAX_CACHED_WORKFLOWS})
  WORKER_MAX_CONCURRENT_ACTIVITIES      activities run at once (the SDK's default)
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS  workflow tasks run at once (the SDK's default)
  WORKER_SHUTDOWN_GRACE_MS              how long running activities may finish at shutdown (10000)
  WORKER_CRYPTO_THREADS                 OpenPGP threads, 0: on the event loop (cores - 1, 1 to 4)
  WORKER_ISOLATE_EXECUTION_TIMEOUT_MS   how long one workflow activation may run (${DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS})
  WORKER_VERSIONING                     true: poll as one build of a worker deployment, Worker Versioning (false)
  WORKER_DEPLOYMENT_NAME                the worker deployment's name (the package's name)
  WORKER_BUILD_ID                       this build's id in it (the package's version)
  ECA_LOG_LEVEL                         TRACE, DEBUG, INFO, WARN or ERROR (INFO)
  ECA_LOG_FORMAT                        json or pretty (pretty on a terminal, JSON lines otherwise)
  ECA_METRICS_ADDRESS                   host:port of a Prometheus endpoint, /metrics (none)
  ECA_METRICS_GAUGE_INTERVAL_MS         how often eca_applications is counted (30000)

Environment: more
  ECA_CONFIG_FILE                       a JSON file of the settings above, which the variables override
  ECA_DATABASE_URL                      the engine's database, postgres://... or pglite:<dir> (${DEFAULT_DATABASE_URL})
  ECA_CODEC_KEYS                        payload keys, keyId:base64Key, comma-separated, newest first
  ECA_CODEC_KEYS_FILE                   the same list in a file, one a line
  ECA_CODEC_DISABLED                    true: payloads are not encrypted (local experiments only)
  ECA_CODEC_ALLOW_PLAINTEXT             true: payloads that are not encrypted are accepted (a migration)
  ECA_WORKFLOW_BUNDLE_DIR               prebuilt workflow bundles (the package's dist/workflow-bundles)
  OTEL_EXPORTER_OTLP_ENDPOINT           tracing on: where spans go, over OTLP (off)
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT    the same, for traces only
  OTEL_EXPORTER_OTLP_PROTOCOL           http/protobuf (default), grpc or http/json (and _TRACES_PROTOCOL)
  OTEL_TRACES_EXPORTER                  otlp, console (spans on stdout), zipkin or none
  OTEL_SERVICE_NAME                     the name of the service in the spans (eca-worker)
  OTEL_RESOURCE_ATTRIBUTES              more resource attributes: key=value,...
  OTEL_SDK_DISABLED                     true: no tracing, whatever else is set
  OTEL_BSP_*                            the batch span processor's settings (OTEL_BSP_SCHEDULE_DELAY)
  OTEL_*                                every other standard variable, read by the OpenTelemetry Node SDK
`;

/** The command line: `--help` prints the usage (0), anything else is refused (2); undefined: run the service. */
function commandLine(argv: string[]): number | undefined {
  return serviceCommandLine(argv, {
    name: 'eca-worker',
    description:
      "The onboarding engine's Temporal worker: polls its task queue and runs the application workflows and " +
      'their activities (brokerage calls, documents, the status sweep). Configured by the environment ' +
      'below; SIGINT or SIGTERM drains it before it exits.',
    environment: ENVIRONMENT,
  });
}

/**
 * The brokerage client of every firm (runtime/firm-brokerages.ts): each call on the keys and budget of the
 * firm it is for, read from the engine's database; the firm of ECA_CSID (if set) seeded there first.
 */
async function firmBrokerages(
  config: WorkerConfig,
  database: Database,
  keyring: CodecKeyring | undefined,
  metrics: BrokerageCallMetrics,
) {
  const registry = new FirmRegistry(database, { keyring, environmentFirm: await environmentFirmOf(config.brokerage) });
  const seeded = await registry.seedEnvironment();
  const brokerages = new FirmBrokerages(registry, {
    signal: attemptSignal,
    cryptoThreads: config.worker.cryptoThreads,
    timeoutMs: config.brokerage.timeoutMs,
    callWaitMaxMs: config.brokerage.callWaitMaxMs,
    ssoAllowInsecureLoopback: config.brokerage.ssoAllowInsecureLoopback,
    database,
    onWebApiCall: webApiCallRecorder(metrics),
    instrumentEca: (eca) => instrumentEcaClient(eca, metrics),
  });
  return { brokerages, seeded, firms: await registry.list() };
}

/** What the worker says as it starts: where it polls, what it runs, where its events go, how it calls. */
function startLine(
  config: WorkerConfig,
  {
    tracing,
    databaseUrl,
    budget,
    deployment,
    firms,
  }: {
    tracing: boolean;
    databaseUrl: string;
    budget: CallBudgetSettings;
    deployment?: WorkerDeployment;
    firms: FirmRecord[];
  },
): string {
  const bundleDir = prebuiltBundleDir();
  const { taskQueue, address, namespace } = config.temporal;
  const threads = config.worker.cryptoThreads;
  return (
    `eca worker polling task queue "${taskQueue}" on ${address} (namespace ${namespace}); ` +
    `workflows ${bundleDir && !tracing ? `from the prebuilt bundles in ${bundleDir}` : 'bundled at start'}` +
    (tracing ? '; tracing on (OpenTelemetry)' : '') +
    `; events to ${redactUrl(databaseUrl)}` +
    `; firms ${firms.length === 0 ? 'none yet (eca firms add)' : firms.map(describeFirm).join(', ')}` +
    `; OpenPGP ${threads > 0 ? `on ${threads} thread(s)` : 'on the event loop'}` +
    (pacesCalls(budget) ? `; brokerage calls paced (${describeBudget(budget)})` : '') +
    (deployment ? `; Worker Versioning: deployment ${deployment.deploymentName}, build ${deployment.buildId}` : '')
  );
}

/** `FIRM1`, `FIRM2 (disabled)`: a firm in the start line. */
function describeFirm(firm: FirmRecord): string {
  return firm.disabled ? `${firm.csid} (disabled)` : firm.csid;
}

/** The worker deployment version the worker polls as (WORKER_VERSIONING): the package's unless configured. */
function deploymentOf(config: WorkerConfig): WorkerDeployment | undefined {
  if (!config.worker.versioning) return undefined;
  const own = packageDeployment();
  return {
    deploymentName: config.worker.deploymentName ?? own.deploymentName,
    buildId: config.worker.buildId ?? own.buildId,
  };
}

/** The runtime installed (`Runtime.instance()` after it shut down would start a new one and hold the process). */
let runtime: Runtime | undefined;

/**
 * The SDK's runtime: one logger for the SDK's lines (the core's too, which print on their own otherwise) and
 * the worker's own, personal data redacted (runtime/logger.ts); the Prometheus endpoint when configured.
 */
function installRuntime({ logLevel, logFormat, metricsAddress }: WorkerConfig['telemetry']): PinoLogger {
  const log = createLogger({ name: 'eca-worker', level: logLevel, format: logFormat });
  runtime = Runtime.install({
    logger: temporalLogger(log),
    telemetryOptions: {
      logging: { filter: { core: 'WARN', other: 'ERROR' }, forward: {} },
      ...(metricsAddress ? { metrics: { prometheus: { bindAddress: metricsAddress } } } : {}),
    },
  });
  return log;
}

/** Payloads in the clear, said at every start: no codec, or a codec that accepts what is not encrypted. */
function warnOfPlaintext(log: PinoLogger, encrypted: boolean, plaintext: 'accept' | 'refuse'): void {
  if (!encrypted) log.warn(`${CODEC_DISABLED_ENV}: payloads are NOT encrypted; histories are readable in plaintext`);
  else if (plaintext === 'accept') {
    log.warn(`${CODEC_ALLOW_PLAINTEXT_ENV}: payloads that are not encrypted are accepted (migration mode)`);
  }
}

/**
 * The connection to Temporal, once the namespace is known to hold the engine's search attributes: a namespace
 * `eca setup` has not prepared stops the start, the message naming what is missing and the command.
 */
async function connectTemporal(temporal: WorkerConfig['temporal']): Promise<NativeConnection> {
  const connection = await NativeConnection.connect(await temporalConnectionOptions(temporal));
  try {
    await assertSearchAttributes(connection, temporal.namespace);
  } catch (error) {
    await connection.close();
    throw error;
  }
  return connection;
}

/** The worker's capacities, as configured (ECA_WORKER_*). */
function workerTuning(config: ReturnType<typeof loadWorkerConfig>) {
  return {
    maxCachedWorkflows: config.worker.maxCachedWorkflows,
    maxConcurrentActivityTaskExecutions: config.worker.maxConcurrentActivityTaskExecutions,
    maxConcurrentWorkflowTaskExecutions: config.worker.maxConcurrentWorkflowTaskExecutions,
    shutdownGraceTime: config.worker.shutdownGraceTimeMs,
    isolateExecutionTimeout: config.worker.isolateExecutionTimeoutMs,
  };
}

async function main(): Promise<void> {
  const exitCode = commandLine(process.argv);
  if (exitCode !== undefined) {
    process.exitCode = exitCode;
    return;
  }
  const config = loadWorkerConfig();
  // Payload keys are checked before anything connects: a missing or malformed key stops the start.
  const codec = configuredCodecKeyring();
  const { metricsAddress } = config.telemetry;
  const log = installRuntime(config.telemetry);
  const announce = announcer(log);
  const meter = Runtime.instance().metricMeter;
  // Off unless OTEL_* variables ask for it (runtime/tracing.ts).
  const tracing = await startTracing('eca-worker');
  // The engine's database (ECA_DATABASE_URL, shared with the onboarding API): the applications' event log,
  // and the firm's call budget shared by every worker.
  const databaseUrl = databaseUrlFromEnv(process.env);
  const database = await openDatabase(databaseUrl);
  const budget = callBudgetOf(config.brokerage);
  // Every brokerage call counted and timed, on both protocols (workers/metrics.ts).
  const callMetrics = brokerageCallMetrics(meter);
  const { brokerages, seeded, firms } = await firmBrokerages(config, database, codec, callMetrics);
  if (seeded === 'managed-elsewhere') {
    log.warn(`firm ${config.brokerage.csid} is managed with eca firms: ECA_CSID's settings and keys are not used`);
  }
  const eca = brokerages.dispatcher();
  const connection = await connectTemporal(config.temporal);
  // Documents at rest under the codec's keys, in a directory or the database (runtime/document-store-location.ts).
  const store = await openDocumentStore(config.documentStore.path, { keyring: codec });
  // The status sweep lists and signals applications: its payloads go through the same codec.
  const client = new Client({
    connection,
    namespace: config.temporal.namespace,
    ...(codec ? { dataConverter: codecDataConverter(codec) } : {}),
  });
  // Configuration errors, sweeps and daily documents counted for the alert rules (workers/metrics.ts).
  const { onConfigurationError, ...counted } = activityMetrics(meter);
  const { activities } = createEngineActivities({
    eca,
    store,
    client,
    ...counted,
    batchWindowMs: config.polling.batchWindowMs,
    maxAccountsPerCall: config.polling.maxAccountsPerCall,
    sweepListingIntervalMs: config.polling.sweepListingIntervalMs,
    events: new EventLog(database),
    // Webhook delivery and the firms' deadline policies, from the same database; secrets sealed under the codec's keys.
    database,
    keyring: codec,
    // A disabled firm's webhook deliveries wait for it to be enabled, as its other work does.
    firms: brokerages.registry,
    webApi: brokerages.protocols(),
  });
  const plaintext = codecAllowsPlaintext() ? 'accept' : 'refuse';
  const deployment = deploymentOf(config);
  const worker = await createEngineWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    codec,
    plaintext,
    activities,
    // The step-failure policy every activity runs under: its alert counted, its bounds configured.
    onConfigurationError,
    stepFailureBounds: config.steps,
    tracing,
    deployment,
    tuning: workerTuning(config),
  });
  warnOfPlaintext(log, codec !== undefined, plaintext);
  const gauge = metricsAddress
    ? startLifecycleGauge({
        client,
        meter,
        intervalMs: config.telemetry.applicationsGaugeIntervalMs,
        onError: (error) => log.warn({ error }, 'eca_applications not counted'),
      })
    : undefined;
  if (metricsAddress) announce.info(`eca worker metrics on http://${metricsAddress}/metrics`);
  announce.info(startLine(config, { tracing: tracing !== undefined, databaseUrl, budget, deployment, firms }));
  // The SDK shuts the worker down on SIGINT/SIGTERM (its default shutdownSignals) and run() resolves once drained.
  await worker.run();
  gauge?.stop();
  await tracing?.shutdown();
  await connection.close();
  await store.close();
  await database.close();
  runtime?.flushLogs();
  announce.info('eca worker stopped');
}

main().catch((error: unknown) => {
  if (
    error instanceof ConfigurationError ||
    error instanceof CodecConfigurationError ||
    error instanceof DatabaseError
  ) {
    console.error(error.message);
  } else console.error('eca worker failed:', error instanceof Error ? error.message : error);
  // The lines forwarded from the core wait in a buffer (up to 100 ms): written before the process ends.
  runtime?.flushLogs();
  process.exit(1);
});

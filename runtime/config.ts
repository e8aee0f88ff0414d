/**
 * Worker configuration: environment variables, optionally over a JSON file (`ECA_CONFIG_FILE`); where
 * Temporal is comes from Temporal's own environment configuration (temporal-profile.ts), over that file.
 * Validated once at start-up; a bad value stops the worker with a message naming the variable.
 */
import { availableParallelism } from 'node:os';
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import {
  DEFAULT_BATCH_WINDOW_MS,
  DEFAULT_MAX_ACCOUNTS_PER_CALL,
  DEFAULT_STEP_FAILURE_BOUNDS,
  DEFAULT_SWEEP_LISTING_INTERVAL_MS,
} from './defaults.js';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { ConfigurationError } from './config-error.js';
import { LOG_FORMATS } from './log-format.js';
import { OPERATIONS } from '../eca/web-client/operations.js';
import { MaintenanceWindowsText, TimeZoneName } from './firm-settings.js';
import { DEFAULT_DOCUMENT_STORE, parseDocumentStoreLocation } from './document-store-location.js';
import { loadTemporalProfile } from './temporal-profile.js';
import type { TemporalProfile } from './temporal-profile.js';

/** Sized for a worker of about 1 GiB: 500 resident workflows at ~1.5 MB each, plus the process itself. */
export const DEFAULT_MAX_CACHED_WORKFLOWS = 500;

/**
 * How long one workflow activation may run in the workflow sandbox before the SDK stops it (its
 * `isolateExecutionTimeout`, 5 s by default). On Node, that stop is not survivable: a `vm` timeout that
 * fires in the sandbox's microtasks corrupts the thread's async-hooks stack and the process aborts
 * ("async hook stack has become corrupted"; nodejs/node#38503, temporalio/sdk-typescript#939). So the
 * bound is kept far above what an activation takes on a loaded host (milliseconds; seconds when the host
 * is starved of CPU), and only a workflow that loops forever reaches it.
 */
export const DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS = 60_000;
/** One thread fewer than the cores for OpenPGP (the event loop keeps one), at least 1 and at most 4. */
export const DEFAULT_CRYPTO_THREADS = Math.max(1, Math.min(4, availableParallelism() - 1));

export { ConfigurationError };

const durationMs = z.coerce.number().int().positive();

/** `operation=N,…` as an object; anything else is left for the schema to judge. */
function operationCounts(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  return Object.fromEntries(
    value
      .split(',')
      .filter((part) => part.trim() !== '')
      .map((part) => {
        const [operation = '', count = ''] = part.split('=', 2);
        return [operation.trim(), count.trim()];
      }),
  );
}
const positiveInt = z.coerce.number().int().positive();

const schema = z.object({
  temporal: z.object({
    address: z.string().min(1).default('localhost:7233'),
    namespace: z.string().min(1).default('default'),
    taskQueue: z.string().min(1).default(DEFAULT_TASK_QUEUE),
    /** Temporal Cloud API key; implies TLS. */
    apiKey: z.string().min(1).optional(),
    tls: z
      .object({
        enabled: z.boolean().default(false),
        serverName: z.string().optional(),
        caFile: z.string().optional(),
        certFile: z.string().optional(),
        keyFile: z.string().optional(),
        /** PEM contents instead of a file (`TEMPORAL_TLS_*_DATA`, or `*_data` in the profile). */
        caData: z.string().optional(),
        certData: z.string().optional(),
        keyData: z.string().optional(),
      })
      .default({ enabled: false }),
    /** gRPC metadata sent with every call (`TEMPORAL_GRPC_META_*`, or `grpc_meta` in the profile). */
    grpcMetadata: z.record(z.string(), z.string()).optional(),
  }),
  brokerage: z.object({
    environment: z.enum(['qa', 'prod']).default('qa'),
    baseUrl: z.url().optional(),
    preferenceUrl: z.url().optional(),
    csid: z.string().min(1).optional(),
    /** Armored key or a path to one. */
    firmPrivateKey: z.string().min(1).optional(),
    passphrase: z.string().optional(),
    brokeragePublicKey: z.string().min(1).optional(),
    timeoutMs: durationMs.default(30_000),
    /** Accept http SSO URLs on loopback (a local simulator's portal); never in production. */
    ssoAllowInsecureLoopback: z.boolean().default(false),
    /** The firm's brokerage calls a second, across every worker (runtime/call-budget.ts); no cap unless set. */
    callsPerSecond: positiveInt.optional(),
    /** The same per operation: `create=2,validateXML=5` in the environment, an object in the file. */
    callsPerSecondByOperation: z
      .preprocess(operationCounts, z.partialRecord(z.enum(OPERATIONS), positiveInt))
      .optional(),
    /** A call whose slot in the budget is further away than this is put off, its activity retried then. */
    callWaitMaxMs: durationMs.default(20_000),
    /** The brokerage's maintenance windows, no call inside them: `03:00-03:30; Sun 22:00-02:00`. */
    maintenanceWindows: MaintenanceWindowsText,
    /** The clock the windows are read on (an IANA time zone). */
    maintenanceTimeZone: TimeZoneName.default('UTC'),
  }),
  documentStore: z.object({
    /** A directory (the filesystem store, shared by every host) or a database URL (document-store-location.ts). */
    path: z
      .string()
      .default(DEFAULT_DOCUMENT_STORE)
      .superRefine((location, context) => {
        const parsed = parseDocumentStoreLocation(location);
        if ('problem' in parsed) context.addIssue({ code: 'custom', message: parsed.problem });
      }),
  }),
  polling: z.object({
    /** How long a status read waits for others to join its call (see activities/batcher.ts). */
    batchWindowMs: durationMs.default(DEFAULT_BATCH_WINDOW_MS),
    maxAccountsPerCall: positiveInt.default(DEFAULT_MAX_ACCOUNTS_PER_CALL),
    /**
     * How often the firm's status sweep lists the waiting applications from Temporal's visibility and
     * compares what each last read itself; between listings it compares against its snapshot in the
     * engine's database (activities/sweep.ts).
     */
    sweepListingIntervalMs: durationMs.default(DEFAULT_SWEEP_LISTING_INTERVAL_MS),
  }),
  steps: z.object({
    /** How long an application's step retries a configuration error (keys, store) before it is blocked. */
    blockAfterMs: durationMs.default(DEFAULT_STEP_FAILURE_BOUNDS.blockAfterMs),
    /** How many attempts an application's step makes at an anomaly (an unreadable answer, a 4xx) before it is blocked. */
    anomalyAttempts: positiveInt.default(DEFAULT_STEP_FAILURE_BOUNDS.anomalyAttempts),
  }),
  worker: z
    .object({
      /**
       * Workflows kept in memory (measured: about 1.5 MB each, docs/performance.md). Waiting applications
       * need not stay resident: one woken by the status sweep is replayed from its history.
       */
      maxCachedWorkflows: positiveInt.default(DEFAULT_MAX_CACHED_WORKFLOWS),
      maxConcurrentActivityTaskExecutions: positiveInt.optional(),
      maxConcurrentWorkflowTaskExecutions: positiveInt.optional(),
      shutdownGraceTimeMs: durationMs.default(10_000),
      /**
       * Threads that seal requests and open response files off the event loop (eca/crypto-pool.ts); 0 keeps
       * OpenPGP on the event loop. Default: one fewer than the cores, at least 1 and at most 4.
       */
      cryptoThreads: z.coerce.number().int().min(0).max(64).default(DEFAULT_CRYPTO_THREADS),
      isolateExecutionTimeoutMs: durationMs.default(DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS),
      /**
       * Worker Versioning (docs/architecture.md, "Changing workflow code"): the worker polls as one build of
       * a worker deployment, `deploymentName` (the package's name by default) at `buildId` (its version).
       */
      versioning: z.boolean().default(false),
      deploymentName: z.string().min(1).optional(),
      buildId: z.string().min(1).optional(),
    })
    // A deployment or build named without versioning on would be silently ignored: refused by name instead.
    .refine((worker) => worker.versioning || (worker.deploymentName === undefined && worker.buildId === undefined), {
      message: 'WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID apply only with WORKER_VERSIONING=true',
      path: ['versioning'],
    }),
  telemetry: z.object({
    logLevel: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
    /** `json` or `pretty` (runtime/logger.ts); pretty when standard output is a terminal, else JSON. */
    logFormat: z.enum(LOG_FORMATS).optional(),
    /** `host:port` of the Prometheus endpoint (`/metrics`); no endpoint when absent. */
    metricsAddress: z.string().min(1).optional(),
    /** How often `eca_applications` is counted from visibility. */
    applicationsGaugeIntervalMs: durationMs.default(30_000),
  }),
});

export type WorkerConfig = z.infer<typeof schema>;

/** Environment variable → path in the configuration. */
const ENV: Record<string, string> = {
  ECA_TASK_QUEUE: 'temporal.taskQueue',
  ECA_ENVIRONMENT: 'brokerage.environment',
  ECA_BASE_URL: 'brokerage.baseUrl',
  ECA_PREFERENCE_URL: 'brokerage.preferenceUrl',
  ECA_CSID: 'brokerage.csid',
  ECA_FIRM_PRIVATE_KEY: 'brokerage.firmPrivateKey',
  ECA_FIRM_KEY_PASSPHRASE: 'brokerage.passphrase',
  ECA_BROKERAGE_PUBLIC_KEY: 'brokerage.brokeragePublicKey',
  ECA_TIMEOUT_MS: 'brokerage.timeoutMs',
  ECA_SSO_ALLOW_INSECURE_LOOPBACK: 'brokerage.ssoAllowInsecureLoopback',
  ECA_CALLS_PER_SECOND: 'brokerage.callsPerSecond',
  ECA_CALLS_PER_SECOND_BY_OPERATION: 'brokerage.callsPerSecondByOperation',
  ECA_CALL_WAIT_MAX_MS: 'brokerage.callWaitMaxMs',
  ECA_MAINTENANCE_WINDOWS: 'brokerage.maintenanceWindows',
  ECA_MAINTENANCE_TIME_ZONE: 'brokerage.maintenanceTimeZone',
  ECA_DOCUMENT_STORE: 'documentStore.path',
  ECA_POLL_BATCH_WINDOW_MS: 'polling.batchWindowMs',
  ECA_POLL_MAX_ACCOUNTS_PER_CALL: 'polling.maxAccountsPerCall',
  ECA_SWEEP_LISTING_INTERVAL_MS: 'polling.sweepListingIntervalMs',
  ECA_BLOCK_AFTER_MS: 'steps.blockAfterMs',
  ECA_BLOCK_AFTER_ATTEMPTS: 'steps.anomalyAttempts',
  WORKER_MAX_CACHED_WORKFLOWS: 'worker.maxCachedWorkflows',
  WORKER_MAX_CONCURRENT_ACTIVITIES: 'worker.maxConcurrentActivityTaskExecutions',
  WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 'worker.maxConcurrentWorkflowTaskExecutions',
  WORKER_SHUTDOWN_GRACE_MS: 'worker.shutdownGraceTimeMs',
  WORKER_CRYPTO_THREADS: 'worker.cryptoThreads',
  WORKER_ISOLATE_EXECUTION_TIMEOUT_MS: 'worker.isolateExecutionTimeoutMs',
  WORKER_VERSIONING: 'worker.versioning',
  WORKER_DEPLOYMENT_NAME: 'worker.deploymentName',
  WORKER_BUILD_ID: 'worker.buildId',
  ECA_LOG_LEVEL: 'telemetry.logLevel',
  ECA_LOG_FORMAT: 'telemetry.logFormat',
  ECA_METRICS_ADDRESS: 'telemetry.metricsAddress',
  ECA_METRICS_GAUGE_INTERVAL_MS: 'telemetry.applicationsGaugeIntervalMs',
};

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1)!] = value;
}

function readFileConfig(path: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigurationError(`ECA_CONFIG_FILE ${path} cannot be read: ${(error as Error).message}`);
  }
  try {
    const parsed: unknown = JSON.parse(text);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw new ConfigurationError(`ECA_CONFIG_FILE ${path} is not a JSON object: ${(error as Error).message}`);
  }
}

/** `X_FILE` names a file holding X (Docker and Kubernetes secrets); X itself wins when both are set. */
function secretFile(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = env[`${name}_FILE`];
  if (!file) return undefined;
  try {
    return readFileSync(file, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new ConfigurationError(
      `${name}_FILE ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** The standard variable each Temporal setting comes from, for messages about a bad value. */
const TEMPORAL_VARIABLES: Record<string, string> = {
  TEMPORAL_ADDRESS: 'temporal.address',
  TEMPORAL_NAMESPACE: 'temporal.namespace',
  TEMPORAL_API_KEY: 'temporal.apiKey',
  TEMPORAL_TLS_SERVER_NAME: 'temporal.tls.serverName',
};

/** The profile's settings over the file's `temporal` section: a setting the profile has replaces the file's. */
function applyProfile(temporal: Record<string, unknown>, profile: TemporalProfile): void {
  if (profile.address) temporal.address = profile.address;
  if (profile.namespace) temporal.namespace = profile.namespace;
  if (profile.apiKey) temporal.apiKey = profile.apiKey;
  if (profile.grpcMetadata) temporal.grpcMetadata = profile.grpcMetadata;
  if (!profile.tls) return;
  const tls = (temporal.tls ??= {}) as Record<string, unknown>;
  tls.enabled = profile.tls.enabled;
  if (profile.tls.serverName) tls.serverName = profile.tls.serverName;
  for (const [key, value] of [
    ['ca', profile.tls.serverCa],
    ['cert', profile.tls.clientCert],
    ['key', profile.tls.clientKey],
  ] as const) {
    if (value === undefined) continue;
    if ('path' in value) tls[`${key}File`] = value.path;
    else tls[`${key}Data`] = value.data;
  }
}

export function loadWorkerConfig(env: NodeJS.ProcessEnv = process.env): WorkerConfig {
  const raw: Record<string, unknown> = env.ECA_CONFIG_FILE ? readFileConfig(env.ECA_CONFIG_FILE) : {};
  for (const section of ['temporal', 'brokerage', 'documentStore', 'polling', 'steps', 'worker', 'telemetry'])
    raw[section] ??= {};
  const apiKeyFile = env.TEMPORAL_API_KEY ? undefined : secretFile(env, 'TEMPORAL_API_KEY');
  const profileEnv = apiKeyFile === undefined ? env : { ...env, TEMPORAL_API_KEY: apiKeyFile };
  applyProfile(raw.temporal as Record<string, unknown>, loadTemporalProfile(profileEnv));
  for (const [name, path] of Object.entries(ENV)) {
    const value = env[name] || secretFile(env, name);
    if (value === undefined || value === '') continue;
    setPath(
      raw,
      path,
      /\.(enabled|ssoAllowInsecureLoopback|versioning)$/.test(path)
        ? ['1', 'true', 'yes'].includes(value.toLowerCase())
        : value,
    );
  }
  const result = schema.safeParse(raw);
  if (!result.success) {
    const byPath = new Map(Object.entries({ ...ENV, ...TEMPORAL_VARIABLES }).map(([name, path]) => [path, name]));
    const problems = result.error.issues.map((issue) => {
      const path = issue.path.join('.');
      const variable = byPath.get(path);
      return `${variable ? `${variable} (${path})` : path}: ${issue.message}`;
    });
    throw new ConfigurationError(`invalid worker configuration:\n  ${problems.join('\n  ')}`);
  }
  const config = result.data;
  if (config.temporal.apiKey) config.temporal.tls.enabled = true;
  return config;
}

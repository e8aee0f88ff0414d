import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import type {
  NativeConnection,
  WorkerOptions,
  WorkflowBundleOption,
  WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { ConfigurationError, DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS } from '../runtime/config.js';
import type { Tracing } from '../runtime/tracing.js';
import { pingWorker } from '../activities/smoke.js';
import { packageManifest } from '../runtime/package-info.js';
import { codecDataConverter, FAILURE_CONVERTER_PATH } from '../codec/data-converter.js';
import type { CodecKeyring } from '../codec/keyring.js';
import { engineActivityInterceptors } from '../activities/interceptors.js';
import type { EngineInterceptorOptions } from '../activities/interceptors.js';

import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';

export { DEFAULT_TASK_QUEUE };

/** Run from the sources (`.ts`, through tsx) or compiled (`.js`, dist/ of the package). */
const compiled = !import.meta.url.endsWith('.ts');
const moduleExtension = compiled ? '.js' : '.ts';
const workflowsPath = fileURLToPath(new URL(`../workflows/index${moduleExtension}`, import.meta.url));
/** Strict codec mode's workflow interceptor (workflows/plaintext-guard.ts), in every bundle. */
const interceptorModules = [fileURLToPath(new URL(`../workflows/plaintext-guard${moduleExtension}`, import.meta.url))];
/** The bundles `npm run build` writes beside the compiled code (dist/workflow-bundles/). */
const packagedBundleDir = fileURLToPath(new URL('../workflow-bundles', import.meta.url));

/** The OpenTelemetry workflow interceptors (spans of workflows, and trace context into activities). */
const tracingInterceptors = () =>
  createRequire(import.meta.url).resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

const bundles = new Map<string, Promise<WorkflowBundleWithSourceMap>>();

/**
 * Bundles the workflow code once per process and kind: every worker this process creates shares it.
 * With `encryptFailures`, workflow failures carry their message and stack in an (encrypted) payload;
 * `traced` adds the OpenTelemetry workflow interceptors (only when tracing is on: no prebuilt bundle has them).
 */
export function workflowBundle(encryptFailures = false, traced = false): Promise<WorkflowBundleWithSourceMap> {
  const key = `${encryptFailures}:${traced}`;
  let bundle = bundles.get(key);
  if (!bundle) {
    bundle = bundleWorkflowCode({
      workflowsPath,
      workflowInterceptorModules: traced ? [...interceptorModules, tracingInterceptors()] : interceptorModules,
      logger: quietBundlerLogger,
      ...(encryptFailures ? { failureConverterPath: FAILURE_CONVERTER_PATH } : {}),
    });
    bundles.set(key, bundle);
  }
  return bundle;
}

/** The file name of each kind of prebuilt bundle (scripts/build-workflow-bundle.ts writes both). */
export function workflowBundleFile(encryptFailures: boolean): string {
  return encryptFailures ? 'workflows-encrypted-failures.js' : 'workflows.js';
}

/** The variable that names a directory of prebuilt bundles (set in the cluster's worker processes). */
export const WORKFLOW_BUNDLE_DIR_ENV = 'ECA_WORKFLOW_BUNDLE_DIR';

/**
 * Where the workers' prebuilt bundles are: `ECA_WORKFLOW_BUNDLE_DIR`, or, compiled, the package's own;
 * undefined from the sources without the variable, where the worker bundles at start.
 */
export function prebuiltBundleDir(): string | undefined {
  const configured = process.env[WORKFLOW_BUNDLE_DIR_ENV];
  if (configured) return configured;
  return compiled && existsSync(packagedBundleDir) ? packagedBundleDir : undefined;
}

async function workflowBundleOption(encryptFailures: boolean, traced: boolean): Promise<WorkflowBundleOption> {
  const dir = prebuiltBundleDir();
  if (!dir || traced) return workflowBundle(encryptFailures, traced);
  const codePath = join(dir, workflowBundleFile(encryptFailures));
  try {
    await access(codePath);
  } catch {
    throw new ConfigurationError(
      `${WORKFLOW_BUNDLE_DIR_ENV}=${dir}: no ${workflowBundleFile(encryptFailures)} there (build it with scripts/build-workflow-bundle.ts)`,
    );
  }
  return { codePath };
}

const quietBundlerLogger = {
  log: () => undefined,
  trace: () => undefined,
  debug: () => undefined,
  info: () => undefined,
  warn: (message: string) => console.warn(message),
  error: (message: string) => console.error(message),
};

/**
 * `onConfigurationError` and `stepFailureBounds` are the step-failure policy's, which every activity of the
 * worker runs under, with the attempt's abort signal (activities/interceptors.ts `engineActivityInterceptors`).
 */
export interface EngineWorkerOptions extends EngineInterceptorOptions {
  connection: NativeConnection;
  namespace?: string;
  taskQueue?: string;
  /**
   * Activity implementations (activities/engine.ts `createEngineActivities` builds the engine's own);
   * without them the worker hosts only the smoke check's `pingWorker`.
   */
  activities?: object;
  /** Keys of the payload codec (codec/): every payload and failure message this worker writes is encrypted. */
  codec?: CodecKeyring;
  /**
   * With `codec`: what a payload that is not encrypted gets. `refuse` (the default, strict mode): a start
   * fails, an update or query is refused, a signal is dropped (workflows/plaintext-guard.ts); `accept`:
   * taken as it is, for a migration from plaintext histories (`ECA_CODEC_ALLOW_PLAINTEXT=true`).
   */
  plaintext?: 'accept' | 'refuse';
  /**
   * Tracing (runtime/tracing.ts `startTracing`): workflow and activity spans, joined to the trace of
   * whoever started the workflow. The worker then bundles its workflows at start, with the interceptors.
   */
  tracing?: Tracing;
  /**
   * Worker Versioning (docs/architecture.md, "Changing workflow code"): the worker deployment and build
   * this worker belongs to. Its workflows auto-upgrade to the deployment's current version, except the
   * smoke check, which is pinned. Unversioned when absent.
   */
  deployment?: WorkerDeployment;
  /** Any further Temporal worker option (cache size, concurrency, identity...). */
  tuning?: Partial<
    Omit<
      WorkerOptions,
      | 'connection'
      | 'namespace'
      | 'taskQueue'
      | 'activities'
      | 'workflowBundle'
      | 'dataConverter'
      | 'workerDeploymentOptions'
      | 'useVersioning'
      | 'buildId'
      | 'interceptors'
    >
  > &
    IsolateTimeout;
}

/**
 * The SDK reads `isolateExecutionTimeout` from the options it is given, but does not declare it in
 * `WorkerOptions` ("not exposed at the moment"); test/e2e/search-attributes.test.ts checks that it is
 * still applied. See runtime/config.ts DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS for why it is set.
 */
interface IsolateTimeout {
  isolateExecutionTimeout?: number;
}

/** A worker deployment version: the deployment's name and this build's id. */
export interface WorkerDeployment {
  deploymentName: string;
  buildId: string;
}

/** The package's own deployment version: its name, and its version as the build id. */
export function packageDeployment(): WorkerDeployment {
  const { name, version } = packageManifest();
  return { deploymentName: name, buildId: version };
}

/** A worker hosting the engine's workflows and activities on one task queue. */
export async function createEngineWorker(options: EngineWorkerOptions): Promise<Worker> {
  const traced = options.tracing ? await tracingOptions(options.tracing) : undefined;
  const workerOptions: WorkerOptions & IsolateTimeout = {
    connection: options.connection,
    namespace: options.namespace ?? 'default',
    taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
    workflowBundle: await workflowBundleOption(options.codec !== undefined, options.tracing !== undefined),
    activities: options.activities ?? { pingWorker },
    ...(traced && { sinks: traced.sinks }),
    interceptors: {
      ...traced?.interceptors,
      // The activity spans first, around the engine's own: they see what the step-failure policy made of a failure.
      activity: [...(traced?.interceptors?.activity ?? []), ...engineActivityInterceptors(options)],
    },
    ...(options.codec
      ? { dataConverter: codecDataConverter(options.codec, { plaintext: options.plaintext ?? 'refuse' }) }
      : {}),
    // See DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS: the SDK's 5 s aborts the process on a starved host.
    isolateExecutionTimeout: DEFAULT_ISOLATE_EXECUTION_TIMEOUT_MS,
    ...(options.deployment && {
      workerDeploymentOptions: {
        version: options.deployment,
        useWorkerVersioning: true,
        // Applications live for weeks: they move to each new current version, changed behind patches.
        defaultVersioningBehavior: 'AUTO_UPGRADE',
      },
    }),
    ...options.tuning,
  };
  return Worker.create(workerOptions);
}

/**
 * The worker's side of tracing: activity spans, and the sink workflow spans leave the sandbox by. A
 * replay worker of a traced bundle needs the sink registered too (it never calls it while replaying).
 */
export async function tracingOptions({
  spanProcessor,
  resource,
}: Pick<Tracing, 'spanProcessor' | 'resource'>): Promise<Pick<WorkerOptions, 'interceptors' | 'sinks'>> {
  const otel = await import('@temporalio/interceptors-opentelemetry');
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new otel.OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new otel.OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: otel.makeWorkflowExporter(spanProcessor, resource) },
  };
}

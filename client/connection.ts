/**
 * Connecting the client API to Temporal and the document store, from options or the environment
 * (the same variables as the worker: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS*, TEMPORAL_PROFILE and TEMPORAL_CONFIG_FILE, ECA_TASK_QUEUE, ECA_CSID, ECA_DOCUMENT_STORE).
 */
import { Client, Connection } from '@temporalio/client';
import type { ClientOptions } from '@temporalio/client';
import { tracingExporter } from '../runtime/tracing.js';
import { openDocumentStore } from '../runtime/document-store-location.js';
import { ConfigurationError, loadWorkerConfig } from '../runtime/config.js';
import { temporalConnectionOptions } from '../runtime/temporal-connection.js';
import { codecDataConverter } from '../codec/data-converter.js';
import { configuredCodecKeyring } from '../codec/keyring.js';
import type { EngineContext } from './context.js';
import { InvalidInputError, parseDurationMs, TemporalUnavailableError } from './errors.js';

export interface ConnectOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  csid?: string;
  documentStore?: string;
  apiKey?: string;
  /**
   * The slot of the firm's status sweep it starts (ECA_POLL_INTERVAL, e.g. `2 seconds`): for a simulator
   * whose business days pass in seconds. Production leaves it unset.
   */
  pollInterval?: string;
}

function pollEvery(ms: number): NonNullable<EngineContext['settings']> {
  return { pollIntervals: { tracking: ms } };
}

export interface ConnectedEngine extends EngineContext {
  connection: Connection;
  close(): Promise<void>;
}

/**
 * A connection to Temporal alone (no firm, no document store), for namespace setup and other
 * server-level steps; settings from the options over the environment, as for `connectEngine`.
 */
export async function connectTemporal(
  options: Pick<ConnectOptions, 'address' | 'apiKey'> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ connection: Connection; namespace: string; taskQueue: string; address: string }> {
  const config = loadWorkerConfig(env).temporal;
  const address = options.address || config.address;
  try {
    const connectionOptions = await temporalConnectionOptions({
      ...config,
      address,
      apiKey: options.apiKey ?? config.apiKey,
      tls: { ...config.tls, enabled: config.tls.enabled || options.apiKey !== undefined },
    });
    const connection = await Connection.connect({ ...connectionOptions, connectTimeout: '5 seconds' });
    return { connection, namespace: config.namespace, taskQueue: config.taskQueue, address };
  } catch (error) {
    if (error instanceof ConfigurationError) throw error;
    throw new TemporalUnavailableError(address, error);
  }
}

/**
 * With tracing asked for (OTEL_* variables, runtime/tracing.ts), the client interceptor: starting an
 * application, or any message to it, opens a span its workflow and activities continue. The spans go to
 * the process's OpenTelemetry SDK (the CLI starts the engine's own; an onboarding system may have its own).
 */
async function tracingInterceptors(env: NodeJS.ProcessEnv): Promise<Pick<ClientOptions, 'interceptors'>> {
  if (!tracingExporter(env)) return {};
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
  return { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}

/** Temporal, the codec and the document store, for every firm: what a multi-firm service (api/) holds. */
export interface ConnectedEngineBase extends Omit<EngineContext, 'csid'> {
  connection: Connection;
  close(): Promise<void>;
}

/** A connection for every firm: each call then names its firm in its context (`{ ...base, csid }`). */
export async function connectEngineBase(
  options: Omit<ConnectOptions, 'csid'> = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConnectedEngineBase> {
  const keyring = configuredCodecKeyring(env);
  const dataConverter = keyring && codecDataConverter(keyring);
  // Documents at rest under the same keys as the payloads, in a directory or the database
  // (runtime/document-store-location.ts, ECA_DOCUMENT_STORE or its _FILE), opened at the first document.
  const store = await openDocumentStore(options.documentStore ?? loadWorkerConfig(env).documentStore.path, {
    keyring,
    lazy: true,
  });
  const { connection, namespace, taskQueue } = await connectTemporal(options, env);
  const client = new Client({
    connection,
    ...(await tracingInterceptors(env)),
    namespace: options.namespace || namespace,
    // The workers' payload encryption (ECA_CODEC_KEYS): inputs are written, and results read, encrypted.
    dataConverter,
  });
  const pollInterval = options.pollInterval ?? env.ECA_POLL_INTERVAL;
  const pollMs =
    pollInterval === undefined ? undefined : parseDurationMs(pollInterval, 'ECA_POLL_INTERVAL', '"2 seconds"');
  return {
    client,
    settings: pollMs === undefined ? undefined : pollEvery(pollMs),
    pollIntervalMs: pollMs,
    ...(pollMs === undefined ? {} : { sweepInterval: pollMs }),
    connection,
    taskQueue: options.taskQueue ?? taskQueue,
    store,
    close: async () => {
      await connection.close();
      await store.close();
    },
  };
}

export async function connectEngine(
  options: ConnectOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConnectedEngine> {
  const csid = options.csid ?? env.ECA_CSID;
  if (!csid) throw new InvalidInputError('ECA_CSID', "the firm's client service id is required (--csid or ECA_CSID)");
  return { ...(await connectEngineBase(options, env)), csid };
}

/**
 * Connecting the client API to Temporal and the document store, from options or the environment
 * (the same variables as the worker: TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY,
 * TEMPORAL_TLS*, ECA_TASK_QUEUE, ECA_CSID, ECA_DOCUMENT_STORE).
 */
import { readFile } from 'node:fs/promises';
import { Client, Connection } from '@temporalio/client';
import type { ConnectionOptions } from '@temporalio/client';
import { msToNumber } from '@temporalio/common/lib/time.js';
import { FileDocumentStore } from '../activities/document-store.js';
import { dataConverterFromEnv } from '../codec/data-converter.js';
import { DEFAULT_TASK_QUEUE } from './applications.js';
import type { EngineContext } from './applications.js';
import { InvalidInputError, TemporalUnavailableError } from './errors.js';

export interface ConnectOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
  csid?: string;
  documentStore?: string;
  apiKey?: string;
  /**
   * One poll interval for every waiting state, approval included (ECA_POLL_INTERVAL, e.g. `2 seconds`):
   * for a simulator whose business days pass in seconds. Production leaves it unset.
   */
  pollInterval?: string;
}

function pollEvery(interval: string): NonNullable<EngineContext['settings']> {
  let ms: number;
  try {
    ms = msToNumber(interval.trim() as Parameters<typeof msToNumber>[0]);
  } catch {
    ms = Number.NaN;
  }
  if (!(ms > 0))
    throw new InvalidInputError('ECA_POLL_INTERVAL', `"${interval}" is not a duration such as "2 seconds"`);
  return { pollIntervals: { tracking: ms, documents: ms, portal: ms, approval: ms } };
}

export interface ConnectedEngine extends EngineContext {
  connection: Connection;
  close(): Promise<void>;
}

async function tlsOptions(env: NodeJS.ProcessEnv, apiKey: string | undefined): Promise<ConnectionOptions['tls']> {
  const enabled = apiKey !== undefined || ['1', 'true', 'yes'].includes((env.TEMPORAL_TLS ?? '').toLowerCase());
  if (!enabled) return undefined;
  const read = async (name: string) => {
    const path = env[name];
    if (!path) return undefined;
    try {
      return await readFile(path);
    } catch {
      throw new InvalidInputError(name, `${path} cannot be read`);
    }
  };
  const [ca, crt, key] = await Promise.all([
    read('TEMPORAL_TLS_CA'),
    read('TEMPORAL_TLS_CERT'),
    read('TEMPORAL_TLS_KEY'),
  ]);
  return {
    serverNameOverride: env.TEMPORAL_TLS_SERVER_NAME,
    serverRootCACertificate: ca,
    clientCertPair: crt && key ? { crt, key } : undefined,
  };
}

export async function connectEngine(
  options: ConnectOptions = {},
  env: NodeJS.ProcessEnv = process.env,
): Promise<ConnectedEngine> {
  const address = options.address ?? env.TEMPORAL_ADDRESS ?? 'localhost:7233';
  const csid = options.csid ?? env.ECA_CSID;
  if (!csid) throw new InvalidInputError('ECA_CSID', "the firm's client service id is required (--csid or ECA_CSID)");
  const dataConverter = dataConverterFromEnv(env);
  const apiKey = options.apiKey ?? env.TEMPORAL_API_KEY;
  let connection: Connection;
  try {
    connection = await Connection.connect({
      address,
      apiKey,
      tls: await tlsOptions(env, apiKey),
      connectTimeout: '5 seconds',
    });
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new TemporalUnavailableError(address, error);
  }
  const client = new Client({
    connection,
    namespace: options.namespace ?? env.TEMPORAL_NAMESPACE ?? 'default',
    // The workers' payload encryption (ECA_CODEC_KEYS): inputs are written, and results read, encrypted.
    dataConverter,
  });
  const pollInterval = options.pollInterval ?? env.ECA_POLL_INTERVAL;
  return {
    client,
    settings: pollInterval ? pollEvery(pollInterval) : undefined,
    connection,
    csid,
    taskQueue: options.taskQueue ?? env.ECA_TASK_QUEUE ?? DEFAULT_TASK_QUEUE,
    store: new FileDocumentStore(options.documentStore ?? env.ECA_DOCUMENT_STORE ?? '.data/documents'),
    close: () => connection.close(),
  };
}

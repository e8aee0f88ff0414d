/**
 * Connection options for Temporal from the configuration (address, API key, TLS files): one reading
 * for the worker's native connection and the client's connection alike.
 */
import { readFile } from 'node:fs/promises';
import { ConfigurationError } from './config.js';
import type { WorkerConfig } from './config.js';

export interface TemporalConnectionOptions {
  address: string;
  apiKey?: string;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
}

async function readTlsFile(path: string | undefined, variable: string): Promise<Buffer | undefined> {
  if (!path) return undefined;
  try {
    return await readFile(path);
  } catch {
    throw new ConfigurationError(`${variable} ${path} cannot be read`);
  }
}

export async function temporalConnectionOptions(config: WorkerConfig['temporal']): Promise<TemporalConnectionOptions> {
  const options: TemporalConnectionOptions = { address: config.address };
  if (config.apiKey) options.apiKey = config.apiKey;
  if (config.tls.enabled) {
    const [ca, crt, key] = await Promise.all([
      readTlsFile(config.tls.caFile, 'TEMPORAL_TLS_CA'),
      readTlsFile(config.tls.certFile, 'TEMPORAL_TLS_CERT'),
      readTlsFile(config.tls.keyFile, 'TEMPORAL_TLS_KEY'),
    ]);
    if ((crt === undefined) !== (key === undefined)) {
      throw new ConfigurationError('TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together: give both or neither');
    }
    options.tls = {
      serverNameOverride: config.tls.serverName,
      serverRootCACertificate: ca,
      clientCertPair: crt && key ? { crt, key } : undefined,
    };
  }
  return options;
}

/**
 * Connection options for Temporal from the configuration (address, API key, TLS files or their
 * contents, gRPC metadata): one reading for the worker's native connection and the client's alike.
 */
import { readFile } from 'node:fs/promises';
import { ConfigurationError } from './config-error.js';
import type { WorkerConfig } from './config.js';

export interface TemporalConnectionOptions {
  address: string;
  apiKey?: string;
  metadata?: Record<string, string>;
  tls?: {
    serverNameOverride?: string;
    serverRootCACertificate?: Buffer;
    clientCertPair?: { crt: Buffer; key: Buffer };
  };
}

async function readTlsFile(
  path: string | undefined,
  data: string | undefined,
  variable: string,
): Promise<Buffer | undefined> {
  if (data) return Buffer.from(data);
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
  if (config.grpcMetadata) options.metadata = config.grpcMetadata;
  if (config.tls.enabled) {
    const { tls } = config;
    const [ca, crt, key] = await Promise.all([
      readTlsFile(tls.caFile, tls.caData, 'TEMPORAL_TLS_SERVER_CA_CERT_PATH'),
      readTlsFile(tls.certFile, tls.certData, 'TEMPORAL_TLS_CLIENT_CERT_PATH'),
      readTlsFile(tls.keyFile, tls.keyData, 'TEMPORAL_TLS_CLIENT_KEY_PATH'),
    ]);
    if ((crt === undefined) !== (key === undefined)) {
      throw new ConfigurationError(
        'TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together: give both or neither',
      );
    }
    options.tls = {
      serverNameOverride: config.tls.serverName,
      serverRootCACertificate: ca,
      clientCertPair: crt && key ? { crt, key } : undefined,
    };
  }
  return options;
}

/**
 * Where Temporal is, read as the `temporal` CLI and every Temporal SDK read it (`@temporalio/envconfig`):
 * a profile (`TEMPORAL_PROFILE`, default `default`) of the TOML file `TEMPORAL_CONFIG_FILE` (or
 * `~/.config/temporalio/temporal.toml`), overlaid by the standard variables (`TEMPORAL_ADDRESS`,
 * `TEMPORAL_NAMESPACE`, `TEMPORAL_API_KEY`, `TEMPORAL_TLS`, `TEMPORAL_TLS_CLIENT_CERT_PATH`,
 * `TEMPORAL_TLS_CLIENT_KEY_PATH`, `TEMPORAL_TLS_SERVER_CA_CERT_PATH`, `TEMPORAL_TLS_SERVER_NAME`, their
 * `_DATA` forms, `TEMPORAL_GRPC_META_*`). The engine's earlier names `TEMPORAL_TLS_CA`, `_CERT` and
 * `_KEY` still work, each with a deprecation warning naming its replacement.
 */
import { existsSync } from 'node:fs';
import { loadClientConfigProfile } from '@temporalio/envconfig';
import type { ClientConfigProfile } from '@temporalio/envconfig';
import { ConfigurationError } from './config-error.js';

/** The engine's earlier names and the standard ones that replace them. */
export const DEPRECATED_TEMPORAL_VARIABLES: Readonly<Record<string, string>> = {
  TEMPORAL_TLS_CA: 'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  TEMPORAL_TLS_CERT: 'TEMPORAL_TLS_CLIENT_CERT_PATH',
  TEMPORAL_TLS_KEY: 'TEMPORAL_TLS_CLIENT_KEY_PATH',
};

/** A TLS file given by path or by its contents. */
export type TlsSource = { path: string } | { data: string };

/** The connection settings of the profile, in the engine's configuration's terms. */
export interface TemporalProfile {
  address?: string;
  namespace?: string;
  apiKey?: string;
  /** Absent: the profile says nothing of TLS; `enabled: false`: TEMPORAL_TLS=false or `disabled` in the file. */
  tls?: {
    enabled: boolean;
    serverName?: string;
    serverCa?: TlsSource;
    clientCert?: TlsSource;
    clientKey?: TlsSource;
  };
  grpcMetadata?: Record<string, string>;
}

const warned = new Set<string>();

/** The standard names, the earlier ones mapped onto them; both with different values is an error. */
function standardNames(env: NodeJS.ProcessEnv, warn: (message: string) => void): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined && value !== '') vars[name] = value;
  for (const [old, replacement] of Object.entries(DEPRECATED_TEMPORAL_VARIABLES)) {
    const value = vars[old];
    if (value === undefined) continue;
    delete vars[old];
    const current = vars[replacement];
    if (current !== undefined && current !== value) {
      throw new ConfigurationError(`${old} and ${replacement} name different files: set only ${replacement}`);
    }
    vars[replacement] = value;
    if (!warned.has(old)) {
      warned.add(old);
      warn(`${old} is deprecated: use ${replacement}`);
    }
  }
  return vars;
}

function source(value: { path: string } | { data: string | Uint8Array } | undefined): TlsSource | undefined {
  if (value === undefined) return undefined;
  if ('path' in value) return { path: value.path };
  return { data: typeof value.data === 'string' ? value.data : new TextDecoder().decode(value.data) };
}

function fromProfile(profile: ClientConfigProfile): TemporalProfile {
  const result: TemporalProfile = {};
  if (profile.address) result.address = profile.address;
  if (profile.namespace) result.namespace = profile.namespace;
  if (profile.apiKey) result.apiKey = profile.apiKey;
  if (profile.tls) {
    result.tls = {
      enabled: profile.tls.disabled !== true,
      serverName: profile.tls.serverName,
      serverCa: source(profile.tls.serverCACert),
      clientCert: source(profile.tls.clientCert),
      clientKey: source(profile.tls.clientKey),
    };
  }
  if (profile.grpcMeta && Object.keys(profile.grpcMeta).length > 0) result.grpcMetadata = { ...profile.grpcMeta };
  return result;
}

/**
 * The connection profile of `env`. A named config file that does not exist, a profile the file does not
 * have, or a file that is not TOML is a ConfigurationError naming the file and the profile.
 */
export function loadTemporalProfile(
  env: NodeJS.ProcessEnv = process.env,
  warn: (message: string) => void = (message) => process.emitWarning(message, 'DeprecationWarning'),
): TemporalProfile {
  const vars = standardNames(env, warn);
  const file = vars.TEMPORAL_CONFIG_FILE;
  if (file !== undefined && !existsSync(file)) {
    throw new ConfigurationError(`TEMPORAL_CONFIG_FILE ${file} does not exist`);
  }
  const profileName = vars.TEMPORAL_PROFILE ?? 'default';
  try {
    return fromProfile(loadClientConfigProfile({ overrideEnvVars: vars }));
  } catch (error) {
    const where = file ?? 'the Temporal config file (~/.config/temporalio/temporal.toml)';
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigurationError(`Temporal profile "${profileName}" from ${where}: ${reason}`);
  }
}

/**
 * `npm run api` / `eca-api`: the onboarding API as a process. Temporal, codec keys and the document
 * store come from the worker's variables (TEMPORAL_*, ECA_CODEC_KEYS, ECA_DOCUMENT_STORE); API keys
 * from the engine's database (ECA_DATABASE_URL); where it listens from ECA_API_HOST / ECA_API_PORT.
 * `--help` lists the variables; any other argument is refused (exit 2).
 */
import { serviceCommandLine } from '../runtime/command-line.js';
import type { FastifyRequest } from 'fastify';
import { DEFAULT_CALL_TIMEOUT_MS } from './call-timeout.js';
import { z } from 'zod';
import { connectEngineBase } from '../client/connection.js';
import { configuredCodecKeyring } from '../codec/keyring.js';
import { ConfigurationError } from '../runtime/config-error.js';
import { environmentFirmOf, FirmBrokerages } from '../runtime/firm-brokerages.js';
import { FirmRegistry } from '../runtime/firms.js';
import { registeredFirms } from './firm.js';
import { loadWorkerConfig } from '../runtime/config.js';
import { announcer, createLogger } from '../runtime/logger.js';
import { LOG_FORMATS } from '../runtime/log-format.js';
import { databaseUrlFromEnv, openDatabase } from '../runtime/database/index.js';
import { DEFAULT_DATABASE_URL } from '../runtime/database/url.js';
import { DEFAULT_DOCUMENT_STORE } from '../runtime/document-store-location.js';
import { DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import { databaseKeyVerifier, DEFAULT_KEY_CACHE_MS } from './keys.js';
import { packageManifest } from '../runtime/package-info.js';
import { createApiMetrics, parseMetricsAddress, serveMetrics } from './metrics.js';
import { buildApi, DEFAULT_BODY_LIMIT, DEFAULT_RATE_LIMIT_PER_MINUTE, readinessCheck } from './server.js';

const settings = z.object({
  ECA_API_HOST: z.string().min(1).default('127.0.0.1'),
  ECA_API_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  ECA_API_BODY_LIMIT: z.coerce.number().int().min(1024).default(DEFAULT_BODY_LIMIT),
  ECA_API_RATE_LIMIT: z.coerce.number().int().min(1).default(DEFAULT_RATE_LIMIT_PER_MINUTE),
  ECA_API_KEY_CACHE_MS: z.coerce.number().int().min(0).max(300_000).default(DEFAULT_KEY_CACHE_MS),
  ECA_API_CALL_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(DEFAULT_CALL_TIMEOUT_MS),
  /** host:port of the Prometheus metrics listener (GET /metrics); none when unset. */
  ECA_METRICS_ADDRESS: z
    .string()
    .optional()
    .superRefine((address, context) => {
      if (address === undefined) return;
      try {
        parseMetricsAddress(address);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  ECA_LOG_LEVEL: z.enum(['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR']).default('INFO'),
  ECA_LOG_FORMAT: z.enum(LOG_FORMATS).optional(),
});

export function apiSettings(env: NodeJS.ProcessEnv): z.output<typeof settings> {
  const parsed = settings.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigurationError(`invalid API settings: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** What `--help` lists after the usage: the variables the API reads (the settings above, and the engine's). */
const ENVIRONMENT = `
Environment: the API
  ECA_API_HOST                 the address to listen on (127.0.0.1)
  ECA_API_PORT                 the port to listen on, 0 for any free one (8080)
  ECA_API_BODY_LIMIT           the largest request body, in bytes (${DEFAULT_BODY_LIMIT})
  ECA_API_RATE_LIMIT           requests a minute per API key (${DEFAULT_RATE_LIMIT_PER_MINUTE})
  ECA_API_KEY_CACHE_MS         how long a checked key holds before the database is asked again (${DEFAULT_KEY_CACHE_MS})
  ECA_API_CALL_TIMEOUT_MS      how long a request waits on Temporal and the workflows (${DEFAULT_CALL_TIMEOUT_MS})
  ECA_METRICS_ADDRESS          host:port of a Prometheus endpoint, /metrics (none)
  ECA_LOG_LEVEL                TRACE, DEBUG, INFO, WARN or ERROR (INFO)
  ECA_LOG_FORMAT               json or pretty (pretty on a terminal, JSON lines otherwise)

Environment: the engine's, as eca-worker reads them (eca-worker --help)
  ECA_DATABASE_URL             the engine's database, with the API keys (${DEFAULT_DATABASE_URL})
  TEMPORAL_ADDRESS             the Temporal frontend, host:port (localhost:7233)
  TEMPORAL_NAMESPACE           the namespace (default)
  TEMPORAL_*                   API key, TLS, profile and config file: Temporal's standard variables
  ECA_TASK_QUEUE               the workers' task queue (${DEFAULT_TASK_QUEUE})
  ECA_CONFIG_FILE              the workers' JSON settings file, under the variables
  ECA_DOCUMENT_STORE           the document store: a directory or a database URL (${DEFAULT_DOCUMENT_STORE})
  ECA_CODEC_KEYS               the payload keys, as the workers' (or ECA_CODEC_KEYS_FILE)
  ECA_CODEC_DISABLED           true: payloads are not encrypted (local experiments only)
  ECA_CSID                     a firm seeded into the firms at start, with its keys and brokerage settings (eca firms)
  ECA_POLL_INTERVAL            the poll interval of the applications it starts (compressed time only)
`;

/** The command line: `--help` prints the usage (0), anything else is refused (2); undefined: run the service. */
function commandLine(argv: string[]): number | undefined {
  return serviceCommandLine(argv, {
    name: 'eca-api',
    description:
      'The onboarding API over HTTP: firms start, follow and act on their applications with API keys ' +
      "kept in the engine's database (OpenAPI at /openapi.json, reference at /docs). Configured by the " +
      'environment below; SIGINT or SIGTERM stops it.',
    environment: ENVIRONMENT,
  });
}

/** Request logs name the route's pattern, never the path's ids nor the query. */
const requestLog = (request: FastifyRequest) => ({
  method: request.method,
  route: request.routeOptions.url ?? 'unmatched',
});

async function main(): Promise<void> {
  const exitCode = commandLine(process.argv);
  if (exitCode !== undefined) {
    process.exitCode = exitCode;
    return;
  }
  const env = apiSettings(process.env);
  const log = createLogger({
    name: 'eca-api',
    level: env.ECA_LOG_LEVEL,
    format: env.ECA_LOG_FORMAT,
    serializers: { req: requestLog },
  });
  const announce = announcer(log);
  const db = await openDatabase(databaseUrlFromEnv(process.env));
  const engine = await connectEngineBase({}, process.env);
  // The firms of the engine's database, their keys sealed with the workers' codec keys; the firm of ECA_CSID
  // and its keys (the worker's variables), when set, seeded there first.
  const keyring = configuredCodecKeyring();
  const brokerageConfig = loadWorkerConfig(process.env).brokerage;
  const registry = new FirmRegistry(db, { keyring, environmentFirm: await environmentFirmOf(brokerageConfig) });
  // The workers' variables decide the firm's settings and keys; the API only adds it when no worker has yet.
  await registry.seedEnvironment({ addOnly: true });
  const firms = registeredFirms(
    new FirmBrokerages(registry, {
      timeoutMs: brokerageConfig.timeoutMs,
      ssoAllowInsecureLoopback: brokerageConfig.ssoAllowInsecureLoopback,
      callWaitMaxMs: brokerageConfig.callWaitMaxMs,
      database: db,
    }),
  );
  // The metrics and where they are served, together: both or neither.
  const metrics =
    env.ECA_METRICS_ADDRESS === undefined
      ? undefined
      : { address: env.ECA_METRICS_ADDRESS, registry: createApiMetrics() };
  const app = await buildApi({
    engine,
    verifyKey: databaseKeyVerifier(db, { cacheMs: env.ECA_API_KEY_CACHE_MS }),
    firms,
    registry,
    checkReady: readinessCheck({
      Temporal: () => engine.client.workflowService.getSystemInfo({}),
      'the engine database': () => db.query('SELECT 1'),
    }),
    bodyLimit: env.ECA_API_BODY_LIMIT,
    rateLimitPerMinute: env.ECA_API_RATE_LIMIT,
    callTimeoutMs: env.ECA_API_CALL_TIMEOUT_MS,
    logger: log,
    version: packageManifest().version,
    metrics: metrics?.registry,
    database: db,
    // The workers' keys: the webhook secrets the API seals are the ones their deliveries open.
    keyring,
  });
  let metricsListener: Awaited<ReturnType<typeof serveMetrics>> | undefined;
  let address: string;
  try {
    // The metrics listener first: a taken port stops the start before the API serves anyone.
    metricsListener = metrics ? await serveMetrics(metrics.registry, metrics.address) : undefined;
    address = await app.listen({ host: env.ECA_API_HOST, port: env.ECA_API_PORT });
  } catch (error) {
    await metricsListener?.close();
    await app.close();
    await engine.close();
    await db.close();
    throw error;
  }
  announce.info(
    `eca api on ${address} (OpenAPI at ${address}/openapi.json, reference at ${address}/docs` +
      `${metricsListener ? `, metrics at ${metricsListener.url}/metrics` : ''})`,
  );
  const stop = async () => {
    await app.close();
    await metricsListener?.close();
    await engine.close();
    await db.close();
    announce.info('eca api stopped');
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigurationError ? error.message : error);
  process.exitCode = 1;
});

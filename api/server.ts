/**
 * The onboarding API: an HTTP/JSON service in front of the client API, for onboarding systems in any
 * language. It holds the Temporal connection, the codec keys and the document store; callers hold
 * only an API key of their firm.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import fastifyRateLimit from '@fastify/rate-limit';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { contractTransform, contractTransformObject, installLocations } from './contract.js';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { applicationRoutes, contextOf } from './applications.js';
import { getState } from '../client/index.js';
import type { EngineBase } from './applications.js';
import { DEFAULT_FAILED_KEYS_PER_MINUTE, FailedKeys, installAuth } from './auth.js';
import { DEFAULT_CALL_TIMEOUT_MS, installCallTimeouts } from './call-timeout.js';
import { firmRoutes } from './firm.js';
import type { ApiFirms, FirmBrokerage } from './firm.js';
import { singleFirm } from './firm.js';
import { adminRoutes } from './admin.js';
import type { FirmRegistry } from '../runtime/firms.js';
import type { KeyVerifier } from './auth.js';
import { countUnrouted, installMetrics } from './metrics.js';
import { eventRoutes } from './events.js';
import { webhookRoutes } from './webhooks.js';
import { deadlineRoutes } from './deadlines.js';
import type { CodecKeyring } from '../codec/keyring.js';
import type { EventStreamOptions } from './events.js';
import { EventLog } from '../runtime/events.js';
import type { Queryable } from '../runtime/database/index.js';
import type { ApiMetrics } from './metrics.js';
import { ApiProblem, installProblemHandlers, sendProblem } from './problems.js';
import { installIdempotency } from './idempotency.js';
import { problems } from './schemas.js';

/** The largest request body: an application with its PDFs, base64 (checked while it streams in). */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

export interface ApiOptions {
  engine: EngineBase;
  verifyKey: KeyVerifier;
  /**
   * The firms the service serves (api/firm.ts `registeredFirms`): their brokerage clients (SSO links, language
   * preferences), and which may take new work. Without: `brokerage`'s firm alone has a client, and no firm is refused.
   */
  firms?: ApiFirms;
  /** The brokerage client of one firm, where no `firms` are given. */
  brokerage?: FirmBrokerage;
  /** The admin role's routes: the firms (this registry) and every firm's API keys. */
  registry?: FirmRegistry;
  /**
   * Whether the service can serve: Temporal and the key database answer (see {@link readinessCheck}). What it
   * throws is logged; the answer names only the part, as a {@link NotReadyError} gives it.
   */
  checkReady?: () => Promise<void>;
  bodyLimit?: number;
  /** How long a request may wait on the engine (default 30 s); past it, 504 TIMEOUT. */
  callTimeoutMs?: number;
  /** Requests per minute and API key (default 600); over it, 429 with Retry-After. */
  rateLimitPerMinute?: number;
  /**
   * Requests per minute and client address without a valid API key (default 30); over it, every request of
   * the address that needs a key is refused (429 with Retry-After) until its minute ends.
   */
  failedKeysPerMinute?: number;
  /** Where the service logs (runtime/logger.ts); silent without. */
  logger?: FastifyBaseLogger;
  /** The version in the OpenAPI document. */
  version?: string;
  /** Where every answer is counted and timed (api/metrics.ts); served by the caller on a listener of its own. */
  metrics?: ApiMetrics;
  /**
   * The engine's database, which the workers write the lifecycle events to: the service serves them
   * (/v1/events), the firm's webhook endpoints and deadline policies, and keeps the idempotent answers.
   */
  database: Queryable;
  /** How event streams look for new events and keep quiet connections open. */
  eventStream?: EventStreamOptions;
  /** The payload codec's keys, which seal the webhook secrets: the workers' own (ECA_CODEC_KEYS); without, stored in the clear. */
  keyring?: CodecKeyring;
}

export const DEFAULT_RATE_LIMIT_PER_MINUTE = 600;

/** A caller's request id is kept when it is a plain token; otherwise the service makes one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    loggerInstance: options.logger,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Route parameters are ids of 200 characters at most; a longer one is refused by its schema.
    routerOptions: { maxParamLength: 256 },
    // Errors the router meets before any route (a malformed percent-encoding...) are problems too.
    frameworkErrors: (error, request, reply) => {
      void sendProblem(request, reply, 'INVALID_INPUT', `the URL is malformed: ${error.message}`, 'url');
      // Answered before any hook runs: counted here.
      countUnrouted(options.metrics, request.method, 400, 'INVALID_INPUT');
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installProblemHandlers(app);
  installLocations(app);
  if (options.metrics) installMetrics(app, options.metrics);
  installCallTimeouts(app, options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS);
  // An application XML alone may be sent as it is (`curl --data-binary @application.xml`): it is read as
  // `{ applicationXml }`, which the start and resubmit routes take.
  app.addContentTypeParser(['application/xml', 'text/xml'], { parseAs: 'string' }, (_request, body, done) =>
    done(null, { applicationXml: body }),
  );
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    reply.header('x-content-type-options', 'nosniff');
  });

  await registerDocs(app, options.version);

  const firms = options.firms ?? singleFirm(options.brokerage);
  installAuth(
    app,
    options.verifyKey,
    new FailedKeys(options.failedKeysPerMinute ?? DEFAULT_FAILED_KEYS_PER_MINUTE),
    firms,
  );
  // Per API key, after the key is checked (public routes carry none and are not limited).
  await app.register(fastifyRateLimit, {
    global: true,
    hook: 'preHandler',
    max: options.rateLimitPerMinute ?? DEFAULT_RATE_LIMIT_PER_MINUTE,
    timeWindow: 60_000,
    // `RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Reset` (the IETF draft's names), `Retry-After` on a 429.
    enableDraftSpec: true,
    keyGenerator: (request) => request.principal?.keyId ?? 'public',
    allowList: (request) => request.principal === undefined,
    errorResponseBuilder: (_request, context) =>
      new ApiProblem(
        'RATE_LIMITED',
        `over ${context.max} requests a minute for this API key; retry in ${context.after}`,
      ),
  });
  // `Idempotency-Key` on the routes that create something: after the key, the role and the rate limit.
  installIdempotency(app, options.database, options.keyring);
  const api = app.withTypeProvider<ZodTypeProvider>();
  serviceRoutes(api, options.checkReady);
  api.get('/openapi.json', { schema: { hide: true }, handler: () => Promise.resolve(app.swagger()) });
  applicationRoutes(app, options.engine);
  firmRoutes(api, options.engine, firms);
  if (options.registry) adminRoutes(api, options.registry, options.database);
  const ctxOf = contextOf(options.engine);
  // An application's events are found by its external id, whichever reference the request gives.
  const resolve = async (request: FastifyRequest, reference: string) =>
    (await getState(ctxOf(request), reference)).externalId;
  eventRoutes(app, new EventLog(options.database), resolve, options.eventStream);
  webhookRoutes(app, { database: options.database, engine: options.engine, keyring: options.keyring });
  deadlineRoutes(app, options.database);
  await app.ready();
  return app;
}

/** The OpenAPI document (at /openapi.json) and its interactive reference (at /docs). */
async function registerDocs(app: FastifyInstance, version = '0.1.0'): Promise<void> {
  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ECA onboarding API',
        version,
        license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
        description: [
          'Start and follow brokerage account applications. Every request but health, readiness and this description carries an API key of one firm: `Authorization: Bearer <key>`; `x-roles` names the roles whose keys may call an operation.',
          '',
          'Errors are RFC 9457 problem details (`application/problem+json`) with a stable `code`; `field` names the offending input. Request bodies refuse unknown fields.',
          '',
          'Answers are open to additions: within this major version a release may add fields, lifecycle states, event types, problem codes and operations (`x-extensible-enum` lists the values known today), and a client must read them without failing. It never removes or renames a field, changes a type, or makes an optional request field required.',
        ].join('\n'),
      },
      servers: [
        { url: 'http://localhost:8080', description: 'The service as `eca-api` listens by default (ECA_API_PORT)' },
      ],
      tags: [
        { name: 'service', description: 'Health and readiness, for load balancers (no key)' },
        { name: 'applications', description: 'Account applications: start, follow, documents, staff actions' },
        { name: 'events', description: 'The lifecycle events of the firm’s applications: pages or server-sent events' },
        { name: 'webhooks', description: 'Endpoints the events are delivered to, signed (Standard Webhooks)' },
        { name: 'deadlines', description: 'How long an application may wait in each state' },
        { name: 'account holders', description: 'Single sign-on links and language preferences' },
        { name: 'maintenance', description: 'Update functions on open accounts' },
        { name: 'daily documents', description: 'The daily document submissions' },
        { name: 'administration', description: 'The firms and API keys of the deployment (admin keys only)' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`eca api-keys create`)' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: contractTransform,
    transformObject: contractTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });
}

/** A part the service cannot serve without does not answer: `/readyz` names the part, never its error's text. */
export class NotReadyError extends Error {
  constructor(
    readonly part: string,
    options: { cause: unknown },
  ) {
    super(`${part} does not answer`, options);
    this.name = 'NotReadyError';
  }
}

/**
 * A readiness check over named parts (Temporal, the engine's database...), each asked in turn: the first
 * that fails throws a {@link NotReadyError} naming it, its own error kept as the cause (for the log).
 */
export function readinessCheck(parts: Record<string, () => Promise<unknown>>): () => Promise<void> {
  return async () => {
    for (const [part, check] of Object.entries(parts)) {
      try {
        await check();
      } catch (cause) {
        throw new NotReadyError(part, { cause });
      }
    }
  };
}

/** Health and readiness: public, for load balancers and orchestrators. */
function serviceRoutes(
  api: ReturnType<FastifyInstance['withTypeProvider']>,
  checkReady: ApiOptions['checkReady'],
): void {
  api.get('/healthz', {
    schema: {
      tags: ['service'],
      operationId: 'health',
      summary: 'The process answers',
      security: [],
      response: { 200: z.object({ status: z.literal('ok') }) },
    },
    handler: () => Promise.resolve({ status: 'ok' as const }),
  });
  api.get('/readyz', {
    schema: {
      tags: ['service'],
      operationId: 'ready',
      summary: 'Temporal and the key database answer',
      security: [],
      response: { 200: z.object({ status: z.literal('ready') }), ...problems() },
    },
    handler: async (request) => {
      try {
        await checkReady?.();
      } catch (error) {
        // The error's text (addresses, a driver's message) goes to the log only: the endpoint is public.
        request.log.warn({ err: error instanceof NotReadyError ? error.cause : error }, 'not ready');
        const part = error instanceof NotReadyError ? error.part : 'a part of the service';
        throw new ApiProblem('UNAVAILABLE', `not ready: ${part} does not answer`);
      }
      return { status: 'ready' as const };
    },
  });
}

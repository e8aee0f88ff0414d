/**
 * The onboarding API: an HTTP/JSON service in front of the client API, for onboarding systems in any
 * language. It holds the Temporal connection, the codec keys and the document store; callers hold
 * only an API key of their firm.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import {
  jsonSchemaTransform,
  jsonSchemaTransformObject,
  serializerCompiler,
  validatorCompiler,
} from 'fastify-type-provider-zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { applicationRoutes } from './applications.js';
import type { EngineBase } from './applications.js';
import { installAuth } from './auth.js';
import type { KeyVerifier } from './auth.js';
import { ApiProblem, installProblemHandlers } from './problems.js';
import { problems } from './schemas.js';

/** The largest request body: an application with its PDFs, base64 (checked while it streams in). */
export const DEFAULT_BODY_LIMIT = 32 * 1024 * 1024;

export interface ApiOptions {
  engine: EngineBase;
  verifyKey: KeyVerifier;
  /** Whether the service can serve: Temporal and the key database answer (throws what is wrong). */
  checkReady?: () => Promise<void>;
  bodyLimit?: number;
  logger?: FastifyServerOptions['logger'];
  /** The version in the OpenAPI document. */
  version?: string;
}

/** A caller's request id is kept when it is a plain token; otherwise the service makes one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

export async function buildApi(options: ApiOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    requestIdHeader: 'x-request-id',
    genReqId: (request) => {
      const given = request.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Route parameters are ids of 200 characters at most; a longer one is refused by its schema.
    routerOptions: { maxParamLength: 256 },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installProblemHandlers(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', String(request.id));
    reply.header('x-content-type-options', 'nosniff');
  });

  await app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'ECA onboarding API',
        version: options.version ?? '0.1.0',
        description:
          'Start and follow brokerage account applications. Every request but health, readiness and this description carries an API key of one firm: `Authorization: Bearer <key>`. Errors are RFC 9457 problem details with a stable `code`.',
      },
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key (`eca api-keys create`)' },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(fastifySwaggerUi, { routePrefix: '/docs' });

  installAuth(app, options.verifyKey);
  const api = app.withTypeProvider<ZodTypeProvider>();
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
    handler: async () => {
      try {
        await options.checkReady?.();
      } catch (error) {
        throw new ApiProblem('UNAVAILABLE', `not ready: ${(error as Error).message}`);
      }
      return { status: 'ready' as const };
    },
  });
  api.get('/openapi.json', { schema: { hide: true }, handler: () => Promise.resolve(app.swagger()) });
  applicationRoutes(app, options.engine);
  await app.ready();
  return app;
}

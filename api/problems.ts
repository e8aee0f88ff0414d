/**
 * Errors as RFC 9457 problem details (`application/problem+json`): a stable `code` per engine error
 * class, the offending `field` when there is one, and the request id that is also in the logs.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import { brokerageErrorCode, EngineError, FirmInputError, InvalidInputError, isFirmError } from '../client/errors.js';
import type { EngineErrorCode } from '../client/errors.js';
import { ConfigurationError } from '../runtime/config-error.js';
import { ApiKeyInputError } from '../runtime/api-keys.js';
import { BrokerageError } from '../domain/brokerage-errors.js';
import { abortKind } from './call-timeout.js';

/** The problems the service answers with, besides the client API's own codes. */
export type ApiProblemCode =
  | EngineErrorCode
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'CURSOR_AHEAD'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMITED'
  | 'TIMEOUT'
  | 'UNAVAILABLE'
  | 'IDEMPOTENCY_KEY_IN_USE'
  | 'IDEMPOTENCY_KEY_REUSED'
  | 'IDEMPOTENT_ANSWER_WITHHELD'
  | 'INTERNAL';

declare module 'fastify' {
  interface FastifyReply {
    /** The problem a reply answers with (set by sendProblem): the `code` label of the API's metrics. */
    problemCode?: ApiProblemCode;
  }
}

interface ProblemType {
  status: number;
  title: string;
}

/** One row per code: its HTTP status and a title that never changes (the detail says the particulars). */
export const PROBLEM_TYPES: Record<ApiProblemCode, ProblemType> = {
  INVALID_INPUT: { status: 400, title: 'An input is invalid' },
  UNAUTHENTICATED: { status: 401, title: 'No valid API key' },
  FORBIDDEN: { status: 403, title: "The API key's role does not allow this" },
  UNKNOWN_APPLICATION: { status: 404, title: 'No such application' },
  NOT_FOUND: { status: 404, title: 'No such resource' },
  NO_CREDENTIALS: { status: 404, title: 'No temporary credentials to hand out' },
  METHOD_NOT_ALLOWED: { status: 405, title: 'The path does not answer this method' },
  NOT_ALLOWED_IN_STATE: { status: 409, title: 'Not allowed in the application’s state' },
  APPLICATION_FINISHED: { status: 409, title: 'The application has finished' },
  CONFLICT: { status: 409, title: 'The external id is taken by another application XML' },
  CURSOR_AHEAD: { status: 409, title: 'The cursor lies after the webhook endpoint’s own' },
  IDEMPOTENCY_KEY_IN_USE: { status: 409, title: 'A request with this Idempotency-Key is still in progress' },
  IDEMPOTENT_ANSWER_WITHHELD: {
    status: 409,
    title: 'The request was made before; its answer held a secret, which is not kept',
  },
  FIRM_NOT_CONFIGURED: { status: 403, title: 'The firm is not configured in this deployment' },
  FIRM_DISABLED: { status: 403, title: 'The firm is disabled' },
  PAYLOAD_TOO_LARGE: { status: 413, title: 'The request body is too large' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'The request body is not JSON' },
  IDEMPOTENCY_KEY_REUSED: { status: 422, title: 'The Idempotency-Key was sent with another request' },
  DOCUMENT_REJECTED: { status: 422, title: 'The PDF is the very file the brokerage rejected for its form' },
  RATE_LIMITED: { status: 429, title: 'Too many requests for this API key' },
  INTERNAL: { status: 500, title: 'Internal error' },
  SETUP_FAILED: { status: 500, title: 'Setup failed' },
  BROKERAGE_REFUSED: { status: 502, title: 'The brokerage refused or failed a call' },
  TEMPORAL_UNAVAILABLE: { status: 503, title: 'Temporal cannot be reached' },
  UNAVAILABLE: { status: 503, title: 'The service is not ready' },
  TIMEOUT: { status: 504, title: 'The engine did not answer in time' },
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  instance: string;
  code: ApiProblemCode;
  field?: string;
  requestId: string;
}

/** The problem type's URI: a URN, stable across hosts and versions. */
export const problemType = (code: ApiProblemCode) =>
  `urn:eca-onboarding:problem:${code.toLowerCase().replace(/_/g, '-')}`;

/** An error a route throws to answer with a problem. */
export class ApiProblem extends Error {
  override readonly name = 'ApiProblem';
  constructor(
    readonly code: ApiProblemCode,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ApiProblemCode,
  detail: string,
  field?: string,
): FastifyReply {
  const { status, title } = PROBLEM_TYPES[code];
  const body: Problem = {
    type: problemType(code),
    title,
    status,
    detail,
    instance: request.url.split('?')[0] ?? request.url,
    code,
    ...(field === undefined ? {} : { field }),
    requestId: String(request.id),
  };
  reply.problemCode = code;
  // Set here too: answers of the router itself (frameworkErrors) skip the onSend hook that sets it.
  return reply.code(status).header('x-request-id', body.requestId).type('application/problem+json').send(body);
}

/** Where in the request a schema issue is: `body.documents.0.formNumber`, `query.pageSize`... */
function issuePath(error: FastifyError): string | undefined {
  const first = error.validation?.[0];
  if (!first) return undefined;
  const context = error.validationContext ?? 'body';
  const parts = first.instancePath.split('/').filter((part) => part !== '');
  // An unknown field is named itself, not the object that holds it.
  const unknown = first.keyword === 'unrecognized_keys' ? (first.params as { keys?: string[] }).keys?.[0] : undefined;
  if (unknown !== undefined) parts.push(unknown);
  return [context, ...parts].join('.');
}

function fromError(error: unknown): { code: ApiProblemCode; detail: string; field?: string } {
  if (error instanceof ApiProblem) return { code: error.code, detail: error.message, field: error.field };
  if (error instanceof InvalidInputError) return { code: error.code, detail: error.message, field: error.input };
  if (error instanceof EngineError) return { code: error.code, detail: error.message };
  if (error instanceof FirmInputError) return { code: error.code, detail: error.message, field: error.field };
  if (error instanceof ApiKeyInputError) return { code: 'INVALID_INPUT', detail: error.message, field: error.field };
  if (isFirmError(error)) return { code: error.code, detail: error.message };
  if (error instanceof BrokerageError) return { code: brokerageErrorCode(error), detail: error.message };
  if (abortKind(error) === 'timeout') {
    return {
      code: 'TIMEOUT',
      detail: 'the engine did not answer within the call timeout; the request may be sent again',
    };
  }
  if (error instanceof ConfigurationError) return { code: 'UNAVAILABLE', detail: 'the service is misconfigured' };
  const fastify = error as FastifyError;
  if (hasZodFastifySchemaValidationErrors(fastify)) {
    const field = issuePath(fastify);
    const first = fastify.validation[0];
    const message = first?.keyword === 'unrecognized_keys' ? 'is not a field of this request' : first?.message;
    return { code: 'INVALID_INPUT', detail: `${field ?? 'request'}: ${message ?? 'invalid'}`, field };
  }
  if (fastify.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return { code: 'PAYLOAD_TOO_LARGE', detail: fastify.message };
  if (fastify.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return { code: 'UNSUPPORTED_MEDIA_TYPE', detail: 'send the body as application/json' };
  }
  if (fastify.statusCode === 400) return { code: 'INVALID_INPUT', detail: fastify.message, field: 'body' };
  if (fastify.statusCode === 429) return { code: 'RATE_LIMITED', detail: fastify.message };
  return { code: 'INTERNAL', detail: 'an unexpected error; the request id is in the service log' };
}

/** Every error becomes a problem; unexpected ones are logged (with the request id), never their detail sent. */
export function installProblemHandlers(app: FastifyInstance): void {
  app.decorateReply('problemCode', undefined);
  const routes = new Routes();
  app.addHook('onRoute', (route) => routes.add(route.method, route.url));
  const notFound = (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routes.methodsOf(path);
    if (allowed.length === 0) return sendProblem(request, reply, 'NOT_FOUND', `no route ${request.method} ${path}`);
    reply.header('allow', allowed.join(', '));
    return sendProblem(
      request,
      reply,
      'METHOD_NOT_ALLOWED',
      `${path} answers ${allowed.join(', ')}, not ${request.method}`,
    );
  };
  app.setErrorHandler((error, request, reply) => {
    // A request no route takes fails before the not-found handler when its body cannot be read (a QUERY
    // without a content type): it is still a 404 or a 405.
    if (request.is404) return notFound(request, reply);
    if (abortKind(error) === 'gone') {
      request.log.info('the caller closed the connection before the answer');
      return sendProblem(request, reply, 'UNAVAILABLE', 'the caller closed the connection');
    }
    const { code, detail, field } = fromError(error);
    if (code === 'TIMEOUT') request.log.warn(`request timed out: ${detail}`);
    else if (PROBLEM_TYPES[code].status >= 500) request.log.error({ err: error }, `request failed: ${code}`);
    if (error instanceof ApiProblem) reply.headers(error.headers);
    return sendProblem(request, reply, code, detail, field);
  });
  app.setNotFoundHandler(notFound);
}

/** The service's paths and their methods: a path that answers other methods than the request's is a 405. */
class Routes {
  private readonly paths: { pattern: RegExp; methods: Set<string> }[] = [];

  add(method: string | string[], url: string): void {
    // `/v1/webhooks/:id` matches one segment per parameter; `*` anything.
    const source = url
      .split('/')
      .map((part) =>
        part.startsWith(':') ? '[^/]+' : part === '*' ? '.*' : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'),
      )
      .join('/');
    let entry = this.paths.find((known) => known.pattern.source === `^${source}$`);
    if (!entry) this.paths.push((entry = { pattern: new RegExp(`^${source}$`), methods: new Set() }));
    for (const one of [method].flat()) entry.methods.add(one.toUpperCase());
  }

  methodsOf(path: string): string[] {
    const methods = new Set<string>();
    for (const { pattern, methods: own } of this.paths) if (pattern.test(path)) own.forEach((m) => methods.add(m));
    return [...methods].sort();
  }
}

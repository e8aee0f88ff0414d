/**
 * The firm's webhook endpoints (runtime/webhooks.ts): register, list, rotate the secret, pause, resume,
 * replay, delete. Each change is made in the registry, then told to the endpoint's delivery workflow
 * (client/webhooks.ts). Every route works on the API key's firm: another firm's endpoint is a 404. Any
 * role reads; an onboarding or staff key changes (the onboarding system manages its own endpoints). A
 * disabled firm reads, pauses, rotates and deletes, but registers, replays and resumes nothing: each of those
 * would send its log somewhere (403 FIRM_DISABLED, api/auth.ts `newWork`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { resumeWebhookDelivery, startWebhookDelivery, stopWebhookDelivery } from '../client/webhooks.js';
import type { WebhookDeliveryContext } from '../client/webhooks.js';
import type { CodecKeyring } from '../codec/keyring.js';
import { durationMs } from '../domain/durations.js';
import type { Queryable } from '../runtime/database/index.js';
import { formatCursor, LOG_START } from '../runtime/events.js';
import {
  MAX_KEEP_PREVIOUS_MS,
  WebhookCursorAheadError,
  WebhookInputError,
  WebhookNotFoundError,
} from '../runtime/webhook-input.js';
import { EVENT_CURSOR } from './events.js';
import type { WebhookInputField } from '../runtime/webhook-input.js';
import { DEFAULT_KEEP_PREVIOUS_MS, WebhookEndpoints } from '../runtime/webhooks.js';
import type { WebhookEndpointRecord } from '../runtime/webhooks.js';
import type { Api, EngineBase } from './applications.js';
import { ONBOARDING, principalOf, READERS } from './auth.js';
import { callSignalOf } from './call-timeout.js';
import { IdempotencyHeaders } from './idempotency.js';
import { ApiProblem } from './problems.js';
import { isoTime, problems } from './schemas.js';

const tags = ['webhooks'];

export const WebhookEndpoint = z
  .object({
    id: z.string().describe('wh_ and 16 letters or digits'),
    csid: z.string(),
    url: z.string(),
    description: z.string(),
    state: z
      .enum(['active', 'paused', 'deleted'])
      .describe('`paused` by the firm (`pause`), or after its delivery kept failing'),
    cursor: z.string().describe('After the last event the endpoint acknowledged (an event cursor)'),
    backlog: z.number().int().describe("The firm's events after the cursor: what the endpoint has yet to receive"),
    delivered: z.number().int().describe('Events acknowledged (2xx), replays included'),
    failures: z.number().int().describe('Failed attempts since the last success'),
    lastError: z.string().optional(),
    lastErrorAt: isoTime.optional(),
    lastDeliveredAt: isoTime.optional(),
    createdAt: isoTime,
  })
  .meta({ id: 'WebhookEndpoint', description: 'Where the firm’s lifecycle events are delivered, and how far it got' });

const WebhookEndpointList = z
  .object({ endpoints: z.array(WebhookEndpoint) })
  .meta({ id: 'WebhookEndpointList', description: 'The firm’s endpoints, oldest first (deleted ones left out)' });

const WebhookWithSecret = z
  .object({
    endpoint: WebhookEndpoint,
    secret: z.string().describe('`whsec_…`: shown this once (the engine keeps it sealed); verify deliveries with it'),
  })
  .meta({ id: 'WebhookWithSecret', description: 'An endpoint and its new signing secret, shown once' });

/** A replay's cursor: `now` would replay nothing. */
const REPLAY_CURSOR = /^(?:start|[0-9]{1,19}-[0-9]{1,18})$/;

/**
 * http or https, a host of ASCII letters, digits, dots and dashes or an IPv6 address in brackets, a port, then
 * a path, query or fragment of visible ASCII: no user name or password (no `@` before the path).
 */
const WEBHOOK_URL = new RegExp(
  `^[Hh][Tt][Tt][Pp][Ss]?://(?:[A-Za-z0-9.-]+|\\[(?:${z.regexes.ipv6.source.slice(1, -1)})\\])` +
    '(?::[0-9]{1,5})?(?:[/?#][\\x21-\\x7e]*)?$',
);

const cursorText = z
  .string()
  .regex(EVENT_CURSOR, 'is not `start`, `now` or an event cursor (`<tx>-<position>`)')
  .describe('`start` (every event the log holds) or an event cursor (an SSE event id, a page’s `cursor`)');

const RegisterWebhookRequest = z
  .strictObject({
    url: z
      .string()
      .max(2048)
      .regex(WEBHOOK_URL, 'is not an absolute http or https URL')
      .describe(
        'Absolute http or https URL, without user name or password; never a link-local or cloud metadata address',
      ),
    description: z.string().max(200).optional(),
    after: cursorText
      .optional()
      .describe('Deliver the events after this: `now` (the default: new events only), `start`, or a cursor'),
  })
  .meta({ id: 'RegisterWebhookRequest', description: 'An endpoint to deliver the firm’s lifecycle events to' });

/** `0`, or whole minutes, hours or days up to 30 days: what `keepPreviousFor` takes, exactly. */
const KEEP_PREVIOUS = new RegExp(
  '^(?:0|(?:[0-9]|[1-9][0-9]{1,3}|[1-3][0-9]{4}|4[0-2][0-9]{3}|43[01][0-9]{2}|43200)m|' +
    '(?:[0-9]|[1-9][0-9]|[1-6][0-9]{2}|7[01][0-9]|720)h|(?:[0-9]|[12][0-9]|30)d)$',
);

const RotateSecretRequest = z
  .strictObject({
    keepPreviousFor: z
      .string()
      .regex(KEEP_PREVIOUS, 'is not a duration from 0 to 30 days (`0`, `30m`, `24h`, `7d`)')
      .optional()
      .describe(
        'How long the previous secrets keep signing beside the new one (`24h`, the default; `0` ends them now)',
      ),
  })
  .meta({
    id: 'RotateSecretRequest',
    description: 'A new signing secret; the previous ones sign alongside for a while',
  });

const ReplayRequest = z
  .strictObject({
    after: z
      .string()
      .regex(REPLAY_CURSOR, 'is not `start` or an event cursor (`<tx>-<position>`)')
      .describe('Send again the events after this: `start` or a cursor'),
  })
  .meta({ id: 'ReplayRequest', description: 'Move the endpoint’s cursor back: the events after it are sent again' });

const WebhookParams = z.object({ id: z.string().min(1).max(64).describe('The endpoint id (wh_…)') });

const empty = z.object({}).strict();

/** How the API's requests name what the registry's errors name. */
const REQUEST_FIELDS: Record<WebhookInputField, string> = {
  csid: 'Authorization',
  url: 'url',
  description: 'description',
  cursor: 'after',
  keepPreviousForMs: 'keepPreviousFor',
};

const iso = (date: Date | undefined) => date?.toISOString();

export function endpointOf(record: WebhookEndpointRecord): z.output<typeof WebhookEndpoint> {
  const { cursor, lastErrorAt, lastDeliveredAt, createdAt, ...rest } = record;
  return {
    ...rest,
    cursor: formatCursor(cursor),
    lastErrorAt: iso(lastErrorAt),
    lastDeliveredAt: iso(lastDeliveredAt),
    createdAt: createdAt.toISOString(),
  };
}

/** The registry's typed errors as problems: 400 naming the request's field, 404 for another firm's or no endpoint. */
async function registry<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof WebhookCursorAheadError) throw new ApiProblem('CURSOR_AHEAD', error.reason, 'after');
    if (error instanceof WebhookInputError) {
      throw new ApiProblem(
        'INVALID_INPUT',
        `${REQUEST_FIELDS[error.field]}: ${error.reason}`,
        REQUEST_FIELDS[error.field],
      );
    }
    if (error instanceof WebhookNotFoundError) {
      throw new ApiProblem('NOT_FOUND', `${error.message} (GET /v1/webhooks lists the firm's endpoints)`, 'id');
    }
    throw error;
  }
}

/** `keepPreviousFor` as milliseconds: a duration (`24h`, `30m`, `0`). */
function keepPreviousMs(text: string | undefined): number {
  if (text === undefined) return DEFAULT_KEEP_PREVIOUS_MS;
  let ms: number;
  try {
    ms = durationMs(text.trim());
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_KEEP_PREVIOUS_MS) {
    throw new ApiProblem(
      'INVALID_INPUT',
      `keepPreviousFor: "${text.slice(0, 32)}" is not a duration from 0 to 30 days (such as 24h or 30m)`,
      'keepPreviousFor',
    );
  }
  return ms;
}

const notFound = (id: string) =>
  new ApiProblem('NOT_FOUND', `no webhook endpoint ${id} (GET /v1/webhooks lists the firm's endpoints)`, 'id');

/** `start` or a cursor, as the registry takes it. */
const cursorOf = (after: string) => (after === 'start' ? LOG_START : after);

/** What the routes share: the registry, and the delivery workflows' context of a request. */
interface Routes {
  api: Api;
  endpoints: WebhookEndpoints;
  delivery: (request: FastifyRequest) => WebhookDeliveryContext;
}

const csidOf = (request: FastifyRequest) => principalOf(request).csid;

export function webhookRoutes(
  app: FastifyInstance,
  options: { database: Queryable; engine: EngineBase; keyring?: CodecKeyring },
): void {
  const routes: Routes = {
    api: app.withTypeProvider<ZodTypeProvider>(),
    endpoints: new WebhookEndpoints(options.database, options.keyring),
    delivery: (request) => ({
      client: options.engine.client,
      taskQueue: options.engine.taskQueue,
      signal: callSignalOf(request),
    }),
  };
  registerAndReadRoutes(routes);
  secretAndPauseRoutes(routes);
  replayAndDeleteRoutes(routes);
}

function registerAndReadRoutes({ api, endpoints, delivery }: Routes): void {
  api.post('/v1/webhooks', {
    config: {
      roles: ONBOARDING,
      // A disabled firm's events go nowhere new: refused (403 FIRM_DISABLED) as its other new work is.
      newWork: true,
      // Its answer holds the signing secret: a retry with the same Idempotency-Key is told, never shown it again.
      idempotent: 'secret',
      location: (body: { endpoint: { id: string } }) => `/v1/webhooks/${body.endpoint.id}`,
    },
    schema: {
      tags,
      operationId: 'registerWebhook',
      summary: 'Register an endpoint for the firm’s lifecycle events (onboarding or staff); its secret is shown once',
      description:
        'Deliveries are signed the Standard Webhooks way (`webhook-id`, `webhook-timestamp`, `webhook-signature`), at least once, in order per application; `webhook-id` is the event id, the same on every retry and replay. Refused (403 FIRM_DISABLED) while the firm is disabled; its endpoints are then delivered nothing until it is enabled, and nothing is dropped.',
      headers: IdempotencyHeaders,
      body: RegisterWebhookRequest,
      response: { 201: WebhookWithSecret, ...problems(409, 422) },
    },
    handler: async (request, reply) => {
      const csid = csidOf(request);
      const { url, description, after } = request.body;
      const start = after === undefined || after === 'now' ? undefined : cursorOf(after);
      const { endpoint, secret } = await registry(() => endpoints.register({ csid, url, description, start }));
      try {
        await startWebhookDelivery(delivery(request), { csid, endpointId: endpoint.id });
      } catch (error) {
        // Without its delivery the endpoint would only collect a backlog, and its secret is known to no one:
        // it goes, and the caller registers again.
        await endpoints.delete(csid, endpoint.id).catch(() => undefined);
        throw error;
      }
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({ endpoint: endpointOf(endpoint), secret });
    },
  });

  api.get('/v1/webhooks', {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: 'listWebhooks',
      summary: 'The firm’s endpoints, with their state, backlog and last error',
      response: { 200: WebhookEndpointList, ...problems() },
    },
    handler: async (request) => ({ endpoints: (await endpoints.list(csidOf(request))).map(endpointOf) }),
  });

  api.get('/v1/webhooks/:id', {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: 'getWebhook',
      summary: 'One endpoint of the firm',
      params: WebhookParams,
      response: { 200: WebhookEndpoint, ...problems(404) },
    },
    handler: async (request) => {
      const endpoint = await endpoints.get(csidOf(request), request.params.id);
      // A deleted endpoint is gone for its readers: its row is kept only for the registry's own bookkeeping.
      if (!endpoint || endpoint.state === 'deleted') throw notFound(request.params.id);
      return endpointOf(endpoint);
    },
  });
}

function secretAndPauseRoutes({ api, endpoints, delivery }: Routes): void {
  api.post('/v1/webhooks/:id/rotate-secret', {
    config: { roles: ONBOARDING },
    schema: {
      tags,
      operationId: 'rotateWebhookSecret',
      summary:
        'A new signing secret, shown once (onboarding or staff); the previous ones keep signing for `keepPreviousFor`',
      description:
        'While the previous secrets sign, each delivery carries one signature per secret in `webhook-signature`: a receiver holding either verifies it.',
      params: WebhookParams,
      body: RotateSecretRequest.optional(),
      response: { 200: WebhookWithSecret, ...problems(404) },
    },
    handler: async (request, reply) => {
      const keep = keepPreviousMs(request.body?.keepPreviousFor);
      const { endpoint, secret } = await registry(() =>
        endpoints.rotateSecret(csidOf(request), request.params.id, keep),
      );
      return reply.header('cache-control', 'no-store').send({ endpoint: endpointOf(endpoint), secret });
    },
  });

  api.post('/v1/webhooks/:id/pause', {
    config: { roles: ONBOARDING },
    schema: {
      tags,
      operationId: 'pauseWebhook',
      summary: 'Stop delivering to the endpoint (onboarding or staff); it keeps its cursor, nothing is dropped',
      params: WebhookParams,
      body: empty.optional(),
      response: { 200: WebhookEndpoint, ...problems(404) },
    },
    handler: async (request) => endpointOf(await registry(() => endpoints.pause(csidOf(request), request.params.id))),
  });

  api.post('/v1/webhooks/:id/resume', {
    config: { roles: ONBOARDING, newWork: true },
    schema: {
      tags,
      operationId: 'resumeWebhook',
      summary: 'Deliver again from the endpoint’s cursor (onboarding or staff): its backlog first',
      description: 'Refused (403 FIRM_DISABLED) while the firm is disabled.',
      params: WebhookParams,
      body: empty.optional(),
      response: { 200: WebhookEndpoint, ...problems(404) },
    },
    handler: async (request) => {
      const csid = csidOf(request);
      const endpoint = await registry(() => endpoints.resume(csid, request.params.id));
      await resumeWebhookDelivery(delivery(request), { csid, endpointId: endpoint.id });
      return endpointOf(endpoint);
    },
  });
}

function replayAndDeleteRoutes({ api, endpoints, delivery }: Routes): void {
  api.post('/v1/webhooks/:id/replay', {
    config: { roles: ONBOARDING, newWork: true },
    schema: {
      tags,
      operationId: 'replayWebhook',
      summary: 'Send the events after a cursor again (onboarding or staff), with their same `webhook-id`',
      description:
        'The cursor only goes back: one after the endpoint’s own would skip events and is refused. Refused (403 FIRM_DISABLED) while the firm is disabled.',
      params: WebhookParams,
      body: ReplayRequest,
      response: { 200: WebhookEndpoint, ...problems(404, 409) },
    },
    handler: async (request) =>
      endpointOf(
        await registry(() => endpoints.replay(csidOf(request), request.params.id, cursorOf(request.body.after))),
      ),
  });

  api.delete('/v1/webhooks/:id', {
    config: { roles: ONBOARDING },
    schema: {
      tags,
      operationId: 'deleteWebhook',
      summary: 'Delete the endpoint (onboarding or staff): delivery ends and its secrets are wiped',
      params: WebhookParams,
      response: { 204: z.null(), ...problems(404) },
    },
    handler: async (request, reply) => {
      const endpoint = await registry(() => endpoints.delete(csidOf(request), request.params.id));
      try {
        await stopWebhookDelivery(delivery(request), endpoint.id);
      } catch (error) {
        // The delivery workflow reads the deleted state by itself and ends: the deletion stands.
        request.log.warn({ error: (error as Error).message }, 'webhook delivery not told of the deletion');
      }
      return reply.code(204).send(null);
    },
  });
}

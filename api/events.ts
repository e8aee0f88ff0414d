/**
 * The firm's lifecycle events (runtime/events.ts) as server-sent events and as pages of JSON.
 *
 * `GET /v1/events` with `Accept: text/event-stream` streams the firm's events as they are written,
 * each with its cursor as the SSE `id`; a client that reconnects sends `Last-Event-ID` (browsers'
 * EventSource do) or `?after=<cursor>` and misses nothing. Without the header it starts at the log's
 * end (`after=now`), or from the start of the log with `after=start`. A comment line every
 * `heartbeatMs` keeps proxies from closing a quiet stream. The same routes answer a page of JSON
 * otherwise, for clients that poll. `/v1/applications/{reference}/events` is one application's.
 * A disabled firm's stream is refused before its first byte (403 FIRM_DISABLED); one that is disabled
 * while it streams is ended with an `error` event at the stream's next check.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { EVENT_TYPES } from '../domain/events.js';
import { APPLICATION_STATES } from '../domain/application-states.js';
import { formatCursor, LOG_START, parseCursor } from '../runtime/events.js';
import type { EventCursor, EventLog, LoggedEvent } from '../runtime/events.js';
import { principalOf, READERS, refusalNowOf } from './auth.js';
import type { StreamRefusal } from './auth.js';
import { ApiProblem } from './problems.js';
import { ApplicationParams, isoTime, problems } from './schemas.js';

export interface EventStreamOptions {
  /** How often a stream with nothing new looks at the log again (default 250 ms). */
  pollMs?: number;
  /** How often a quiet stream sends a comment line (default 15 s). */
  heartbeatMs?: number;
}

const DEFAULT_POLL_MS = 250;
/** How often a stream asks again whether its API key stands (through the verifier's cache). */
const KEY_RECHECK_MS = 1_000;
const DEFAULT_HEARTBEAT_MS = 15_000;
/** Events per read of the log while a stream catches up. */
const STREAM_BATCH = 200;
const MAX_PAGE = 500;
/** What an EventSource waits before it reconnects (the SSE `retry` field). */
const RECONNECT_MS = 1_000;

export const LifecycleEvent = z
  .object({
    id: z.string().describe('Stable across retries and replays: the webhook-id'),
    type: z.enum(EVENT_TYPES),
    csid: z.string(),
    externalId: z.string(),
    accountId: z.string().optional(),
    from: z.enum(APPLICATION_STATES),
    to: z.enum(APPLICATION_STATES),
    at: isoTime,
    seq: z.number().int().describe("The event's place among the application's events, from 1"),
    data: z.object({
      tasks: z.array(z.string()).optional(),
      formNumber: z.string().optional(),
      reason: z.string().optional(),
      errors: z.array(z.string()).optional(),
      status: z.string().optional(),
      action: z.string().optional(),
      deadline: z
        .object({
          state: z.enum(APPLICATION_STATES),
          due: isoTime,
          reminder: z.number().int().optional(),
          escalation: z.string().optional(),
        })
        .optional(),
    }),
  })
  .meta({ id: 'LifecycleEvent', description: 'Something that happened to an application, as its firm is told' });

const EventPage = z
  .object({
    events: z.array(z.object({ cursor: z.string(), event: LifecycleEvent })),
    cursor: z.string().describe('Give it back as `after` for the next page (the last event’s, or the one given)'),
  })
  .meta({ id: 'EventPage', description: 'A page of events in the log’s order' });

/**
 * `start`, `now`, or a cursor `<tx>-<position>` (runtime/events.ts): 19 and 18 digits at most, so that every
 * cursor the pattern takes is one the log can name.
 */
export const EVENT_CURSOR = /^(?:start|now|[0-9]{1,19}-[0-9]{1,18})$/;

/** The SSE client's own header: the id of the last event it got. */
const lastEventId = z.string().regex(EVENT_CURSOR, 'is not an event id').optional();

const EventQuery = z.object({
  after: z
    .string()
    .regex(EVENT_CURSOR, 'is not `start`, `now` or an event cursor (`<tx>-<position>`)')
    .optional()
    .describe('`start`, `now` (the default), or a cursor: an SSE event id, a page’s `cursor`'),
  limit: z.coerce.number().int().min(1).max(MAX_PAGE).optional(),
});

const ApplicationEventParams = ApplicationParams;

/** The cursor a request starts after: `Last-Event-ID` first, then `after`. */
async function startingCursor(
  request: FastifyRequest,
  after: string | undefined,
  log: EventLog,
  csid: string,
): Promise<EventCursor> {
  const header = request.headers['last-event-id'];
  const given = typeof header === 'string' && header.trim() !== '' ? header : after;
  if (given === undefined || given === 'now') return log.end(csid);
  if (given === 'start') return LOG_START;
  const cursor = parseCursor(given);
  if (!cursor) {
    throw new ApiProblem(
      'INVALID_INPUT',
      `"${given.slice(0, 64)}" is not a cursor: give \`start\`, \`now\` or an event id`,
      typeof header === 'string' ? 'Last-Event-ID' : 'after',
    );
  }
  return cursor;
}

const wantsStream = (request: FastifyRequest) => (request.headers.accept ?? '').includes('text/event-stream');

function frame(logged: LoggedEvent): string {
  return `id: ${formatCursor(logged.cursor)}\nevent: ${logged.event.type}\ndata: ${JSON.stringify(logged.event)}\n\n`;
}

/** Why a stream may not start, as the problem the same request would get from a route of new work. */
function refuseStream(refusal: StreamRefusal | undefined): void {
  if (!refusal) return;
  if (refusal.code === 'UNAUTHENTICATED') {
    throw new ApiProblem(refusal.code, refusal.detail, 'Authorization', { 'WWW-Authenticate': 'Bearer realm="eca"' });
  }
  throw new ApiProblem(refusal.code, refusal.detail);
}

/** Streams the firm's events after `from.after` until the client or the service closes. */
async function stream(
  reply: FastifyReply,
  log: EventLog,
  from: { csid: string; after: EventCursor; externalId?: string },
  streams: Set<() => void>,
  options: EventStreamOptions,
  refusalNow: () => Promise<StreamRefusal | undefined>,
): Promise<void> {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
    'x-content-type-options': 'nosniff',
  });
  let open = true;
  let wake: (() => void) | undefined;
  const end = () => {
    open = false;
    wake?.();
  };
  streams.add(end);
  raw.once('close', end);
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const write = async (text: string) => {
    if (!raw.write(text)) await new Promise<void>((resolve) => raw.once('drain', resolve).once('close', resolve));
  };
  let cursor = from.after;
  let quietSince = Date.now();
  let keyCheckedAt = Date.now();
  try {
    // The cursor it starts after, as an id without data: a client that reconnects before any event resumes there.
    await write(`retry: ${RECONNECT_MS}\nid: ${formatCursor(cursor)}\n\n`);
    while (open) {
      // A revoked key or a disabled firm (seen once the caches let it be) ends the stream: its events stop.
      if (Date.now() - keyCheckedAt >= KEY_RECHECK_MS) {
        keyCheckedAt = Date.now();
        const refusal = await refusalNow();
        if (refusal) {
          await write(`event: error\ndata: ${JSON.stringify(refusal)}\n\n`);
          break;
        }
      }
      const events = await log.read({ ...from, after: cursor, limit: STREAM_BATCH });
      for (const logged of events) {
        if (!open) break;
        await write(frame(logged));
        cursor = logged.cursor;
      }
      if (events.length > 0) quietSince = Date.now();
      else if (Date.now() - quietSince >= (options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS)) {
        await write(': keep-alive\n\n');
        quietSince = Date.now();
      }
      if (events.length < STREAM_BATCH) await pause(options.pollMs ?? DEFAULT_POLL_MS);
    }
  } catch (error) {
    // The log could not be read: the client reconnects with its last id and misses nothing.
    reply.log.warn({ error: (error as Error).message }, 'event stream ended');
  } finally {
    streams.delete(end);
    raw.end();
  }
}

/** The external id of the application a request's `reference` names in the key's firm (UNKNOWN_APPLICATION otherwise). */
export type ApplicationResolver = (request: FastifyRequest, reference: string) => Promise<string>;

export function eventRoutes(
  app: FastifyInstance,
  log: EventLog,
  resolve: ApplicationResolver,
  options: EventStreamOptions = {},
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const streams = new Set<() => void>();
  // Streams never end by themselves: closing the service ends them, so that it does not wait for their clients.
  app.addHook('preClose', (done) => {
    for (const end of streams) end();
    done();
  });

  async function answer(
    request: FastifyRequest,
    reply: FastifyReply,
    query: z.output<typeof EventQuery>,
    externalId?: string,
  ) {
    const { csid } = principalOf(request);
    const refusalNow = refusalNowOf(request);
    // A stream of a disabled firm is refused before its first byte: an EventSource reconnecting gets the
    // 403 and stops, rather than a batch of events before the stream's own check ends it.
    if (wantsStream(request)) refuseStream(await refusalNow());
    const after = await startingCursor(request, query.after, log, csid);
    if (!wantsStream(request)) {
      const events = await log.read({ csid, after, externalId, limit: query.limit ?? 100 });
      return {
        events: events.map((logged) => ({ cursor: formatCursor(logged.cursor), event: logged.event })),
        cursor: formatCursor(events.at(-1)?.cursor ?? after),
      };
    }
    await stream(reply, log, { csid, after, externalId }, streams, options, refusalNow);
    return reply;
  }

  api.get('/v1/events', {
    config: { roles: READERS },
    schema: {
      tags: ['events'],
      operationId: 'listEvents',
      summary: "The firm's lifecycle events: a stream (Accept: text/event-stream) or a page of JSON",
      description:
        'With `Accept: text/event-stream`, server-sent events: `id` is the cursor, `event` the type, `data` the LifecycleEvent; resume with `Last-Event-ID`. A stream of a disabled firm is refused before it starts (403 FIRM_DISABLED); a key revoked, or a firm disabled, while it streams ends the stream with an `error` event (its `code`, UNAUTHENTICATED or FIRM_DISABLED, and `detail` as data). Otherwise a page of JSON.',
      querystring: EventQuery,
      headers: z.object({ 'last-event-id': lastEventId }),
      response: { 200: EventPage, ...problems() },
    },
    handler: (request, reply) => answer(request, reply, request.query),
  });

  api.get('/v1/applications/:reference/events', {
    config: { roles: READERS },
    schema: {
      tags: ['events'],
      operationId: 'listApplicationEvents',
      summary: "One application's lifecycle events: a stream or a page of JSON",
      params: ApplicationEventParams,
      querystring: EventQuery,
      headers: z.object({ 'last-event-id': lastEventId }),
      response: { 200: EventPage, ...problems(404) },
    },
    handler: async (request, reply) =>
      answer(request, reply, request.query, await resolve(request, request.params.reference)),
  });
}

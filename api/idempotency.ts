/**
 * `Idempotency-Key`, the Stripe way, on the routes that create something (`config: { idempotent: … }`). A
 * request with the header claims the key for the caller's firm (its API key's CSID; admin keys share
 * theirs) and for 24 hours; its answer is kept, and a retry with the same key and the same request
 * (method, path and body) gets that answer again, with `Idempotent-Replayed: true`. The same key with
 * another request is a 422 (`IDEMPOTENCY_KEY_REUSED`); a retry while the first is still in flight a 409
 * (`IDEMPOTENCY_KEY_IN_USE`, with Retry-After).
 *
 * What is kept: every answer the route gave, 4xx included (the same request would be refused the same
 * way), but no 5xx: the key may then be sent again, and the request runs again. A request refused before
 * the route ran (its key, its role, its body's schema, the rate limit) claims nothing. A route whose
 * success holds a secret (`'secret'`: a webhook's signing secret, an API key, a sign-on link) keeps no
 * body of it: a retry is answered 409 (`IDEMPOTENT_ANSWER_WITHHELD`) with the made resource's Location.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { IdempotencyKeys } from '../runtime/idempotency-keys.js';
import type { KeptAnswer } from '../runtime/idempotency-keys.js';
import type { Queryable } from '../runtime/database/index.js';
import type { CodecKeyring } from '../codec/keyring.js';
import { principalOf } from './auth.js';
import { NO_FIRM } from '../runtime/api-keys.js';
import { ApiProblem } from './problems.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route creates something and takes `Idempotency-Key` (api/idempotency.ts); `'secret'`: its success
     * holds a secret, whose answer is never kept.
     */
    idempotent?: true | 'secret';
  }
  interface FastifyRequest {
    /** The idempotency key the request holds, until its answer is kept or the key released. */
    idempotency?: { scope: string; key: string; token: string; secret: boolean; settled: boolean };
  }
}

/** The header as the routes declare it (`schema.headers`): 1 to 255 printable characters. */
export const IdempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .regex(/^[\x20-\x7e]+$/, 'is not 1 to 255 printable characters')
    .optional()
    .describe(
      'A key of the caller’s own (a UUID, say) that makes a retry safe: for 24 hours, the same request with the same key gets the first answer again (`Idempotent-Replayed: true`), never a second resource. Where that answer held a secret (a webhook’s signing secret, an API key, a sign-on link), the retry is a 409 `IDEMPOTENT_ANSWER_WITHHELD` whose `Location` names what was made. Scoped to the API key’s firm (an admin key’s: to that key).',
    ),
});

/** The field the problems name. */
export const IDEMPOTENCY_FIELD = 'Idempotency-Key';
/** The header a replayed answer carries. */
export const REPLAYED_HEADER = 'idempotent-replayed';
/** The headers of an answer that are kept with it. */
const KEPT_HEADERS = ['content-type', 'location'] as const;

/** Keys in order, so that the same body hashes the same however its fields were ordered. */
function stable(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stable);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, stable((value as Record<string, unknown>)[key])]),
  );
}

/** What the request is: its method, path and query, and its body as validated. */
export function fingerprintOf(request: FastifyRequest): string {
  const text = JSON.stringify([request.method, request.url, stable(request.body ?? null)]);
  return createHash('sha256').update(text).digest('hex');
}

/** The header's value on a route that takes it; undefined otherwise. */
function keyOf(request: FastifyRequest): string | undefined {
  if (!request.routeOptions.config.idempotent) return undefined;
  const key = request.headers['idempotency-key'];
  return typeof key === 'string' ? key : undefined;
}

function replay(reply: FastifyReply, answer: KeptAnswer): FastifyReply {
  reply.code(answer.status).headers(answer.headers).header(REPLAYED_HEADER, 'true');
  return reply.send(answer.body ?? undefined);
}

/**
 * Whose keys a request's are: its firm's (every key of a firm shares them, as Stripe's account does), or, for
 * an admin key (no firm), that key's own: two operators' keys never answer for each other.
 */
function scopeOf(request: FastifyRequest): string {
  const { csid, keyId } = principalOf(request);
  return csid === NO_FIRM ? `${NO_FIRM}:${keyId}` : csid;
}

/** Answers that say nothing lasting about the request: the key is released, and a retry runs again. */
const TRANSIENT = new Set([408, 425, 429]);

/** The claim's outcome for a request that does not run: an answer replayed, or a problem. */
async function claimOrAnswer(
  keys: IdempotencyKeys,
  request: FastifyRequest,
  reply: FastifyReply,
  key: string,
): Promise<FastifyReply | undefined> {
  const scope = scopeOf(request);
  const fingerprint = fingerprintOf(request);
  const secret = request.routeOptions.config.idempotent === 'secret';
  const claim = await keys.claim(scope, key, fingerprint);
  if (claim.kind === 'claimed') {
    request.idempotency = { scope, key, token: claim.token, secret, settled: false };
    return undefined;
  }
  if (claim.fingerprint !== fingerprint) {
    throw new ApiProblem(
      'IDEMPOTENCY_KEY_REUSED',
      'this Idempotency-Key was sent with another request (method, path or body) in the last 24 hours: use a new key for a new request',
      IDEMPOTENCY_FIELD,
    );
  }
  if (claim.kind === 'in-flight') {
    throw new ApiProblem(
      'IDEMPOTENCY_KEY_IN_USE',
      'a request with this Idempotency-Key is still in progress: retry once it has answered',
      IDEMPOTENCY_FIELD,
      { 'Retry-After': '1' },
    );
  }
  if (claim.answer.body === null && claim.answer.status < 300) {
    const location = claim.answer.headers.location;
    throw new ApiProblem(
      'IDEMPOTENT_ANSWER_WITHHELD',
      `this request was answered ${claim.answer.status} at ${claim.createdAt.toISOString()}` +
        `${location ? ` (${location})` : ''}; its answer held a secret, which is not kept`,
      IDEMPOTENCY_FIELD,
      { [REPLAYED_HEADER]: 'true', ...(location && { location }) },
    );
  }
  return replay(reply, claim.answer);
}

/** Keeps the answer of a request that holds a key, or releases the key (a 5xx, an answer not kept as text). */
async function settle(keys: IdempotencyKeys, request: FastifyRequest, reply: FastifyReply, payload: unknown) {
  const held = request.idempotency;
  if (!held || held.settled) return;
  held.settled = true;
  const { scope, key, token } = held;
  try {
    const status = reply.statusCode;
    const text = typeof payload === 'string' ? payload : payload === undefined || payload === null ? '' : undefined;
    if (status >= 500 || TRANSIENT.has(status) || text === undefined) return await keys.release(scope, key, token);
    const headers: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = reply.getHeader(name);
      if (value !== undefined) headers[name] = String(value);
    }
    const body = held.secret && status < 300 ? null : text;
    await keys.answer(scope, key, token, { status, headers, body });
  } catch (error) {
    request.log.warn({ err: error }, 'idempotency key not settled');
    await keys.release(scope, key, token).catch(() => undefined);
  }
}

/**
 * The hooks: the key claimed once the request is authenticated and valid (preHandler, after the rate
 * limit), its answer kept as it is sent (onSend), the key released when no answer was kept (onResponse).
 */
export function installIdempotency(app: FastifyInstance, database: Queryable, keyring: CodecKeyring | undefined): void {
  app.decorateRequest('idempotency', undefined);
  const keys = new IdempotencyKeys(database, { keyring });
  // A route's own preHandler, after those the routes already hold (the rate limit's, which adds its own per
  // route): a request over the limit claims nothing. Installed after the rate limit, this onRoute runs after its.
  const claimHook = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = keyOf(request);
    if (key === undefined) return;
    const answered = await claimOrAnswer(keys, request, reply, key);
    if (answered) return answered;
  };
  app.addHook('onRoute', (route) => {
    if (!route.config?.idempotent) return;
    const own = route.preHandler === undefined ? [] : [route.preHandler].flat();
    route.preHandler = [...own, claimHook];
  });
  app.addHook('onSend', async (request, reply, payload) => {
    await settle(keys, request, reply, payload);
    return payload;
  });
  app.addHook('onResponse', async (request) => {
    const held = request.idempotency;
    if (held && !held.settled) {
      held.settled = true;
      await keys.release(held.scope, held.key, held.token).catch(() => undefined);
    }
  });
}

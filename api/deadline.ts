/**
 * Every engine call a request makes is bounded: it carries a signal (the client API's `signal`) that
 * aborts when the call timeout passes (504 TIMEOUT) or when the caller closes the connection (nothing
 * is waited for on behalf of nobody). What Temporal already holds stays: a start is idempotent by
 * external id, so the caller sends it again.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a request may wait on the engine (Temporal, a workflow's answer) by default. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

declare module 'fastify' {
  interface FastifyRequest {
    callSignal?: AbortSignal;
  }
}

export function installDeadlines(app: FastifyInstance, timeoutMs: number): void {
  app.decorateRequest('callSignal', undefined);
  app.addHook('onRequest', async (request, reply) => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) gone.abort(new DOMException('the caller closed the connection', 'AbortError'));
    });
    request.callSignal = AbortSignal.any([gone.signal, AbortSignal.timeout(timeoutMs)]);
  });
}

/** The signal of a request's engine calls. */
export const callSignalOf = (request: FastifyRequest): AbortSignal | undefined => request.callSignal;

/** An abort of a request's calls: `timeout` when its deadline passed, `gone` when its caller left. */
export function abortKind(error: unknown): 'timeout' | 'gone' | undefined {
  if (!(error instanceof DOMException)) return undefined;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.name === 'AbortError' ? 'gone' : undefined;
}

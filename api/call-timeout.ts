/**
 * Every engine call a request makes is bounded: it carries a signal (the client API's `signal`) that
 * aborts when the call timeout passes (504 TIMEOUT) or when the caller closes the connection (nothing
 * is waited for on behalf of nobody). The clock starts once the request is in (body read, key and
 * schema checked): a slow upload does not spend it. What Temporal already holds stays: a start is
 * idempotent by external id, so the caller sends it again.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** How long a request may wait on the engine (Temporal, a workflow's answer) by default. */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

declare module 'fastify' {
  interface FastifyRequest {
    callSignal?: AbortSignal;
  }
}

export function installCallTimeouts(app: FastifyInstance, timeoutMs: number): void {
  app.decorateRequest('callSignal', undefined);
  app.addHook('preHandler', async (request, reply) => {
    // One controller and one timer a request, both released when the response closes.
    const calls = new AbortController();
    const timer = setTimeout(
      () => calls.abort(new DOMException(`no answer from the engine within ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    reply.raw.once('close', () => {
      clearTimeout(timer);
      if (!reply.raw.writableFinished) calls.abort(new DOMException('the caller closed the connection', 'AbortError'));
    });
    request.callSignal = calls.signal;
  });
}

/** The signal of a request's engine calls. */
export const callSignalOf = (request: FastifyRequest): AbortSignal | undefined => request.callSignal;

/** An abort of a request's calls: `timeout` when its call timeout passed, `gone` when its caller left. */
export function abortKind(error: unknown): 'timeout' | 'gone' | undefined {
  if (!(error instanceof DOMException)) return undefined;
  if (error.name === 'TimeoutError') return 'timeout';
  return error.name === 'AbortError' ? 'gone' : undefined;
}

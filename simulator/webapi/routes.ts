/**
 * The Web API's routes on the simulator's server: the token endpoint, the echo operations (both security
 * policies), the account reads (accounts.ts) and writes (writes.ts, agreements.ts), the portal's browser sessions (sso.ts),
 * the enumerations (enumerations.ts),
 * and the control routes under
 * `/_sim/webapi` (never counted, never faulted).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { TOKEN_PATH } from '../../webapi/index.js';
import { WebApiAuthority, WebApiRefusal } from './authority.js';
import { answer } from './answer.js';
import { registerAccountReads, registerStatusBulk } from './accounts.js';
import { registerAccountWrites } from './writes.js';
import { registerBrowserSessions } from './sso.js';
import { registerAgreements } from './agreements.js';
import { registerEnumerations } from './enumerations.js';
import type { PortalSessions } from './sso.js';
import type { Store } from '../store.js';
import type { CallCounts, FaultRule, Faults } from '../faults.js';

const registration = z.strictObject({
  clientId: z.string().min(1),
  csid: z.string().min(1),
  kid: z.string().min(1),
  publicKey: z.union([z.string().min(1), z.record(z.string(), z.unknown())]),
  scopes: z.array(z.string().min(1)).optional(),
});

/** What makes the Web API's calls counted, capped and faulted as the XML service's operations are. */
export interface Fallible {
  calls: CallCounts;
  faults: Faults;
  /** Answers a failure other than latency and lost-response (the XML service's routes' own). */
  fail: (rule: FaultRule, request: FastifyRequest, reply: FastifyReply) => unknown;
}

/**
 * Each Web API call, as the operation `webapi <METHOD> <route>` (`webapi PATCH /gw/api/v1/accounts`): counted
 * beside the XML service's operations, held to the rate cap (a 429 problem with `Retry-After`), and faulted by
 * the rules that name it (or `*`). A lost response does the work and never answers.
 */
function faultWebApi(app: FastifyInstance, { calls, faults, fail }: Fallible): void {
  const lost = new WeakSet<FastifyRequest>();
  app.addHook('preHandler', async (request, reply) => {
    const route = request.routeOptions.url;
    if (!(route?.startsWith('/gw/') || route?.startsWith('/oauth2/'))) return;
    const operation = `webapi ${request.method} ${route}`;
    calls.record(operation);
    if (!calls.rates.admit(operation, undefined)) {
      return reply
        .code(429)
        .header('retry-after', '1')
        .type('application/problem+json')
        .send({ type: 'about:blank', title: 'Too Many Requests', status: 429 });
    }
    const decision = faults.decide(operation);
    if (decision.latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, decision.latencyMs));
    if (decision.failure?.kind === 'lost-response') lost.add(request);
    else if (decision.failure) {
      fail(decision.failure, request, reply);
      return reply;
    }
    return undefined;
  });
  app.addHook('onSend', async (request, reply, payload) => {
    if (!lost.has(request)) return payload;
    // The work is done (and kept); the answer never leaves.
    request.raw.socket.destroy();
    return payload;
  });
}

/**
 * Serves the Web API's routes on `app`; answers its authorization server. `origin`: the address its clients
 * reach it at (the simulator's `publicUrl`), which names its token endpoint.
 */
export function mountWebApi(
  app: FastifyInstance,
  store: Store,
  portal: PortalSessions,
  origin: () => string,
  fallible?: Fallible,
): WebApiAuthority {
  const authority = new WebApiAuthority(Date.now, {
    registrations: store.webapiClients,
    changed: () => store.changed(),
  });
  if (fallible) faultWebApi(app, fallible);
  registerWebApiRoutes(app, authority, origin);
  registerAccountReads(app, authority, store, portal);
  registerStatusBulk(app, authority, store);
  registerAccountWrites(app, authority, store);
  registerAgreements(app, authority, store);
  registerEnumerations(app, authority);
  registerBrowserSessions(app, authority, store, portal);
  return authority;
}

function registerWebApiRoutes(app: FastifyInstance, authority: WebApiAuthority, origin: () => string): void {
  // A form is kept as sent: the token endpoint refuses a field sent twice (RFC 6749 §3.1).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, new URLSearchParams(body as string));
  });
  // A signed body: the document's copies show it as text; `application/jwt` is its media type (RFC 7519).
  app.addContentTypeParser('application/jwt', { parseAs: 'string' }, (_request, body, done) => done(null, body));

  app.post(TOKEN_PATH, (request, reply) =>
    answer(reply, () => {
      // Only a form (the document's one media type for generateToken): a JSON body is refused, as any other.
      const form = request.body;
      if (!(form instanceof URLSearchParams)) {
        throw new WebApiRefusal(400, 'a form body (application/x-www-form-urlencoded) is required');
      }
      // `aud` may name the token endpoint by its URL: at the address the simulator is reached at, as it was
      // told, never as the request's Host header says (an assertion signed for another endpoint is refused).
      return authority.token(form, new URL(TOKEN_PATH, origin()).toString());
    }),
  );
  const client = (request: FastifyRequest, scope: string) =>
    authority.authenticate(request.headers.authorization, scope);
  app.get('/gw/api/v1/echo/https', (request, reply) =>
    answer(reply, () => {
      client(request, 'echo.read');
      return { requestMethod: 'GET', securityPolicy: 'HTTPS', queryParameters: request.query ?? {} };
    }),
  );
  app.post('/gw/api/v1/echo/signed-jwt', (request, reply) =>
    answer(reply, () => {
      authority.signedBody(request.body, client(request, 'echo.write'));
      return { requestMethod: 'POST', securityPolicy: 'SIGNED_JWT', queryParameters: request.query ?? {} };
    }),
  );

  app.post('/_sim/webapi/clients', (request, reply) =>
    answer(reply, () => {
      const parsed = registration.safeParse(request.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new WebApiRefusal(400, `${issue.path.join('.') || 'body'}: ${issue.message}`);
      }
      authority.register(parsed.data);
      return { ok: true };
    }),
  );
  app.post<{ Params: { clientId: string } }>('/_sim/webapi/clients/:clientId/revoke', (request, reply) =>
    answer(reply, () => {
      authority.revokeTokens(request.params.clientId);
      return { ok: true };
    }),
  );
  app.get<{ Params: { clientId: string } }>('/_sim/webapi/clients/:clientId', (request, reply) =>
    answer(reply, () => ({ tokensIssued: authority.tokensIssued(request.params.clientId) })),
  );
}

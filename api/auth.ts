/**
 * Who may do what: every request but the public ones (health, readiness, the API's description)
 * carries `Authorization: Bearer <API key>`. A key belongs to one firm and one role; the firm of every
 * request is the key's, whatever the request says.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiProblem } from './problems.js';
import type { ApiRole } from '../runtime/api-keys.js';

export type { ApiRole };

/** The caller, as its API key says. */
export interface Principal {
  keyId: string;
  csid: string;
  role: ApiRole;
}

/** Looks a presented key up; undefined for a malformed, unknown or revoked one. */
export type KeyVerifier = (presented: string) => Promise<Principal | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
  }
  interface FastifyContextConfig {
    /** Roles allowed on the route; a route without roles is public. */
    roles?: readonly ApiRole[];
  }
}

/** Roles of the routes that read. */
export const READERS: readonly ApiRole[] = ['onboarding', 'staff', 'ops'];
/** Roles of the routes an onboarding system drives (start, provide documents, resubmit, poll now). */
export const ONBOARDING: readonly ApiRole[] = ['onboarding', 'staff'];
/** Roles of staff actions (abandon, reset, retry, temporary credentials). */
export const STAFF: readonly ApiRole[] = ['staff'];

const unauthenticated = (detail: string) =>
  new ApiProblem('UNAUTHENTICATED', detail, 'Authorization', { 'WWW-Authenticate': 'Bearer realm="eca"' });

/** The key of an `Authorization: Bearer …` header. */
function presentedKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined) throw unauthenticated('send the API key as "Authorization: Bearer <key>"');
  const match = /^Bearer ([\x21-\x7e]{1,512})$/.exec(header);
  if (!match) throw unauthenticated('the Authorization header is not "Bearer <key>"');
  return match[1]!;
}

/** Checks the key and the role of every request to a route that names its roles. */
export function installAuth(app: FastifyInstance, verify: KeyVerifier): void {
  app.decorateRequest('principal', undefined);
  app.addHook('onRequest', async (request) => {
    const roles = request.routeOptions.config.roles;
    if (roles === undefined) return;
    const principal = await verify(presentedKey(request));
    if (!principal) throw unauthenticated('the API key is unknown or revoked');
    if (!roles.includes(principal.role)) {
      throw new ApiProblem(
        'FORBIDDEN',
        `a key of role "${principal.role}" may not do this (roles: ${roles.join(', ')})`,
      );
    }
    request.principal = principal;
  });
}

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiProblem('UNAUTHENTICATED', 'no API key was checked for this route');
  return request.principal;
}

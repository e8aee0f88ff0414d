/**
 * Who may do what: every request but the public ones (health, readiness, the API's description)
 * carries `Authorization: Bearer <API key>`. A key belongs to one firm and one role; the firm of every
 * request is the key's, whatever the request says.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiProblem } from './problems.js';
import type { ApiRole } from '../runtime/api-keys.js';
import type { FirmRecord } from '../runtime/firms.js';
import { FirmDisabledError, FirmNotConfiguredError } from '../client/errors.js';

export type { ApiRole };

/** The caller, as its API key says. */
export interface Principal {
  keyId: string;
  csid: string;
  role: ApiRole;
}

/** Why a long request ends: a problem's code and detail. */
export interface StreamRefusal {
  code: 'UNAUTHENTICATED' | 'FIRM_DISABLED' | 'FIRM_NOT_CONFIGURED';
  detail: string;
}

/** Looks a presented key up; undefined for a malformed, unknown or revoked one. */
export type KeyVerifier = (presented: string) => Promise<Principal | undefined>;

declare module 'fastify' {
  interface FastifyRequest {
    principal?: Principal;
    /**
     * Why the request may go on no more, asked again (through the verifier's and the firms' caches): its key
     * revoked or without a role of the route, or its firm disabled; undefined while it may. For a request
     * that outlives its check, an event stream.
     */
    refusalNow?: () => Promise<StreamRefusal | undefined>;
    /** The caller's firm as its record says, on a route of new work (its settings: the sweep's slot). */
    firm?: FirmRecord;
  }
  interface FastifyContextConfig {
    /** Roles allowed on the route; a route without roles is public. */
    roles?: readonly ApiRole[];
    /**
     * The route starts new work for the caller's firm, or sends its events somewhere (a webhook endpoint
     * registered, replayed or resumed): refused while the firm is disabled or unknown.
     */
    newWork?: boolean;
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

/** Requests without a valid API key a client address may make in a minute (default). */
export const DEFAULT_FAILED_KEYS_PER_MINUTE = 30;

/** At most this many client addresses are counted at once; the oldest window goes first past it. */
const MAX_ADDRESSES = 10_000;

/**
 * Requests without a valid API key (absent, malformed, unknown or revoked), counted per client address in
 * fixed one-minute windows. Past the limit, the address is refused until its window ends, whatever key it
 * presents: guessing keys, or making the key database answer for unknown ones, costs one window a limit.
 */
export class FailedKeys {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whole seconds until `address` may present a key again; 0 when it may now. */
  retryAfter(address: string): number {
    const window = this.windows.get(address);
    const now = this.now();
    if (!window || window.endsAt <= now || window.count < this.perMinute) return 0;
    return Math.ceil((window.endsAt - now) / 1000);
  }

  fail(address: string): void {
    const now = this.now();
    let window = this.windows.get(address);
    if (!window || window.endsAt <= now) {
      this.windows.delete(address);
      if (this.windows.size >= MAX_ADDRESSES) this.prune(now);
      window = { count: 0, endsAt: now + 60_000 };
      this.windows.set(address, window);
    }
    window.count++;
  }

  /** Drops ended windows, then the oldest ones while over the bound (a map keeps insertion order). */
  private prune(now: number): void {
    for (const [address, window] of this.windows) if (window.endsAt <= now) this.windows.delete(address);
    for (const address of this.windows.keys()) {
      if (this.windows.size < MAX_ADDRESSES) break;
      this.windows.delete(address);
    }
  }
}

/** What the checks ask of the firms: whether one may take new work (api/firm.ts's `ApiFirms` is one). */
export interface ActiveFirms {
  /**
   * Resolves when the firm may take new work (an application, a maintenance request, an SSO link): its
   * record, where the firms are registered.
   */
  requireActive(csid: string): Promise<FirmRecord | void>;
}

/**
 * Checks the key and the role of every request to a route that names its roles. Requests without a valid
 * key are limited per client address (`failedKeys`, {@link FailedKeys}): past it, 429 with Retry-After.
 */
export function installAuth(
  app: FastifyInstance,
  verify: KeyVerifier,
  failedKeys: FailedKeys,
  firms?: ActiveFirms,
): void {
  app.decorateRequest('principal', undefined);
  app.decorateRequest('refusalNow', undefined);
  app.decorateRequest('firm', undefined);
  app.addHook('onRequest', async (request) => {
    const roles = request.routeOptions.config.roles;
    if (roles === undefined) return;
    const wait = failedKeys.retryAfter(request.ip);
    if (wait > 0) {
      throw new ApiProblem(
        'RATE_LIMITED',
        `over ${failedKeys.perMinute} requests a minute without a valid API key from this address; retry in ${wait} s`,
        undefined,
        { 'Retry-After': String(wait) },
      );
    }
    let principal: Principal | undefined;
    let presented: string;
    try {
      presented = presentedKey(request);
      principal = await verify(presented);
    } catch (error) {
      if (error instanceof ApiProblem) failedKeys.fail(request.ip);
      throw error;
    }
    if (!principal) {
      failedKeys.fail(request.ip);
      throw unauthenticated('the API key is unknown or revoked');
    }
    if (!roles.includes(principal.role)) {
      throw new ApiProblem(
        'FORBIDDEN',
        `a key of role "${principal.role}" may not do this (roles: ${roles.join(', ')})`,
      );
    }
    request.principal = principal;
    const { keyId, csid } = principal;
    if (request.routeOptions.config.newWork) request.firm = (await firms?.requireActive(csid)) ?? undefined;
    request.refusalNow = async () => {
      const again = await verify(presented);
      if (again?.keyId !== keyId || again.csid !== csid || !roles.includes(again.role)) {
        return { code: 'UNAUTHENTICATED', detail: 'the API key is unknown or revoked' };
      }
      return firmRefusal(firms, csid);
    };
  });
}

/** Why the firm works no more, if it does not (a stream of a disabled firm ends as one of a revoked key does). */
async function firmRefusal(firms: ActiveFirms | undefined, csid: string): Promise<StreamRefusal | undefined> {
  try {
    await firms?.requireActive(csid);
    return undefined;
  } catch (error) {
    if (error instanceof FirmDisabledError || error instanceof FirmNotConfiguredError) {
      return { code: error.code, detail: error.message };
    }
    throw error;
  }
}

/** The caller of an authenticated route. */
export function principalOf(request: FastifyRequest): Principal {
  if (!request.principal) throw new ApiProblem('UNAUTHENTICATED', 'no API key was checked for this route');
  return request.principal;
}

/** Asks again whether an authenticated request may go on (see `refusalNow`). */
export function refusalNowOf(request: FastifyRequest): () => Promise<StreamRefusal | undefined> {
  if (!request.refusalNow) throw new ApiProblem('UNAUTHENTICATED', 'no API key was checked for this route');
  return request.refusalNow;
}

/**
 * The Web API's authorization server, as the simulator plays it: the clients the brokerage registered
 * (each with its firm, its public keys by `kid` and its scopes), the token endpoint's checks of a
 * `private_key_jwt` assertion, the bearer tokens it issued, and the check of a signed body.
 *
 * Never kinder than the document, and where it is silent, the hardest choice (simulator/README.md, "Web
 * API"): a token request in a form body, in 2.29.0's fields or RFC 7523's (the document's earlier copy and
 * the brokerage's sample); the assertion must name this token endpoint as `aud` (`/token`, as the sample
 * signs it, or its URL), be valid for at most five minutes, and is taken once when it carries a `jti` (which
 * the sample does not); a scope asked for must be the client's; tokens are opaque (a client must not read
 * them) and live 50 minutes (the document says "~50 minutes" beside an example of 24 hours); a signed body
 * is valid for at most a day (the sample's), must be signed by a key of the token's own client, and is taken
 * once: by its `jti` when it carries one (optional: the document names none), else by its signed content.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { CLIENT_ASSERTION_TYPE, decodeJwt, JwtError, rsaPublicKey, TOKEN_PATH, verifyJwt } from '../../webapi/index.js';
import type { JwtClaims } from '../../webapi/index.js';

export interface RegisteredClient {
  clientId: string;
  /** The firm the client acts for. */
  csid: string;
  keys: Map<string, KeyObject>;
  scopes: string[];
}

export interface ClientRegistration {
  clientId: string;
  csid: string;
  kid: string;
  /** PEM text or a JWK. */
  publicKey: string | JsonWebKey;
  scopes?: string[];
}

/** Every scope of the account-management and echo operations. */
export const DEFAULT_SCOPES = [
  'accounts.read',
  'accounts.write',
  'enumerations.read',
  'forms.read',
  'validations.read',
  'sso-sessions.write',
  'sso-browser-sessions.write',
  'echo.read',
  'echo.write',
];

/** A refusal: the HTTP status and an RFC 9457 problem (as the document describes its 400s). */
export class WebApiRefusal extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 500,
    readonly detail: string,
  ) {
    super(detail);
  }

  get problem(): Record<string, unknown> {
    const titles = { 400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 500: 'Internal Server Error' } as const;
    return { type: 'about:blank', title: titles[this.status], status: this.status, detail: this.detail };
  }
}

interface IssuedToken {
  client: RegisteredClient;
  expiresAt: number;
  scopes: string[];
}

const ASSERTION_MAX_LIFETIME_S = 300;
/** The longest a signed body the brokerage's own material shows lives (its sample's: a day). */
const SIGNED_BODY_MAX_LIFETIME_S = 86_400;
/** The leeway {@link verifyJwt} gives `exp`: a body is remembered until it can no longer be taken. */
const EXPIRY_LEEWAY_S = 5;
/** How often, at most, the signed bodies past their `exp` are forgotten. */
const SWEEP_EVERY_MS = 1_000;

export class WebApiAuthority {
  /** The lifetime of the tokens issued from now on. */
  tokenLifetimeS = 50 * 60;
  private readonly clients = new Map<string, RegisteredClient>();
  private readonly tokens = new Map<string, IssuedToken>();
  /** Assertion ids taken, until their assertion would have expired. */
  private readonly seenJti = new Map<string, number>();
  /**
   * Signed bodies taken (`jti <client> <jti>`, or `body <SHA-256 of the signed header and claims>` for one
   * without a jti), each until its `exp` has passed: what a replay would be refused by, bounded by the
   * bodies' lifetimes.
   */
  private readonly seenBodies = new Map<string, number>();
  private nextBodySweep = 0;
  private readonly issued = new Map<string, number>();

  /**
   * `kept`: where registrations are kept across a restart (the store's, saved in the data dir); the ones it
   * holds are registered now. Tokens are not kept: after a restart every client asks for a new one.
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly kept?: { registrations: ClientRegistration[]; changed(): void },
  ) {
    for (const registration of kept?.registrations ?? []) this.add(registration);
  }

  /** Registers a client's public key (a second `kid` for a known client is a key added, as at a rotation). */
  register(registration: ClientRegistration): void {
    this.add(registration);
    if (this.kept) {
      const { registrations } = this.kept;
      const same = registrations.findIndex(
        (kept) => kept.clientId === registration.clientId && kept.kid === registration.kid,
      );
      if (same >= 0) registrations.splice(same, 1);
      registrations.push(registration);
      this.kept.changed();
    }
  }

  private add(registration: ClientRegistration): void {
    const { clientId, csid, kid } = registration;
    if (!/^[\x21-\x7e]{1,200}$/.test(clientId)) throw new WebApiRefusal(400, 'clientId: printable ASCII, 1 to 200');
    if (!/^[\x21-\x7e]{1,200}$/.test(kid)) throw new WebApiRefusal(400, 'kid: printable ASCII, 1 to 200');
    let key: KeyObject;
    try {
      key = rsaPublicKey(registration.publicKey);
    } catch (error) {
      throw new WebApiRefusal(400, `publicKey: ${(error as Error).message}`);
    }
    const client = this.clients.get(clientId) ?? { clientId, csid, keys: new Map(), scopes: [] };
    if (client.csid !== csid) throw new WebApiRefusal(400, `clientId ${clientId} is registered for another firm`);
    client.keys.set(kid, key);
    client.scopes = registration.scopes ?? DEFAULT_SCOPES;
    this.clients.set(clientId, client);
  }

  /** Tokens issued to a client (the simulator's own record). */
  tokensIssued(clientId: string): number {
    return this.issued.get(clientId) ?? 0;
  }

  /** Revokes every token of a client (as the brokerage may): its next call is a 401. */
  revokeTokens(clientId: string): void {
    for (const [value, token] of this.tokens) if (token.client.clientId === clientId) this.tokens.delete(value);
  }

  /**
   * `generateToken`: the form read as either of the token request's readings (2.29.0's `TokenRequest`, or
   * RFC 6749/7523's), the assertion verified; answers the `TokenResponse`. `tokenUrl` is this endpoint's URL
   * at the address the simulator is reached at (its `publicUrl`), never one a request names.
   */
  token(form: URLSearchParams, tokenUrl: string): Record<string, unknown> {
    const { assertion, clientIds, scope } = tokenRequest(form);
    let iss: unknown;
    try {
      iss = decodeJwt(assertion).claims.iss;
    } catch (error) {
      if (error instanceof JwtError) throw new WebApiRefusal(400, error.reason);
      throw error;
    }
    if (typeof iss !== 'string' || iss === '') throw new WebApiRefusal(400, 'iss and sub must be the client id');
    if (clientIds.some((id) => id !== iss)) throw new WebApiRefusal(400, 'clientId is not the assertion’s iss');
    const client = this.clients.get(iss);
    if (!client) throw new WebApiRefusal(400, 'unknown client');
    const claims = this.verified(assertion, client, ASSERTION_MAX_LIFETIME_S);
    if (claims.iss !== iss || claims.sub !== iss) throw new WebApiRefusal(400, 'iss and sub must be the client id');
    // This endpoint's identity: `/token` (the brokerage's sample, the issuer its tokens name) or its URL (RFC 7523).
    const audiences = [TOKEN_AUDIENCE, tokenUrl];
    const aud = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (!aud.some((value) => typeof value === 'string' && audiences.includes(value))) {
      throw new WebApiRefusal(400, `aud must be this token endpoint (${TOKEN_AUDIENCE} or ${tokenUrl})`);
    }
    const scopes = grantedScopes(scope, client);
    // `jti` is optional (RFC 7523 §3; the brokerage's sample sends none); one that is sent is taken once.
    if (claims.jti !== undefined) {
      if (typeof claims.jti !== 'string' || claims.jti === '') throw new WebApiRefusal(400, 'jti: a non-empty string');
      this.forgetExpiredJti();
      if (this.seenJti.has(claims.jti)) throw new WebApiRefusal(400, 'assertion already used (jti)');
      this.seenJti.set(claims.jti, (claims.exp as number) * 1000);
    }
    const value = randomBytes(32).toString('base64url');
    this.tokens.set(value, { client, expiresAt: this.now() + this.tokenLifetimeS * 1000, scopes });
    this.issued.set(client.clientId, this.tokensIssued(client.clientId) + 1);
    return { access_token: value, token_type: 'Bearer', expires_in: this.tokenLifetimeS, scope: scopes.join(' ') };
  }

  /** The client a bearer token (the `Authorization` header) was issued to, if it may use `scope`. */
  authenticate(authorization: string | undefined, scope: string): RegisteredClient {
    const value = /^Bearer ([A-Za-z0-9_-]+)$/i.exec(authorization ?? '')?.[1];
    const token = value === undefined ? undefined : this.tokens.get(value);
    if (!token || token.expiresAt <= this.now()) {
      if (value !== undefined) this.tokens.delete(value);
      throw new WebApiRefusal(401, 'Invalid or expired access token');
    }
    if (!token.scopes.includes(scope)) throw new WebApiRefusal(403, `Insufficient permissions (${scope})`);
    return token.client;
  }

  /** As {@link authenticate}, for an operation any one of whose `scopes` lets the token in. */
  authenticateAny(authorization: string | undefined, scopes: readonly string[]): RegisteredClient {
    const [first = '', ...others] = scopes;
    let refusal: unknown;
    for (const scope of [first, ...others]) {
      try {
        return this.authenticate(authorization, scope);
      } catch (error) {
        if (!(error instanceof WebApiRefusal) || error.status !== 403) throw error;
        refusal = error;
      }
    }
    throw refusal;
  }

  /** A signed body's claims (its own `iss`, `iat`, `exp` and `jti` taken off), verified with the client's keys, taken once. */
  signedBody(body: unknown, client: RegisteredClient): Record<string, unknown> {
    if (typeof body !== 'string' || body === '') throw new WebApiRefusal(403, 'JWT validation failed: no signed body');
    let claims: JwtClaims;
    try {
      claims = this.verified(body.trim(), client, SIGNED_BODY_MAX_LIFETIME_S);
    } catch (error) {
      throw error instanceof WebApiRefusal ? new WebApiRefusal(403, `JWT validation failed: ${error.detail}`) : error;
    }
    if (claims.iss !== client.clientId) throw new WebApiRefusal(403, 'JWT validation failed: iss is not the client');
    this.takeOnce(body.trim(), claims, client);
    const { iss: _iss, iat: _iat, exp: _exp, jti: _jti, ...payload } = claims;
    return payload;
  }

  /**
   * Takes a verified signed body, once: a second sending of it, or another body of the client with its `jti`,
   * is refused while it is valid (the document's answer to a signed body that fails, 403). A body without a
   * `jti` is known by its signed header and claims (the signature's encoding may vary, its bytes do not).
   */
  private takeOnce(body: string, claims: JwtClaims, client: RegisteredClient): void {
    let seen: string;
    if (claims.jti === undefined) {
      const signed = body.slice(0, body.lastIndexOf('.'));
      seen = `body ${createHash('sha256').update(signed).digest('hex')}`;
    } else {
      if (typeof claims.jti !== 'string' || claims.jti === '') {
        throw new WebApiRefusal(403, 'JWT validation failed: jti: a non-empty string');
      }
      seen = `jti ${client.clientId} ${claims.jti}`;
    }
    const now = this.now();
    if (now >= this.nextBodySweep) {
      for (const [key, until] of this.seenBodies) if (until <= now) this.seenBodies.delete(key);
      this.nextBodySweep = now + SWEEP_EVERY_MS;
    }
    const until = this.seenBodies.get(seen);
    if (until !== undefined && until > now) {
      throw new WebApiRefusal(
        403,
        claims.jti === undefined
          ? 'JWT validation failed: signed body already used'
          : 'JWT validation failed: jti already used',
      );
    }
    this.seenBodies.set(seen, ((claims.exp as number) + EXPIRY_LEEWAY_S) * 1000);
  }

  private verified(token: string, client: RegisteredClient, maxLifetimeS: number): JwtClaims {
    try {
      const { header } = decodeJwt(token);
      const key = client.keys.get(header.kid);
      if (!key) throw new WebApiRefusal(400, 'unknown kid for this client');
      return verifyJwt(token, key, { now: Math.floor(this.now() / 1000), maxLifetimeS });
    } catch (error) {
      if (error instanceof JwtError) throw new WebApiRefusal(400, error.reason);
      throw error;
    }
  }

  private forgetExpiredJti(): void {
    const now = this.now();
    for (const [jti, until] of this.seenJti) if (until + 60_000 < now) this.seenJti.delete(jti);
  }
}

/** The token endpoint's identity as the brokerage's sample signs it (and as its tokens name their issuer). */
export const TOKEN_AUDIENCE = '/token';

/** Each reading's fields: 2.29.0's `TokenRequest`, and RFC 6749/7521/7523's (the document's earlier copy, the sample). */
const DOCUMENT_FIELDS = ['clientAssertion', 'clientAssertionType', 'clientAuthenticationMethod', 'clientId'] as const;
const RFC_FIELDS = ['grant_type', 'client_assertion', 'client_assertion_type'] as const;

/**
 * The assertion a token request carries, with the client ids and the scope it names. Taken when one reading's
 * fields are all there; refused when none's are, when a field either reading names holds what that reading does
 * not allow, when a field is sent twice (RFC 6749 §3.1) or when the two readings name different assertions.
 */
function tokenRequest(form: URLSearchParams): { assertion: string; clientIds: string[]; scope?: string } {
  const repeated = [...new Set(form.keys())].find((name) => form.getAll(name).length > 1);
  if (repeated !== undefined) throw new WebApiRefusal(400, `${repeated}: sent more than once`);
  const field = (name: string) => form.get(name) ?? undefined;
  const expected: Array<[string, string]> = [
    ['clientAuthenticationMethod', 'private_key_jwt'],
    ['clientAssertionType', CLIENT_ASSERTION_TYPE],
    ['client_assertion_type', CLIENT_ASSERTION_TYPE],
    ['grant_type', 'client_credentials'],
  ];
  const wrong = expected.filter(([name, value]) => field(name) !== undefined && field(name) !== value);
  if (wrong.length > 0) {
    throw new WebApiRefusal(400, wrong.map(([name, value]) => `${name}: ${value} expected`).join('; '));
  }
  const complete = (names: readonly string[]) => names.every((name) => Boolean(field(name)));
  if (!complete(DOCUMENT_FIELDS) && !complete(RFC_FIELDS)) {
    throw new WebApiRefusal(
      400,
      `the token request needs ${DOCUMENT_FIELDS.join(', ')} (TokenRequest) or ${RFC_FIELDS.join(', ')} (RFC 7523)`,
    );
  }
  const assertions = [...new Set([field('clientAssertion'), field('client_assertion')].filter(Boolean))];
  if (assertions.length > 1) throw new WebApiRefusal(400, 'clientAssertion and client_assertion differ');
  const clientIds = [field('clientId'), field('client_id')].filter((id): id is string => id !== undefined);
  const scope = field('scope');
  return { assertion: assertions[0]!, clientIds, ...(scope !== undefined && { scope }) };
}

/**
 * The scopes a token carries: those asked for, each one the client's (else `invalid_scope`, RFC 6749 §5.2), or
 * every scope of the client when none is asked for (2.29.0's request has no `scope`).
 */
function grantedScopes(scope: string | undefined, client: RegisteredClient): string[] {
  if (scope === undefined) return client.scopes;
  const asked = scope.split(' ');
  if (scope.length < 4 || scope.length > 1024 || asked.some((one) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(one))) {
    throw new WebApiRefusal(
      400,
      'invalid_scope: scope is scope names separated by single spaces, 4 to 1024 characters',
    );
  }
  const unknown = asked.filter((one) => !client.scopes.includes(one));
  if (unknown.length > 0) {
    throw new WebApiRefusal(400, `invalid_scope: ${unknown.join(' ')} not registered for the client`);
  }
  return [...new Set(asked)];
}

export { TOKEN_PATH };

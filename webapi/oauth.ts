/**
 * OAuth 2.0 for the Web API: `private_key_jwt` client assertions (RFC 7523) exchanged at the token endpoint
 * (`POST /oauth2/api/v1/token`, operation `generateToken`) for bearer tokens, kept until shortly before they
 * expire. One {@link TokenSource} per registered client (a firm, or a master account of one): concurrent
 * callers share one token request, and a token the service refused (401) is dropped for a new one.
 *
 * The form carries both readings of the token request in one body (a server ignores the fields it does not
 * know, RFC 6749 §3.2): 2.29.0's `TokenRequest` (`clientAssertion`, `clientAssertionType`,
 * `clientAuthenticationMethod`, `clientId`) and RFC 6749/7521/7523's, which the document's earlier copy and
 * the brokerage's OAuth 2.0 sample use (`grant_type=client_credentials`, `client_assertion_type`,
 * `client_assertion`, `scope`: the scopes the engine's calls need). {@link tokenForm} is the one place that
 * names them. The document says nothing of the assertion's claims: it carries RFC 7523's (`iss` = `sub` = the
 * client id, `aud`, `iat`, `exp` one minute later, a unique `jti`) under the key's `kid`; `aud` is `/token`
 * unless set, as the brokerage's sample signs it and as its tokens name their issuer.
 */
import { randomUUID } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { z } from 'zod';
import {
  readAnswer,
  refuseRedirect,
  transportFailure,
  WebApiAuthError,
  WebApiHttpError,
  WebApiRequestError,
} from './errors.js';
import { rsaPrivateKey, signJwt } from './jwt.js';

/** What the brokerage registered for a client: its id, and the key (with its id) it signs with. */
export interface WebApiCredentials {
  clientId: string;
  /** The `kid` the brokerage knows the client's public key by. */
  keyId: string;
  /** The client's RSA private key: PEM text or a key object. Never logged, never in a message. */
  privateKey: string | KeyObject;
}

export interface TokenSourceOptions extends WebApiCredentials {
  /** The service's base URL (`https://api.ibkr.com`, the sandbox's, or the simulator's). */
  baseUrl: string;
  /** The assertion's `aud` ({@link DEFAULT_ASSERTION_AUDIENCE} unless set; the token endpoint's URL is the other reading). */
  assertionAudience?: string;
  /** The scopes asked for ({@link WEBAPI_SCOPES} unless set): at most those the brokerage registered for the client. */
  scopes?: readonly string[];
  /** How long before its expiry a token is replaced (default: a tenth of its lifetime, at most 5 minutes). */
  refreshBeforeMs?: number;
  timeoutMs?: number;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
  fetch?: typeof fetch;
}

export const TOKEN_PATH = '/oauth2/api/v1/token';
export const CLIENT_ASSERTION_TYPE = 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer';
/** How long an assertion is valid: the document's one signed-JWT recipe gives its bodies a minute. */
export const ASSERTION_LIFETIME_S = 60;
/** The assertion's `aud` unless a firm's settings say otherwise: the brokerage's OAuth 2.0 sample signs this. */
export const DEFAULT_ASSERTION_AUDIENCE = '/token';
/**
 * The scopes the engine's calls need: the account reads (status, tasks, look-ups, request details,
 * enumerations), the writes (create, account management, agreements) and the portal's browser sessions.
 */
export const WEBAPI_SCOPES: readonly string[] = ['accounts.read', 'accounts.write', 'sso-browser-sessions.write'];
/** RFC 6749 §3.3's scope-token: printable ASCII but space, double quote and backslash. */
export const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/** `TokenResponse`: what the client needs of it is required here; the rest is let through. */
export const TokenResponse = z.looseObject({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  token_type: z.string().regex(/^bearer$/i, 'a Bearer token'),
  scope: z.string().optional(),
});

interface Token {
  value: string;
  expiresAt: number;
  refreshAt: number;
  scope?: string;
}

/** The assertion a client signs to authenticate at the token endpoint, for `audience` (its `aud`). */
export function clientAssertion(credentials: WebApiCredentials, audience: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  return signJwt(
    {
      iss: credentials.clientId,
      sub: credentials.clientId,
      aud: audience,
      iat,
      exp: iat + ASSERTION_LIFETIME_S,
      jti: randomUUID(),
    },
    rsaPrivateKey(credentials.privateKey, `client ${credentials.clientId}'s private key`),
    credentials.keyId,
  );
}

/** The token request's form: 2.29.0's fields and RFC 6749/7523's (with `scope`) in one body. */
export function tokenForm(
  clientId: string,
  assertion: string,
  scopes: readonly string[] = WEBAPI_SCOPES,
): URLSearchParams {
  return new URLSearchParams({
    clientAssertion: assertion,
    clientAssertionType: CLIENT_ASSERTION_TYPE,
    clientAuthenticationMethod: 'private_key_jwt',
    clientId,
    grant_type: 'client_credentials',
    client_assertion_type: CLIENT_ASSERTION_TYPE,
    client_assertion: assertion,
    scope: scopes.join(' '),
  });
}

/** What is wrong with a list of scopes to ask for, if anything (RFC 6749 §3.3; the earlier copy's 4 to 1024 characters). */
export function scopesProblem(scopes: readonly string[]): string | undefined {
  if (scopes.length === 0) return 'at least one scope';
  const bad = scopes.find((scope) => !SCOPE_TOKEN.test(scope));
  if (bad !== undefined) return `"${bad}" is not a scope (printable ASCII without spaces, quotes or backslashes)`;
  const length = scopes.join(' ').length;
  if (length < 4 || length > 1024) return `the scopes, space-separated, take 4 to 1024 characters (${length})`;
  return undefined;
}

export class TokenSource {
  private current: Token | undefined;
  private pending: Promise<Token> | undefined;
  private readonly tokenUrl: string;
  private readonly audience: string;
  private readonly scopes: readonly string[];
  private readonly now: () => number;
  /** The client's key, read: what its assertions and signed bodies are signed with. */
  readonly signingKey: KeyObject;

  constructor(private readonly options: TokenSourceOptions) {
    if (!/^[\x21-\x7e]{1,200}$/.test(options.clientId)) {
      throw new WebApiRequestError('clientId', 'printable ASCII without spaces, 1 to 200 characters');
    }
    if (!/^[\x21-\x7e]{1,200}$/.test(options.keyId)) {
      throw new WebApiRequestError('keyId', 'printable ASCII without spaces, 1 to 200 characters');
    }
    this.audience = options.assertionAudience ?? DEFAULT_ASSERTION_AUDIENCE;
    if (!/^[\x21-\x7e]{1,2048}$/.test(this.audience)) {
      throw new WebApiRequestError('assertionAudience', 'printable ASCII without spaces, 1 to 2048 characters');
    }
    this.scopes = [...new Set(options.scopes ?? WEBAPI_SCOPES)];
    const wrong = scopesProblem(this.scopes);
    if (wrong !== undefined) throw new WebApiRequestError('scopes', wrong);
    // Read once: a key that cannot sign is told now, not at the first call.
    this.signingKey = rsaPrivateKey(options.privateKey, `client ${options.clientId}'s private key`);
    this.tokenUrl = new URL(TOKEN_PATH, options.baseUrl).toString();
    this.now = options.now ?? Date.now;
  }

  get clientId(): string {
    return this.options.clientId;
  }

  /** A bearer token valid for a while yet: the kept one, or a new one (one request for all who wait). */
  async token(): Promise<string> {
    const kept = this.current;
    if (kept && this.now() < kept.refreshAt) return kept.value;
    this.pending ??= this.request().finally(() => {
      this.pending = undefined;
    });
    return (await this.pending).value;
  }

  /** The service refused `token` (401): the next call asks for a new one, unless one replaced it already. */
  invalidate(token: string): void {
    if (this.current?.value === token) this.current = undefined;
  }

  private async request(): Promise<Token> {
    const { clientId } = this.options;
    const asked = this.now();
    const body = tokenForm(
      clientId,
      clientAssertion({ ...this.options, privateKey: this.signingKey }, this.audience, asked),
      this.scopes,
    );
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(this.tokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        // Never followed: a redirect would re-send the signed assertion to another address (WebApiRedirectError).
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw transportFailure('generateToken', error);
    }
    await refuseRedirect('generateToken', response);
    const text = await response.text();
    if (response.status === 400 || response.status === 401 || response.status === 403) {
      throw new WebApiAuthError(
        clientId,
        response.status,
        `the token endpoint refused the client (HTTP ${response.status})`,
      );
    }
    if (!response.ok) throw new WebApiHttpError('generateToken', response.status, '', retryAfterMs(response));
    const answer = readAnswer('generateToken', text, TokenResponse);
    const lifetimeMs = answer.expires_in * 1000;
    // Counted from when it was asked for: the answer's time on the way is not the token's.
    const expiresAt = asked + lifetimeMs;
    const before = this.options.refreshBeforeMs ?? Math.min(lifetimeMs / 10, 5 * 60_000);
    const token: Token = {
      value: answer.access_token,
      expiresAt,
      refreshAt: expiresAt - before,
      ...(answer.scope !== undefined && { scope: answer.scope }),
    };
    this.current = token;
    return token;
  }
}

/** `Retry-After` in milliseconds (seconds or an HTTP date), when the answer has one. */
export function retryAfterMs(response: Response): number | undefined {
  const value = response.headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/**
 * Typed errors of the brokerage's Web API library. As in eca/errors.ts, a message is fixed text plus
 * identifiers (client id, key id, status, field names): never a token, an assertion, a key or a body, and
 * the service's own words only quoted.
 *
 * Every error is a {@link BrokerageError} of the Web API (`protocol` `webapi`): its kind, and whether it proves
 * that nothing was processed, read from the OpenAPI document's statuses (400, 401, 403 and 415 answer a request
 * refused as it came; a 5xx, a 429 or an answer that cannot be read proves nothing).
 */

import type { ZodType } from 'zod';
import { BrokerageError, putOffWords } from '../domain/brokerage-errors.js';
import type { BrokerageErrorKind } from '../domain/brokerage-errors.js';

export type WebApiErrorCode =
  | 'WEBAPI_REQUEST'
  | 'WEBAPI_AUTH'
  | 'WEBAPI_HTTP'
  | 'WEBAPI_NETWORK'
  | 'WEBAPI_SCHEMA'
  | 'WEBAPI_JWT'
  | 'WEBAPI_ANSWER'
  | 'WEBAPI_DEFERRED';

export abstract class WebApiError extends BrokerageError {
  readonly protocol = 'webapi';
  readonly code: WebApiErrorCode;

  constructor(code: WebApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Input refused before anything was sent; `parameter` names what is wrong. `baseUrl`: the client's address,
 * refused before connecting (runtime/checked-fetch.ts), which the firm's settings or a DNS answer mend.
 */
export class WebApiRequestError extends WebApiError {
  readonly kind: BrokerageErrorKind;
  readonly notProcessed = true;

  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super('WEBAPI_REQUEST', `${parameter}: ${message}`);
    this.kind = parameter === 'baseUrl' ? 'address' : 'invalid-request';
  }
}

/** The token endpoint refused the client (its assertion, its key, its id): nothing else is sent until fixed. */
export class WebApiAuthError extends WebApiError {
  readonly kind = 'credentials';
  readonly notProcessed = true;

  constructor(
    readonly clientId: string,
    override readonly status: number,
    message: string,
  ) {
    super('WEBAPI_AUTH', `client ${clientId}: ${message}`);
  }
}

/** The document's statuses for a request refused as it came: nothing was processed, and a retry sends the same. */
const REFUSED_AS_SENT: ReadonlySet<number> = new Set([400, 403, 404, 415]);
/** 4xx answers that say "later", not "never". */
const LATER_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

/** An answer with a non-2xx status; `retryAfterMs` when the service said how long to wait (429, 503). */
export class WebApiHttpError extends WebApiError {
  constructor(
    readonly operation: string,
    override readonly status: number,
    readonly bodyExcerpt: string,
    override readonly retryAfterMs?: number,
  ) {
    super('WEBAPI_HTTP', `${operation}: HTTP ${status}`);
  }

  get kind(): BrokerageErrorKind {
    if (this.status >= 300 && this.status < 400) return 'address';
    // Refused twice, the second time with a new token: the firm's client is what the service refuses.
    if (this.status === 401) return 'credentials';
    if (REFUSED_AS_SENT.has(this.status)) return 'refused';
    if (LATER_4XX.has(this.status)) return 'put-off';
    return 'transport';
  }

  /** 404 is left out: the document gives it for an account or a request it does not know, after the fact. */
  get notProcessed(): boolean {
    return [400, 401, 403, 415].includes(this.status);
  }
}

/**
 * Not sent: the firm's pacing (`WebApiClientOptions.pace`) put the call off, so nothing reached the service
 * and the call may be made again after `retryAfterMs`.
 */
export class WebApiDeferredError extends WebApiError {
  readonly kind = 'put-off';
  readonly notProcessed = true;

  constructor(
    readonly operation: string,
    override readonly retryAfterMs: number,
    /** Why, in fixed words (a call budget spent for now, say). */
    readonly reason: string,
  ) {
    super('WEBAPI_DEFERRED', `${operation}: ${putOffWords(retryAfterMs, reason)}`);
  }
}

/**
 * The service answered a redirect (3xx): never followed, since the call would carry its assertion, token or
 * signed body to an address nobody checked. A configuration problem (the client's `baseUrl`), not a transient
 * fault.
 */
export class WebApiRedirectError extends WebApiHttpError {
  constructor(operation: string, status: number) {
    super(operation, status, '');
    this.message = `${operation}: HTTP ${status}, a redirect: redirects are never followed (baseUrl must name the service itself)`;
  }
}

/** Refuses an answer that is a redirect (3xx), which no call follows: its body dropped, a WebApiRedirectError thrown. */
export async function refuseRedirect(operation: string, response: Response): Promise<void> {
  if (response.status < 300 || response.status >= 400) return;
  await response.body?.cancel().catch(() => undefined);
  throw new WebApiRedirectError(operation, response.status);
}

/**
 * The code a fetch's failure carries as its cause's `code` when the transport refused the address before
 * connecting (the engine's checked transport, runtime/checked-fetch.ts; the same code as eca/errors.ts's, which
 * the layers keep this library from importing).
 */
const ADDRESS_REFUSED = 'ERR_ADDRESS_REFUSED';

function addressRefusal(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  return cause?.code === ADDRESS_REFUSED && typeof cause.message === 'string' ? cause.message : undefined;
}

/**
 * A fetch's failure as the Web API's error: an address the transport refused before connecting is a request
 * error naming the client's `baseUrl` (nothing was sent), anything else a network failure.
 */
export function transportFailure(operation: string, error: unknown): WebApiError {
  const refused = addressRefusal(error);
  if (refused !== undefined) return new WebApiRequestError('baseUrl', refused);
  return new WebApiNetworkError(operation, error);
}

/** Network failures before a connection exists: no byte of the request reached the service. */
const NOT_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

/** The call's fetch failed: no answer in time, or a connection that failed (`cause`: the fetch's failure). */
export class WebApiNetworkError extends WebApiError {
  readonly kind = 'transport';
  override readonly timedOut: boolean;
  /** A connection that never opened (the fetch's own cause names its system error): nothing reached the service. */
  readonly notProcessed: boolean;

  constructor(
    readonly operation: string,
    cause: unknown,
  ) {
    super('WEBAPI_NETWORK', `${operation}: ${(cause as Error).name}`, { cause });
    this.timedOut = (cause as Error | undefined)?.name === 'TimeoutError';
    const code = (cause as { cause?: { code?: unknown } } | undefined)?.cause?.code;
    this.notProcessed = typeof code === 'string' && NOT_CONNECTED.has(code);
  }
}

/** The answer is not of the document's shape; `path` names the first field that is not. */
export class WebApiSchemaError extends WebApiError {
  readonly kind = 'answer';
  readonly notProcessed = false;

  constructor(
    readonly operation: string,
    readonly path: string,
    message: string,
  ) {
    super('WEBAPI_SCHEMA', `${operation}: ${path}: ${message}`);
  }
}

/** An answer's body read with `schema`: its data, or a {@link WebApiSchemaError} naming the first field that is not. */
export function readAnswer<T>(operation: string, text: string, schema: ZodType<T>): T {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new WebApiSchemaError(operation, '(body)', 'not JSON');
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new WebApiSchemaError(operation, issue.path.join('.') || '(body)', issue.message);
}

/** A JSON Web Token that is malformed, badly signed, expired or not for this use; `reason` says which. */
export class JwtError extends WebApiError {
  /** In a call, the firm's own key or token is what cannot be used. */
  readonly kind = 'credentials';
  readonly notProcessed = true;

  constructor(readonly reason: string) {
    super('WEBAPI_JWT', `JWT refused: ${reason}`);
  }
}

/**
 * A 200 answer that says it failed (`hasError`, as the document's account answers carry their errors). The
 * service's words are kept quoted (eca/errors.ts `quoteService`), for logs to withhold.
 */
export class WebApiAnswerError extends WebApiError {
  readonly kind = 'refused';
  readonly notProcessed = false;

  constructor(
    readonly operation: string,
    readonly errorDescription: string | undefined,
  ) {
    super(
      'WEBAPI_ANSWER',
      `${operation}: the service answered an error${errorDescription ? ` «${errorDescription.replaceAll('»', '›')}»` : ''}`,
    );
  }
}

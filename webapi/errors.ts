/**
 * Typed errors of the brokerage's Web API library. As in eca/errors.ts, a message is fixed text plus
 * identifiers (client id, key id, status, field names): never a token, an assertion, a key or a body, and
 * the service's own words only quoted.
 */

import type { ZodType } from 'zod';

export type WebApiErrorCode =
  | 'WEBAPI_REQUEST'
  | 'WEBAPI_AUTH'
  | 'WEBAPI_HTTP'
  | 'WEBAPI_NETWORK'
  | 'WEBAPI_SCHEMA'
  | 'WEBAPI_JWT'
  | 'WEBAPI_ANSWER';

export class WebApiError extends Error {
  readonly code: WebApiErrorCode;

  constructor(code: WebApiErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Input refused before anything was sent; `parameter` names what is wrong. */
export class WebApiRequestError extends WebApiError {
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super('WEBAPI_REQUEST', `${parameter}: ${message}`);
  }
}

/** The token endpoint refused the client (its assertion, its key, its id): nothing else is sent until fixed. */
export class WebApiAuthError extends WebApiError {
  constructor(
    readonly clientId: string,
    readonly status: number,
    message: string,
  ) {
    super('WEBAPI_AUTH', `client ${clientId}: ${message}`);
  }
}

/** An answer with a non-2xx status; `retryAfterMs` when the service said how long to wait (429, 503). */
export class WebApiHttpError extends WebApiError {
  constructor(
    readonly operation: string,
    readonly status: number,
    readonly bodyExcerpt: string,
    readonly retryAfterMs?: number,
  ) {
    super('WEBAPI_HTTP', `${operation}: HTTP ${status}`);
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
  return new WebApiError('WEBAPI_NETWORK', `${operation}: ${(error as Error).name}`, { cause: error });
}

/** The answer is not of the document's shape; `path` names the first field that is not. */
export class WebApiSchemaError extends WebApiError {
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
  constructor(readonly reason: string) {
    super('WEBAPI_JWT', `JWT refused: ${reason}`);
  }
}

/**
 * A 200 answer that says it failed (`hasError`, as the document's account answers carry their errors). The
 * service's words are kept quoted (eca/errors.ts `quoteService`), for logs to withhold.
 */
export class WebApiAnswerError extends WebApiError {
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

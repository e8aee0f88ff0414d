/**
 * Typed errors of the brokerage web-service library.
 *
 * Every message is built from fixed text plus identifiers (parameter names, paths, status codes); none ever carries
 * a payload, a key, a password or personal data. The one text of the service's a message holds, an answer's
 * excerpt, is quoted ({@link quoteService}), so that a log can withhold it.
 *
 * Every error is a {@link BrokerageError} of the XML service (`protocol` `xml`): its kind and whether it proves
 * that nothing was processed are this library's reading of the spec, which shows no status for a failure.
 */
import { BrokerageError, putOffWords } from '../domain/brokerage-errors.js';
import type { BrokerageErrorKind } from '../domain/brokerage-errors.js';

/**
 * The service's own words (an error entry's text, an answer's excerpt) as a message of the engine quotes them:
 * between « and », any » in them made ›, so that nothing of them stands outside the quotation. The spec gives
 * no catalogue of these texts and one may name an account holder in prose, which no pattern tells from other
 * words: logs withhold every quotation ({@link withholdService}); staff read them where the message is kept.
 */
export function quoteService(text: string): string;
/** No text: nothing to quote (`quoteService(entry.error) ?? 'error entry'`). */
export function quoteService(text: string | undefined): string | undefined;
export function quoteService(text: string | undefined): string | undefined {
  return text === undefined ? undefined : `«${text.replaceAll('»', '›')}»`;
}

/** What a withheld quotation of the service reads. */
export const WITHHELD_SERVICE_TEXT = "«the service's words, withheld»";

/** `text` with every quotation of the service withheld; one cut short (a text cut at a limit) runs to the end. */
export function withholdService(text: string): string {
  return text.includes('«') ? text.replace(/«[^»]*(?:»|$)/g, WITHHELD_SERVICE_TEXT) : text;
}

export type EcaErrorCode =
  'ECA_REQUEST' | 'ECA_HTTP' | 'ECA_TIMEOUT' | 'ECA_NETWORK' | 'ECA_SCHEMA' | 'ECA_CRYPTO' | 'ECA_DEFERRED';

export abstract class EcaError extends BrokerageError {
  readonly protocol = 'xml';
  readonly code: EcaErrorCode;

  constructor(code: EcaErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** Input rejected before anything was sent; `parameter` names the offending request parameter (a path for nested input). */
export class EcaRequestError extends EcaError {
  readonly kind: BrokerageErrorKind = 'invalid-request';
  readonly notProcessed = true;
  readonly parameter: string;

  constructor(parameter: string, message: string, options?: { cause?: unknown }) {
    super('ECA_REQUEST', `${parameter}: ${message}`, options);
    this.parameter = parameter;
  }
}

/**
 * An address the transport refused before connecting (runtime/checked-fetch.ts): nothing was sent, as for any
 * request error, but what is wrong is the firm's brokerage URL (`parameter`: `baseUrl` or `preferenceUrl`) or
 * what its name resolves to, not the call's input. A configuration problem of the firm, retried once it is fixed
 * (a DNS answer may change too), never a request that fails for good.
 */
export class EcaAddressRefusedError extends EcaRequestError {
  override readonly kind = 'address';

  constructor(parameter: 'baseUrl' | 'preferenceUrl', message: string) {
    super(parameter, message);
  }
}

/** 4xx answers that say "later", not "never". */
const LATER_4XX: ReadonlySet<number> = new Set([408, 425, 429]);

/**
 * The service answered with a non-2xx status. The spec shows no status for a failure, so none proves that
 * nothing was processed; a 4xx other than 408, 425 and 429 is a refusal of the request as sent.
 */
export class EcaHttpError extends EcaError {
  readonly notProcessed = false;
  override readonly status: number;
  /** A short excerpt of the response body with payloads, file data, keys and secrets redacted. */
  readonly bodyExcerpt: string;
  readonly operation: string;

  constructor(operation: string, status: number, bodyExcerpt: string, options?: { cause?: unknown }) {
    super('ECA_HTTP', `${operation}: HTTP ${status}${bodyExcerpt ? ` (${quoteService(bodyExcerpt)})` : ''}`, options);
    this.operation = operation;
    this.status = status;
    this.bodyExcerpt = bodyExcerpt;
  }

  get kind(): BrokerageErrorKind {
    if (isRedirectStatus(this.status)) return 'address';
    if (this.status >= 500 || this.status < 400) return 'transport';
    return LATER_4XX.has(this.status) ? 'put-off' : 'refused';
  }
}

/**
 * The service answered a redirect (3xx): never followed, since a redirect would send the call (its signed body,
 * its credentials) to an address nobody checked. A configuration problem, not a transient fault: the brokerage's
 * URL (`baseUrl`, `preferenceUrl`) must name the service itself.
 */
export class EcaRedirectError extends EcaHttpError {
  constructor(operation: string, status: number) {
    super(operation, status, '');
    this.message = `${operation}: HTTP ${status}, a redirect: redirects are never followed (baseUrl and preferenceUrl must name the service itself)`;
  }
}

/** Whether a status is a redirect's (3xx), which no brokerage call follows. */
export function isRedirectStatus(status: number): boolean {
  return status >= 300 && status < 400;
}

/**
 * The code a fetch's failure carries (as its cause's `code`, as a refused connection carries `ECONNREFUSED`) when
 * it refused the address before connecting (the engine's checked transport, runtime/checked-fetch.ts): the
 * cause's message names the host and what it resolved to. The XML client answers it as an
 * {@link EcaAddressRefusedError} naming its URL: nothing was sent.
 */
export const ADDRESS_REFUSED = 'ERR_ADDRESS_REFUSED';

/** The refusal's words when `error` (a fetch's failure) is an address refused before connecting, else undefined. */
export function addressRefusal(error: unknown): string | undefined {
  const cause = error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  return cause?.code === ADDRESS_REFUSED && typeof cause.message === 'string' ? cause.message : undefined;
}

/**
 * Not sent: the caller's pacing (`EcaClientOptions.pace`) put the call off, so nothing reached the
 * service and the call may be made again after `retryAfterMs`.
 */
export class EcaDeferredError extends EcaError {
  readonly kind = 'put-off';
  readonly notProcessed = true;
  readonly operation: string;
  override readonly retryAfterMs: number;
  /** Why, in fixed words (a call budget spent for now, say). */
  readonly reason: string;

  constructor(operation: string, retryAfterMs: number, reason: string) {
    super('ECA_DEFERRED', `${operation}: ${putOffWords(retryAfterMs, reason)}`);
    this.operation = operation;
    this.retryAfterMs = retryAfterMs;
    this.reason = reason;
  }
}

export class EcaTimeoutError extends EcaError {
  readonly kind = 'transport';
  readonly notProcessed = false;
  override readonly timedOut = true;
  readonly operation: string;
  readonly timeoutMs: number;

  constructor(operation: string, timeoutMs: number, options?: { cause?: unknown }) {
    super('ECA_TIMEOUT', `${operation}: no response within ${timeoutMs} ms`, options);
    this.operation = operation;
    this.timeoutMs = timeoutMs;
  }
}

/** Network failures before a connection exists: no byte of the request reached the service. */
const NOT_CONNECTED: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN']);

export class EcaNetworkError extends EcaError {
  readonly kind = 'transport';
  override readonly timedOut = false;
  readonly operation: string;
  /** The system error code (`ECONNREFUSED`, `ECONNRESET`, ...) or the error's name when there is none. */
  readonly detail: string;

  constructor(operation: string, detail: string, options?: { cause?: unknown }) {
    super('ECA_NETWORK', `${operation}: network failure (${detail})`, options);
    this.operation = operation;
    this.detail = detail;
  }

  /** A connection that never opened: nothing of the call reached the service. */
  get notProcessed(): boolean {
    return NOT_CONNECTED.has(this.detail);
  }
}

/** A response (JSON body, XML file, CSV) did not have the expected shape; `path` locates the failing part. */
export class EcaSchemaError extends EcaError {
  readonly kind: BrokerageErrorKind = 'answer';
  readonly notProcessed = false;
  readonly path: string;

  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super('ECA_SCHEMA', `${path || '(root)'}: ${message}`, options);
    this.path = path;
  }
}

export type EcaCryptoPart =
  | 'brokeragePublicKey'
  | 'firmPrivateKey'
  | 'firmPublicKey'
  | 'brokeragePrivateKey'
  | 'passphrase'
  | 'signature'
  | 'payload';

/** The OpenPGP envelope failed; `key` names the key or part that is wrong or missing. */
export class EcaCryptoError extends EcaError {
  readonly kind = 'credentials';
  readonly key: EcaCryptoPart;
  /** `seal`: while sealing a request, so nothing was sent. Unset: anywhere else, an answer's opening included. */
  readonly stage?: 'seal';

  constructor(key: EcaCryptoPart, message: string, options?: { cause?: unknown; stage?: 'seal' }) {
    super('ECA_CRYPTO', `${key}: ${message}`, options);
    this.key = key;
    if (options?.stage) this.stage = options.stage;
  }

  /** Only a request that failed to seal was never sent; an answer that cannot be opened came from a call. */
  get notProcessed(): boolean {
    return this.stage === 'seal';
  }
}

const REDACTED = '[redacted]';
/** Field names whose values may hold payloads, file contents, keys or credentials. */
const SECRET_FIELD = /payload|filedata|^data$|key|passw|secret|token|signed_url|signedurl/i;
/** Long base64-like runs: encrypted payloads, armored blocks, file contents. */
const LONG_OPAQUE = /[A-Za-z0-9+/=_-]{40,}/g;
const PGP_BLOCK = /-----BEGIN PGP[\s\S]*?(-----END PGP[^-]*-----|$)/g;

function redactJson(value: unknown, depth = 0): unknown {
  if (depth > 8) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactJson(item, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [field, inner] of Object.entries(value)) {
      out[field] = SECRET_FIELD.test(field) ? REDACTED : redactJson(inner, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * A short excerpt of a response body that is safe to log: secret-looking JSON fields are replaced, long opaque runs
 * (base64, armored OpenPGP) are cut out, and the text is truncated.
 */
export function safeBodyExcerpt(body: string, maxLength = 200): string {
  let text = body;
  try {
    text = JSON.stringify(redactJson(JSON.parse(body) as unknown));
  } catch {
    // Not JSON: fall back to pattern-based redaction of the text itself.
  }
  text = text.replace(PGP_BLOCK, REDACTED).replace(LONG_OPAQUE, REDACTED).replace(/\s+/g, ' ').trim();
  return text.length > maxLength ? `${text.slice(0, maxLength)}…` : text;
}

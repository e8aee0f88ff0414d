/**
 * The Web API's calls: a bearer token from the client's {@link TokenSource} on every call, and for the
 * operations under the document's `SIGNED_JWT` policy a body that is itself a JWT of the request's JSON,
 * signed with the client's key. A 401 drops the token and the call is made once more with a new one (the
 * service refused it before doing anything); a 429 or 503 is a {@link WebApiHttpError} carrying the wait
 * the service asked for, for the caller's retry policy (an activity's) to honour.
 */
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import {
  readAnswer,
  refuseRedirect,
  transportFailure,
  WebApiAnswerError,
  WebApiHttpError,
  WebApiDeferredError,
  WebApiRequestError,
} from './errors.js';
import { paceOrDefer } from '../domain/brokerage-errors.js';
import { signJwt } from './jwt.js';
import { pages } from './pages.js';
import type { AccountStatusRequest } from './pages.js';
import type { JwtClaims } from './jwt.js';
import { retryAfterMs, TokenSource } from './oauth.js';
import type { TokenSourceOptions } from './oauth.js';
import {
  AccountStatusBulkResponse,
  AccountStatusResponse,
  ApplicationLookupResponse,
  BrowserSessionResponse,
  EchoResponse,
  EnumerationResponse,
  PendingTasksResponse,
  RequestDetailsResponse,
  StatusResponse,
  WEBAPI_ENUMERATION_TYPES,
  WEBAPI_LANGUAGES,
  WEBAPI_STATUS_LETTERS,
} from './schemas.js';
import type { RequestDetail, WebApiEnumerationType } from './schemas.js';
import type {
  AccountManagementRequests,
  CreateBrowserSessionRequest,
  WebApiApplication,
  WebApiDocument,
} from './application.js';

const DAY_MS = 86_400_000;
/** A bulk status read's window: 365 days (the document's range holds a year). */
const YEAR_MS = 365 * DAY_MS;

/** How long a signed body is valid: the document's one recipe ("JWT validity: 1 minute"). */
export const SIGNED_BODY_LIFETIME_S = 60;

/** The content type of a signed body (the document's copies show it as text). */
export const SIGNED_BODY_TYPE = 'application/jwt';

/** The narrowing fields of an enumeration read, named as the document names its query parameters. */
export interface EnumerationQuery {
  currency?: string;
  ibEntity?: string;
  mdStatusNonPro?: string;
  'form-number'?: string;
  language?: string;
  accountId?: string;
  userName?: string;
}

/** One call as it ended, for whoever counts them (the worker's metrics). */
export interface WebApiCallRecord {
  operation: string;
  /** From the call's start, its wait for a turn in the budget included. */
  durationMs: number;
  /** What the call threw; the field is absent when it answered. */
  error?: unknown;
}

export interface WebApiClientOptions extends TokenSourceOptions {
  /**
   * Waits for the call's turn in the firm's call budget before anything is sent (runtime/call-budget.ts), by
   * the client's operation name. Whatever stops the wait, nothing is sent, and the call throws a
   * `WebApiDeferredError` (domain/brokerage-errors.ts `paceOrDefer`).
   */
  pace?: (operation: string) => Promise<void>;
  /** Told of every call as it ends, answered or not; what it throws is ignored. */
  onCall?: (call: WebApiCallRecord) => void;
}

export class WebApiClient {
  readonly tokens: TokenSource;

  constructor(private readonly options: WebApiClientOptions) {
    this.tokens = new TokenSource(options);
  }

  /** `GET /gw/api/v1/echo/https`: the bearer token alone. */
  echoHttps(query: Record<string, string> = {}): Promise<EchoResponse> {
    const search = new URLSearchParams(query).toString();
    return this.call('echoHttps', 'GET', `/gw/api/v1/echo/https${search ? `?${search}` : ''}`, EchoResponse);
  }

  /** `POST /gw/api/v1/echo/signed-jwt`: the bearer token and a signed body. */
  echoSignedJwt(payload: Record<string, unknown> = {}): Promise<EchoResponse> {
    return this.call('echoSignedJwt', 'POST', '/gw/api/v1/echo/signed-jwt', EchoResponse, payload);
  }

  /** `GET /gw/api/v1/accounts/{accountId}/status`; an answer with `hasError` is a {@link WebApiAnswerError}. */
  async accountStatus(accountId: string): Promise<AccountStatusResponse> {
    return failed(
      'accountStatus',
      await this.call('accountStatus', 'GET', accountPath(accountId, 'status'), AccountStatusResponse),
    );
  }

  /** `GET /gw/api/v1/accounts/{accountId}/tasks?type=pending`. */
  async pendingTasks(accountId: string): Promise<PendingTasksResponse> {
    const path = `${accountPath(accountId, 'tasks')}?type=pending`;
    return failed('pendingTasks', await this.call('pendingTasks', 'GET', path, PendingTasksResponse));
  }

  /** `GET /gw/api/v1/accounts/status`: one page. */
  async accountStatusPage(request: AccountStatusRequest): Promise<AccountStatusBulkResponse> {
    const path = `/gw/api/v1/accounts/status?accountStatusRequest=${objectParameter(request)}`;
    return this.call('accountStatuses', 'GET', path, AccountStatusBulkResponse);
  }

  /** Every account started within the dates: the pages read in turn, each of `limit` (1000 unless told). */
  accountStatuses(request: AccountStatusRequest): AsyncGenerator<AccountStatusResponse> {
    return pages('accountStatuses', request, async (page) => {
      const read = await this.accountStatusPage(page);
      return { items: read.accounts, total: read.total };
    });
  }

  /**
   * Whether the firm's accounts list `accountId`: the bulk status read over the days from `since` (ten years
   * before `now` unless told) to a day after `now`, a year a window, the latest first, until it is found. The
   * document allows a 500 for a wrong account id ("`InternalServerError` can sometimes include subset of bad
   * requests. For example, wrong accountId passed"): this is how such an answer is told apart from the
   * service's own failure. Bounded: at most one read a page of each window.
   */
  async findAccount(
    accountId: string,
    options: { now?: Date; since?: Date } = {},
  ): Promise<AccountStatusResponse | undefined> {
    const now = (options.now ?? new Date(this.options.now?.() ?? Date.now())).getTime();
    const since = (options.since?.getTime() ?? now - 10 * YEAR_MS) - DAY_MS;
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    for (let end = now + DAY_MS; end > since; end -= YEAR_MS) {
      const start = Math.max(end - YEAR_MS + DAY_MS, since);
      for await (const account of this.accountStatuses({ startDate: day(start), endDate: day(end) })) {
        if (account.accountId === accountId) return account;
      }
    }
    return undefined;
  }

  /**
   * `POST /gw/api/v1/accounts`: the application, as a signed body. An answer with `hasError` is a
   * {@link WebApiAnswerError}; the account is read with {@link applicationByExternalId}.
   */
  async createAccount(application: WebApiApplication): Promise<StatusResponse> {
    const answer = await this.call('createAccount', 'POST', '/gw/api/v1/accounts', StatusResponse, { application });
    return failed('createAccount', answer);
  }

  /**
   * `GET /gw/api/v1/accounts?externalId=`: what became of the application with this external id (its account,
   * its failure, or nothing yet). `hasError` is answered as it comes: it says the application failed or is
   * not known, which the caller tells apart.
   */
  async applicationByExternalId(externalId: string): Promise<ApplicationLookupResponse> {
    if (externalId === '' || externalId.length > 200) throw new WebApiRequestError('externalId', '1 to 200 characters');
    const path = `/gw/api/v1/accounts?externalId=${encodeURIComponent(externalId)}`;
    return this.call('applicationByExternalId', 'GET', path, ApplicationLookupResponse);
  }

  /** `PATCH /gw/api/v1/accounts`: account management requests, as a signed body; answers the request's id. */
  async manageAccounts(requests: AccountManagementRequests): Promise<StatusResponse> {
    const body = { accountManagementRequests: requests };
    return failed(
      'manageAccounts',
      await this.call('manageAccounts', 'PATCH', '/gw/api/v1/accounts', StatusResponse, body),
    );
  }

  /**
   * `POST /gw/api/v1/accounts/documents`: the day's agreements and disclosures, as a signed
   * `ProcessDocumentsPayload`. The answer is returned as it comes, `hasError` included, for the caller to read.
   */
  submitAgreements(documents: WebApiDocument[]): Promise<StatusResponse> {
    const body = { processDocuments: { documents } };
    return this.call('submitAgreements', 'POST', '/gw/api/v1/accounts/documents', StatusResponse, body);
  }

  /** `GET /gw/api/v1/requests`: one page of the firm's requests within the dates. */
  async requestDetailsPage(request: AccountStatusRequest): Promise<RequestDetailsResponse> {
    const path = `/gw/api/v1/requests?requestDetails=${objectParameter(request)}`;
    return this.call('requestDetails', 'GET', path, RequestDetailsResponse);
  }

  /** Every request within the dates: the pages read in turn. */
  requestDetails(request: AccountStatusRequest): AsyncGenerator<RequestDetail> {
    return pages('requestDetails', request, async (page) => {
      const read = await this.requestDetailsPage(page);
      return { items: read.requestDetails, total: read.total };
    });
  }

  /**
   * `POST /gw/api/v1/sso-browser-sessions` (scope `sso-browser-sessions.write`, a signed body): a session of the
   * hosted portal for the end user `credential` (their user name), to be opened from `ip` alone. Not retried:
   * each call makes a session.
   */
  createBrowserSession(request: CreateBrowserSessionRequest): Promise<BrowserSessionResponse> {
    const path = '/gw/api/v1/sso-browser-sessions';
    return this.call('createBrowserSession', 'POST', path, BrowserSessionResponse, { ...request });
  }

  /**
   * `GET /gw/api/v1/enumerations/{enumerationType}` (scope `accounts.read` or `enumerations.read`): one of the
   * document's lists, with the query's narrowing fields (`currency` for `fin-info-ranges`, `form-number` and
   * `accountId` for `edd-avt`, `language`...) as the document names them.
   */
  async enumerations(type: WebApiEnumerationType, query: EnumerationQuery = {}): Promise<EnumerationResponse> {
    if (!(WEBAPI_ENUMERATION_TYPES as readonly string[]).includes(type)) {
      throw new WebApiRequestError('enumerationType', `one of ${WEBAPI_ENUMERATION_TYPES.join(', ')}`);
    }
    if (query.language !== undefined && !(WEBAPI_LANGUAGES as readonly string[]).includes(query.language)) {
      throw new WebApiRequestError('language', `one of ${WEBAPI_LANGUAGES.join(', ')}`);
    }
    const search = new URLSearchParams(
      Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ).toString();
    const path = `/gw/api/v1/enumerations/${type}${search ? `?${search}` : ''}`;
    return this.call('enumerations', 'GET', path, EnumerationResponse);
  }

  /**
   * `payload` as the signed body of a `SIGNED_JWT` operation: its fields as claims, `iss`, `iat`, `exp` and a
   * fresh random `jti`, so that no two bodies are the same and a brokerage can take each once. Every send signs
   * anew: the retry after a refused token is a body of its own.
   */
  signedBody(payload: Record<string, unknown>): string {
    const iat = Math.floor((this.options.now ?? Date.now)() / 1000);
    const claims: JwtClaims = {
      ...payload,
      iss: this.options.clientId,
      iat,
      exp: iat + SIGNED_BODY_LIFETIME_S,
      jti: randomUUID(),
    };
    return signJwt(claims, this.tokens.signingKey, this.options.keyId);
  }

  private async call<T>(
    operation: string,
    method: 'GET' | 'POST' | 'PATCH',
    path: string,
    schema: z.ZodType<T>,
    signed?: Record<string, unknown>,
  ): Promise<T> {
    const started = performance.now();
    let failure: { error: unknown } | undefined;
    try {
      const { pace } = this.options;
      if (pace) {
        await paceOrDefer(
          () => pace(operation),
          undefined,
          (waitMs, reason) => new WebApiDeferredError(operation, waitMs, reason),
        );
      }
      let response = await this.send(operation, method, path, signed);
      if (response.status === 401) {
        // Refused before anything was done: a new token, once.
        response = await this.send(operation, method, path, signed);
      }
      const text = await response.text();
      if (!response.ok) {
        throw new WebApiHttpError(operation, response.status, excerpt(text), retryAfterMs(response));
      }
      return readAnswer(operation, text, schema);
    } catch (error) {
      failure = { error };
      throw error;
    } finally {
      this.told(operation, started, failure);
    }
  }

  /** Tells `onCall` of a call that ended; counting a call never changes its outcome. */
  private told(operation: string, started: number, failure: { error: unknown } | undefined): void {
    try {
      this.options.onCall?.({ operation, durationMs: Math.round(performance.now() - started), ...failure });
    } catch {
      // What the hook throws is ignored (WebApiClientOptions.onCall).
    }
  }

  private async send(
    operation: string,
    method: string,
    path: string,
    signed: Record<string, unknown> | undefined,
  ): Promise<Response> {
    const token = await this.tokens.token();
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(new URL(path, this.options.baseUrl), {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(signed && { 'content-type': SIGNED_BODY_TYPE }),
        },
        ...(signed && { body: this.signedBody(signed) }),
        // Never followed: a 307 or 308 would re-send the token and the signed body to another address.
        redirect: 'manual',
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000),
      });
    } catch (error) {
      throw transportFailure(operation, error);
    }
    await refuseRedirect(operation, response);
    if (response.status === 401) this.tokens.invalidate(token);
    return response;
  }
}

/**
 * The object parameter as the document serializes it (`style: form`, `explode: false`): name,value pairs
 * joined by commas, each value encoded.
 */
function objectParameter(request: AccountStatusRequest): string {
  for (const field of ['startDate', 'endDate'] as const) {
    if (!isDay(request[field])) throw new WebApiRequestError(field, 'a day of the calendar, YYYY-MM-DD');
  }
  if (request.status !== undefined && !(WEBAPI_STATUS_LETTERS as readonly string[]).includes(request.status)) {
    throw new WebApiRequestError('status', `one of ${WEBAPI_STATUS_LETTERS.join(' ')}`);
  }
  if (
    request.limit !== undefined &&
    !(Number.isInteger(request.limit) && request.limit >= 1 && request.limit <= 1000)
  ) {
    throw new WebApiRequestError('limit', 'an integer from 1 to 1000');
  }
  if (request.offset !== undefined && !(Number.isInteger(request.offset) && request.offset >= 0)) {
    throw new WebApiRequestError('offset', 'an integer from 0');
  }
  return Object.entries(request)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name},${encodeURIComponent(String(value))}`)
    .join(',');
}

/** `YYYY-MM-DD` naming a day the calendar has (`2025-02-30` has the form, and `Date.parse` takes it). */
function isDay(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return day.toISOString().slice(0, 10) === text;
}

function accountPath(accountId: string, what: string): string {
  if (!/^[A-Za-z0-9]{1,32}$/.test(accountId)) throw new WebApiRequestError('accountId', 'letters and digits, 1 to 32');
  return `/gw/api/v1/accounts/${accountId}/${what}`;
}

function failed<T extends { hasError?: boolean; errorDescription?: string }>(operation: string, answer: T): T {
  if (answer.hasError === true) throw new WebApiAnswerError(operation, answer.errorDescription);
  return answer;
}

/**
 * The first 200 characters of an error answer, with anything that looks like a token or JWT withheld first:
 * cut before, a JWT across the cut would leave its head (base64 of a signed body's personal data) unmatched.
 * A JWT's parts are base64url; its head starts `eyJ` (`{"`), so a part cut short at the end is withheld too.
 */
export function excerpt(text: string): string {
  // Withheld within the first 8 KB only: the excerpt keeps 200 characters, and the patterns stay linear.
  return text
    .slice(0, 8192)
    .replace(/(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g, '(jwt)')
    .replace(/(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]*(\.[A-Za-z0-9_-]*)?/g, '(jwt)')
    .slice(0, 200);
}

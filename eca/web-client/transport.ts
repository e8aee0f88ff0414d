/**
 * The HTTP side of the client: addresses, one POST per call, the retries of read-only queries, and the mapping of
 * every failure to the library's errors (EcaHttpError, EcaTimeoutError, EcaNetworkError, EcaSchemaError).
 *
 * Only the read-only query operations are retried (on 5xx, 408, 429, dropped connections, an attempt past
 * `timeoutMs`, and a body that is not JSON). Writes are sent once: whether to repeat them is the caller's decision.
 */
import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import ky, { HTTPError, TimeoutError } from 'ky';
import {
  addressRefusal,
  EcaAddressRefusedError,
  EcaDeferredError,
  EcaError,
  EcaHttpError,
  EcaNetworkError,
  EcaRedirectError,
  EcaRequestError,
  EcaSchemaError,
  EcaTimeoutError,
  isRedirectStatus,
  safeBodyExcerpt,
} from '../errors.js';
import { paceOrDefer } from '../../domain/brokerage-errors.js';
import { responseSchemas, validateResponse } from '../schemas/index.js';
import type { EcaEnvironment } from '../sso.js';
import { OPERATION_PATHS } from './operations.js';
import type { EcaOperation } from './operations.js';
import type { EcaClientOptions } from './types.js';

/** Placeholders: a deployment passes the brokerage's addresses (`baseUrl`, `preferenceUrl`). */
export const ECA_BASE_URLS: Readonly<Record<EcaEnvironment, string>> = {
  qa: 'https://qa.eca.example.invalid',
  prod: 'https://eca.example.invalid',
};
export const ECA_PREFERENCE_URLS: Readonly<Record<EcaEnvironment, string>> = {
  qa: 'https://qa.preferences.eca.example.invalid',
  prod: 'https://preferences.eca.example.invalid',
};

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_QUERY_RETRY_LIMIT = 2;

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function checkUrl(url: string, parameter: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('protocol');
  } catch (cause) {
    throw new EcaRequestError(parameter, 'expected an http(s) URL', { cause });
  }
  return trimSlash(url);
}

function networkDetail(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}

/** How a call is sent: a read-only query may be retried, a write is sent once. */
export type SendMode = 'query' | 'once';

export interface Transport {
  /** Posts `body` as JSON; the answer's status and text. */
  send(operation: EcaOperation, body: unknown, mode: SendMode): Promise<{ status: number; text: string }>;
  /** Posts `body` and parses the answer as JSON (a query answered with broken JSON is asked again). */
  postJson(operation: EcaOperation, body: unknown, mode: SendMode): Promise<unknown>;
  /** A query operation: posted with retries, its answer validated with the operation's schema. */
  query<S extends keyof typeof responseSchemas>(
    operation: S & EcaOperation,
    body: Record<string, unknown>,
  ): Promise<{ parsed: ReturnType<(typeof responseSchemas)[S]['parse']>; raw: unknown }>;
}

/**
 * The library's error for a failed call; `read` bounds the reading of an error answer's body. A redirect is an
 * EcaRedirectError (never followed); an address the transport refused before connecting, an
 * EcaAddressRefusedError naming the URL the call was for (`parameter`): nothing was sent.
 */
async function libraryError(
  error: unknown,
  operation: EcaOperation,
  timeoutMs: number,
  read: (body: Promise<string>) => Promise<string>,
  parameter: 'baseUrl' | 'preferenceUrl',
): Promise<Error> {
  if (error instanceof HTTPError && isRedirectStatus(error.response.status)) {
    void error.response.body?.cancel().catch(() => undefined);
    return new EcaRedirectError(operation, error.response.status);
  }
  const refused = addressRefusal(error);
  if (refused !== undefined) return new EcaAddressRefusedError(parameter, refused);
  if (error instanceof HTTPError) {
    let text = '';
    try {
      text = await read(error.response.text());
    } catch {
      // The body is only for the excerpt.
    }
    // The ky error is not chained as cause: it references the request, whose body may hold the payload.
    return new EcaHttpError(operation, error.response.status, safeBodyExcerpt(text));
  }
  if (error instanceof TimeoutError) return new EcaTimeoutError(operation, timeoutMs);
  if (error instanceof EcaError) return error;
  return new EcaNetworkError(operation, networkDetail(error), { cause: error });
}

/**
 * The reading of an answer's body within `timeoutMs`: ky's timeout ends when the headers are in, so a body that
 * stalls would hold the call for as long as the connection lasts. Past the time, `signal` aborts the call.
 */
function boundedBodyRead(timeoutMs: number): { signal: AbortSignal; read: (body: Promise<string>) => Promise<string> } {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    read: (body) => {
      const timer = setTimeout(() => controller.abort(), timeoutMs);
      return body.finally(() => clearTimeout(timer));
    },
  };
}

/** The caller's pacing before a request (`EcaClientOptions.pace`): whatever stops it, an `EcaDeferredError`. */
function paced(
  pace: NonNullable<EcaClientOptions['pace']>,
  operation: EcaOperation,
  signal: AbortSignal | undefined,
): Promise<void> {
  return paceOrDefer(
    () => pace(operation, signal),
    signal,
    (waitMs, reason) => new EcaDeferredError(operation, waitMs, reason),
  );
}

/** The library's tracer: spans go nowhere until the process registers an OpenTelemetry SDK. */
const tracer = trace.getTracer('eca-onboarding/eca');

/**
 * One operation's HTTP call, as a span `eca <operation>` when tracing is on (a no-op otherwise): its
 * attributes are the operation, the mode and the HTTP status only, never a body, a key or personal data.
 */
function traced(
  operation: EcaOperation,
  mode: SendMode,
  call: () => Promise<{ status: number; text: string }>,
): Promise<{ status: number; text: string }> {
  return tracer.startActiveSpan(
    `eca ${operation}`,
    { kind: SpanKind.CLIENT, attributes: { 'eca.operation': operation, 'eca.mode': mode } },
    async (span) => {
      try {
        const answer = await call();
        span.setAttribute('http.response.status_code', answer.status);
        return answer;
      } catch (error) {
        if (error instanceof EcaHttpError) span.setAttribute('http.response.status_code', error.status);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.name : 'Error' });
        throw error;
      } finally {
        span.end();
      }
    },
  );
}

export function createTransport(options: EcaClientOptions, environment: EcaEnvironment): Transport {
  const baseUrl = checkUrl(options.baseUrl ?? ECA_BASE_URLS[environment], 'baseUrl');
  const preferenceUrl = checkUrl(options.preferenceUrl ?? ECA_PREFERENCE_URLS[environment], 'preferenceUrl');
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryLimit =
    typeof options.retry === 'number' ? options.retry : (options.retry?.limit ?? DEFAULT_QUERY_RETRY_LIMIT);
  const retryDelayMs = typeof options.retry === 'object' ? (options.retry.delayMs ?? 300) : 300;

  const http = ky.create({
    timeout: timeoutMs,
    throwHttpErrors: true,
    // A 3xx is answered as it came and refused (EcaRedirectError): a redirect would send the signed body elsewhere.
    redirect: 'manual',
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: { accept: 'application/json' },
  });

  function send(operation: EcaOperation, body: unknown, mode: SendMode): Promise<{ status: number; text: string }> {
    return traced(operation, mode, () => post(operation, body, mode));
  }

  async function post(
    operation: EcaOperation,
    body: unknown,
    mode: SendMode,
  ): Promise<{ status: number; text: string }> {
    const parameter = operation === 'preferenceSet' ? 'preferenceUrl' : 'baseUrl';
    const url = `${parameter === 'preferenceUrl' ? preferenceUrl : baseUrl}${OPERATION_PATHS[operation]}`;
    const bodyRead = boundedBodyRead(timeoutMs);
    try {
      const own = options.signal?.();
      const response = await http.post(url, {
        json: body,
        signal: own ? AbortSignal.any([own, bodyRead.signal]) : bodyRead.signal,
        ...(options.pace && { hooks: { beforeRequest: [() => paced(options.pace!, operation, own)] } }),
        retry:
          mode === 'query'
            ? {
                limit: retryLimit,
                methods: ['post'],
                statusCodes: [408, 429, 500, 502, 503, 504],
                // `timeoutMs` is per attempt: a query held past it is asked again, as a 5xx is.
                retryOnTimeout: true,
                delay: (attempt) => retryDelayMs * 2 ** (attempt - 1),
                // The pacing's own refusal is final here, and so is an address refused: nothing was sent.
                shouldRetry: ({ error }) =>
                  error instanceof EcaDeferredError || addressRefusal(error) !== undefined ? false : undefined,
              }
            : { limit: 0 },
      });
      return { status: response.status, text: await bodyRead.read(response.text()) };
    } catch (error) {
      if (bodyRead.signal.aborted) throw new EcaTimeoutError(operation, timeoutMs);
      throw await libraryError(error, operation, timeoutMs, bodyRead.read, parameter);
    }
  }

  async function postJson(operation: EcaOperation, body: unknown, mode: SendMode): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const { text } = await send(operation, body, mode);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // A query answered with broken JSON is asked again, as a 5xx is; a write is never repeated here.
        if (mode !== 'query' || attempt >= retryLimit || options.signal?.()?.aborted) {
          throw new EcaSchemaError('', `the ${operation} response is not JSON`);
        }
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** attempt));
      }
    }
  }

  async function queryAccounts<S extends keyof typeof responseSchemas>(
    operation: S & EcaOperation,
    body: Record<string, unknown>,
  ): Promise<{ parsed: ReturnType<(typeof responseSchemas)[S]['parse']>; raw: unknown }> {
    const raw = await postJson(operation, body, 'query');
    return {
      parsed: validateResponse(responseSchemas[operation], raw) as ReturnType<(typeof responseSchemas)[S]['parse']>,
      raw,
    };
  }

  return { send, postJson, query: queryAccounts };
}

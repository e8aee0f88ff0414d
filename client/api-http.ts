/**
 * One call to the onboarding API (api/) with an API key: JSON in, JSON out, and its RFC 9457 problem
 * answers as one typed error that carries the problem's status, stable `code` and `field`. What the CLI's
 * commands on webhooks and deadlines use; any program in TypeScript may too.
 */

/** The API and a key of the firm. */
export interface ApiTarget {
  /** The API's base URL (`http://127.0.0.1:8080`). */
  url: string;
  apiKey: string;
  signal?: AbortSignal;
}

/** A problem the API answered (RFC 9457): `code` is stable per kind of error, `field` names the input. */
export class OnboardingApiError extends Error {
  override readonly name = 'OnboardingApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly field?: string,
  ) {
    super(detail);
  }
}

/** The API could not be reached, or answered something that is not the API's. */
export class OnboardingApiUnreachable extends Error {
  override readonly name = 'OnboardingApiUnreachable';
}

interface ProblemBody {
  code?: unknown;
  detail?: unknown;
  field?: unknown;
}

/** The problem of an answer that is not 2xx; a body that is not a problem still makes one, from its status. */
async function problemOf(response: Response): Promise<OnboardingApiError> {
  const text = await response.text().catch(() => '');
  let body: ProblemBody = {};
  try {
    body = JSON.parse(text) as ProblemBody;
  } catch {
    // Not JSON: a proxy's page, say. Its first characters tell what answered.
  }
  const code = typeof body.code === 'string' ? body.code : `HTTP_${response.status}`;
  const detail =
    typeof body.detail === 'string'
      ? body.detail
      : `HTTP ${response.status} ${response.statusText}${text ? `: ${text.slice(0, 200)}` : ''}`;
  return new OnboardingApiError(response.status, code, detail, typeof body.field === 'string' ? body.field : undefined);
}

/**
 * `method path` on the API with `body` as JSON; the answer's JSON (undefined for 204). A problem answer
 * throws OnboardingApiError; a network failure OnboardingApiUnreachable.
 */
export async function callApi<T>(target: ApiTarget, method: string, path: string, body?: unknown): Promise<T> {
  const url = `${target.url.replace(/\/+$/, '')}${path}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${target.apiKey}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: target.signal,
    });
  } catch (error) {
    if (target.signal?.aborted) throw error;
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw new OnboardingApiUnreachable(
      `cannot reach the onboarding API at ${target.url}: ${cause?.code ?? cause?.message ?? (error as Error).message}`,
      { cause: error },
    );
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new OnboardingApiUnreachable(`${target.url} did not answer JSON (is it the onboarding API?)`);
  }
}

/**
 * One webhook delivery over HTTP: the event's JSON, signed the Standard Webhooks way with the
 * `standardwebhooks` package, so that a receiver verifying with it accepts every delivery.
 *
 * Headers: `webhook-id` (the event's id: the same on every retry and replay, the receiver's key to
 * drop duplicates), `webhook-timestamp` (seconds since the epoch, when this attempt was sent) and
 * `webhook-signature` (`v1,<base64>` per live secret, space separated: during a rotation the old and
 * the new secret both sign). The signature covers the exact bytes of the body sent.
 */
import { Webhook } from 'standardwebhooks';
import type { LifecycleEventRecord } from '../domain/events.js';
import { ADDRESS_REFUSED, checkedFetch as sharedCheckedFetch } from '../runtime/checked-fetch.js';
import type { Resolver } from '../runtime/checked-fetch.js';

/** What the receiver did with one delivery. */
export type PostOutcome = { ok: true; status: number } | { ok: false; error: string };

export interface PostOptions {
  fetch: typeof fetch;
  timeoutMs: number;
  /** Ends the request early (the activity was cancelled). */
  signal?: AbortSignal;
}

/** The three Standard Webhooks headers for `body`, signed at `now` with every secret. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  now = new Date(),
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = new Date(Math.floor(now.getTime() / 1000) * 1000);
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp.getTime() / 1000),
    'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(id, timestamp, body)).join(' '),
  };
}

export type { Resolver } from '../runtime/checked-fetch.js';

/**
 * The deliveries' transport (runtime/checked-fetch.ts): the socket connects only to addresses a receiver may
 * have, the receiver's name resolved and every address it resolves to checked (`checkedLookup`: no DNS
 * rebinding between the check and the connection); an address written in the URL is checked as it stands.
 * Never follows a redirect.
 */
export function checkedFetch(resolve?: Resolver): typeof fetch {
  return sharedCheckedFetch({ ...(resolve && { resolve }), what: 'a receiver' });
}

/** Why a request got no answer: its code (`ECONNREFUSED`) rather than the URL or anything it carried. */
function transportError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return error.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'request aborted';
  }
  const cause = error instanceof Error ? (error.cause as { code?: string; message?: string } | undefined) : undefined;
  // A refused address is said whole: the receiver's name and what it resolved to, which the firm must fix.
  if (cause?.code === ADDRESS_REFUSED) return `request refused: ${cause.message}`;
  const detail = cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
  return `request failed: ${detail}`;
}

/** POSTs one event; any 2xx is an acknowledgement, anything else (redirects too) a failure. */
export async function postEvent(
  url: string,
  event: LifecycleEventRecord,
  secrets: readonly string[],
  options: PostOptions,
): Promise<PostOutcome> {
  if (secrets.length === 0) return { ok: false, error: 'the endpoint has no live secret to sign with' };
  const body = JSON.stringify(event);
  const timeout = AbortSignal.timeout(options.timeoutMs);
  try {
    const response = await options.fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'eca-onboarding-webhooks/1',
        ...webhookHeaders(secrets, event.id, body),
      },
      body,
      redirect: 'manual',
      signal: options.signal ? AbortSignal.any([timeout, options.signal]) : timeout,
    });
    // The answer's body is not kept nor read (it could hold anything, of any size): dropped, which frees the connection.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, error: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` };
  } catch (error) {
    return { ok: false, error: transportError(error, options.timeoutMs) };
  }
}

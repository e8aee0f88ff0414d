/**
 * One webhook delivery over HTTP: the event's JSON, signed the Standard Webhooks way with the
 * `standardwebhooks` package, so that a receiver verifying with it accepts every delivery.
 *
 * Headers: `webhook-id` (the event's id: the same on every retry and replay, the receiver's key to
 * drop duplicates), `webhook-timestamp` (seconds since the epoch, when this attempt was sent) and
 * `webhook-signature` (`v1,<base64>` per live secret, space separated: during a rotation the old and
 * the new secret both sign). The signature covers the exact bytes of the body sent.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { LifecycleEventRecord } from '../domain/events.js';
import { refusedHost } from '../runtime/webhook-input.js';

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

/** How a name is resolved: every address of it (`dns.lookup` with `all`). */
export type Resolver = (hostname: string, options: LookupAllOptions) => Promise<LookupAddress[]>;

/** A delivery's address refused: what `transportError` says whole (the name, and what it resolved to). */
const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

function addressRefused(message: string): Error {
  return Object.assign(new Error(message), { code: ADDRESS_REFUSED });
}

const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, options, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

/**
 * A `lookup` for the sockets of deliveries: the receiver's name is resolved, every address it resolves to
 * is checked as registration checks a URL's host (`refusedHost`: no metadata service, link-local,
 * unspecified or multicast address), and the socket connects to an address so checked, never to one a
 * second resolution gives (no DNS rebinding between the check and the connection).
 */
export function checkedLookup(resolve: Resolver = systemResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true })
      .then((addresses) => {
        for (const { address } of addresses) {
          const refused = refusedHost(address);
          if (refused) throw addressRefused(`${hostname} resolves to ${address}, ${refused}: never a receiver`);
        }
        if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        if (options.all) (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/**
 * The deliveries' transport, fetch-shaped: one request over node:http(s) whose socket connects only to
 * checked addresses (`checkedLookup`; an address written in the URL is checked as it stands). Never follows
 * a redirect; the answer's body is read and dropped.
 */
export function checkedFetch(resolve?: Resolver): typeof fetch {
  const lookup = checkedLookup(resolve);
  return (input, init = {}) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const refused = refusedHost(url.hostname);
    if (refused) {
      const cause = addressRefused(`${url.hostname} is ${refused}: never a receiver`);
      return Promise.reject(new TypeError('fetch failed', { cause }));
    }
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
        method: init.method ?? 'GET',
        headers: init.headers as Record<string, string>,
        lookup,
        ...(signal && { signal }),
      });
      request.once('response', (response) => {
        response.resume();
        response.once('end', () => {
          const status = response.statusCode ?? 0;
          // A Response holds 200 to 599 only; any other status is no acknowledgement either.
          if (status < 200 || status > 599)
            reject(new TypeError('fetch failed', { cause: new Error(`HTTP ${status}`) }));
          else resolve(new Response(null, { status, statusText: response.statusMessage ?? '' }));
        });
        response.once('error', reject);
      });
      // An aborted request answers its signal's reason (a TimeoutError past the timeout), as fetch does.
      request.once('error', (error) =>
        reject(signal?.aborted ? (signal.reason as Error) : new TypeError('fetch failed', { cause: error })),
      );
      request.end(typeof init.body === 'string' ? init.body : undefined);
    });
  };
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
    // The answer's body is not kept (it could hold anything); reading it frees the connection.
    await response.arrayBuffer().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { ok: true, status: response.status };
    return { ok: false, error: `HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}` };
  } catch (error) {
    return { ok: false, error: transportError(error, options.timeoutMs) };
  }
}

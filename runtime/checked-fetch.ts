/**
 * The engine's outbound HTTP to addresses someone else named (a webhook receiver's URL, a firm's brokerage URLs):
 * a fetch whose socket connects only to addresses that pass the registry's host rules (`refusedHost` in
 * runtime/webhook-input.ts), checked after the name is resolved, and that never follows a redirect. One mechanism
 * for webhook deliveries (activities/webhook-post.ts) and for every brokerage call (runtime/firm-brokerages.ts,
 * runtime/brokerage.ts).
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress, LookupAllOptions } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { refusedHost } from './webhook-input.js';
import { ADDRESS_REFUSED } from '../eca/errors.js';

/** How a name is resolved: every address of it (`dns.lookup` with `all`). */
export type Resolver = (hostname: string, options: LookupAllOptions) => Promise<LookupAddress[]>;

export { ADDRESS_REFUSED };

function addressRefused(message: string): Error {
  return Object.assign(new Error(message), { code: ADDRESS_REFUSED });
}

const systemResolver: Resolver = (hostname, options) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, options, (error, addresses) => (error ? reject(error) : resolve(addresses))),
  );

export interface CheckedOptions {
  /** How names are resolved (tests give their own); the system's resolver by default. */
  resolve?: Resolver;
  /** What the address is for, in refusals: `never a receiver` (webhooks), `never a brokerage`. */
  what?: string;
}

/**
 * A `lookup` for sockets: the name is resolved, every address it resolves to is checked as registration checks a
 * URL's host (`refusedHost`: no metadata service, link-local, unspecified or multicast address), and the socket
 * connects to an address so checked, never to one a second resolution gives (no DNS rebinding between the check
 * and the connection).
 */
export function checkedLookup(options: CheckedOptions = {}): LookupFunction {
  const resolve = options.resolve ?? systemResolver;
  const what = options.what ?? 'a receiver';
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true })
      .then((addresses) => {
        for (const { address } of addresses) {
          const refused = refusedHost(address);
          if (refused) throw addressRefused(`${hostname} resolves to ${address}, ${refused}: never ${what}`);
        }
        if (addresses.length === 0) throw Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' });
        if (lookupOptions.all) (callback as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/** Statuses whose answer has no body (a Response refuses one). */
const NULL_BODY = new Set([101, 204, 205, 304]);

/** A request's body as node:http writes it. */
async function bodyBytes(body: unknown): Promise<Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof URLSearchParams) return Buffer.from(body.toString());
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return Buffer.from(await new Response(body as ConstructorParameters<typeof Response>[0]).arrayBuffer());
}

/**
 * Fetch-shaped: one request over node:http(s) whose socket connects only to checked addresses (`checkedLookup`; an
 * address written in the URL is checked as it stands). Never follows a redirect: a 3xx is answered as it came, for
 * the caller to refuse. Takes a URL and init, or a Request (ky's way); the answer's body streams.
 */
export function checkedFetch(options: CheckedOptions = {}): typeof fetch {
  const lookup = checkedLookup(options);
  const what = options.what ?? 'a receiver';
  // Sockets of its own, kept alive as the global agent's are (idle ones closed after 5 s): a socket another part of
  // the process opened, through another lookup, is never reused for these requests.
  const agents = {
    http: new HttpAgent({ keepAlive: true, scheduling: 'lifo', timeout: 5_000 }),
    https: new HttpsAgent({ keepAlive: true, scheduling: 'lifo', timeout: 5_000 }),
  };
  return async (input, init = {}) => {
    const request = input instanceof Request ? input : undefined;
    const url = new URL(request ? request.url : input instanceof URL ? input.href : input);
    const refused = refusedHost(url.hostname);
    if (refused)
      throw new TypeError('fetch failed', { cause: addressRefused(`${url.hostname} is ${refused}: never ${what}`) });
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new TypeError('fetch failed', {
        cause: addressRefused(`scheme ${url.protocol.replace(/:$/, '')} is not http or https`),
      });
    }
    // node:http would send them as a Basic authorization; fetch refuses such a URL, and so does this.
    if (url.username !== '' || url.password !== '') {
      throw new TypeError('fetch failed', { cause: addressRefused('a URL with a user name or password: never sent') });
    }
    const signal = init.signal ?? request?.signal ?? undefined;
    const headers = new Headers(init.headers ?? request?.headers);
    const body = await bodyBytes(init.body ?? (request?.body ? await request.arrayBuffer() : undefined));
    if (body && !headers.has('content-type') && init.body instanceof URLSearchParams) {
      headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    }
    if (body) headers.set('content-length', String(body.length));
    signal?.throwIfAborted();
    return new Promise<Response>((resolve, reject) => {
      const https = url.protocol === 'https:';
      const outgoing = (https ? httpsRequest : httpRequest)(url, {
        method: init.method ?? request?.method ?? 'GET',
        headers: Object.fromEntries(headers),
        lookup,
        agent: https ? agents.https : agents.http,
      });
      /** The answer's body, once it streams: an abort fails it with the signal's reason. */
      let streaming: IncomingMessage | undefined;
      // An aborted request fails with its signal's reason (a TimeoutError past the timeout), as fetch does: before
      // its answer, and while the answer's body streams.
      const abort = () => {
        const reason = signal!.reason as Error;
        if (streaming) streaming.destroy(reason);
        outgoing.destroy(reason);
      };
      signal?.addEventListener('abort', abort, { once: true });
      const settled = () => signal?.removeEventListener('abort', abort);
      outgoing.once('response', (response) => {
        response.once('close', settled);
        const status = response.statusCode ?? 0;
        // A Response holds 200 to 599 only; any other status is no answer either.
        if (status < 200 || status > 599) {
          response.destroy();
          reject(new TypeError('fetch failed', { cause: new Error(`HTTP ${status}`) }));
          return;
        }
        const answerHeaders = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value]) {
            answerHeaders.append(name, one);
          }
        }
        const stream = NULL_BODY.has(status) ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>);
        if (stream) streaming = response;
        else response.resume();
        resolve(new Response(stream, { status, statusText: response.statusMessage ?? '', headers: answerHeaders }));
      });
      outgoing.on('error', (error) => {
        settled();
        reject(signal?.aborted ? (signal.reason as Error) : new TypeError('fetch failed', { cause: error }));
      });
      outgoing.end(body);
    });
  };
}

/**
 * The transport of the engine's brokerage calls, on both protocols: the socket connects only to addresses that
 * pass the host rules of a firm's brokerage URLs (the name resolved, every address it
 * resolves to checked, no rebinding between the check and the connection). Redirects are never followed: the
 * clients refuse a 3xx (EcaRedirectError, WebApiRedirectError).
 */
export const brokerageFetch: typeof fetch = checkedFetch({ what: 'a brokerage' });

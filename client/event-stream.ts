/**
 * A reader of the onboarding API's event stream (`GET /v1/events`, server-sent events): parses the
 * stream, and follows it across disconnects and restarts of the service by reconnecting with the last
 * event id it received (`Last-Event-ID`), so that nothing is missed. What `eca events tail` runs, and
 * a starting point for an onboarding system in TypeScript.
 */
import type { LifecycleEventRecord } from '../domain/events.js';

/** One server-sent event as it came. */
export interface ServerSentEvent {
  id?: string;
  event?: string;
  data: string;
}

/**
 * Parses a server-sent event stream's lines (comments and `retry` are dropped). A message with an id
 * and no data is kept (as browsers keep its id): the service sends one first, with the cursor it starts after.
 */
export async function* parseEventStream(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerSentEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  let current: { id?: string; event?: string; data: string[] } = { data: [] };
  for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r?\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer[newline] === '\r' ? 2 : 1));
      if (line === '') {
        if (current.data.length > 0 || current.id !== undefined) {
          yield {
            ...(current.id !== undefined && { id: current.id }),
            ...(current.event !== undefined && { event: current.event }),
            data: current.data.join('\n'),
          };
        }
        current = { data: [] };
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'data') current.data.push(value);
      else if (field === 'id') current.id = value;
      else if (field === 'event') current.event = value;
    }
  }
}

export interface FollowOptions {
  /** The API's base URL (`http://127.0.0.1:8080`). */
  url: string;
  /** An API key of the firm. */
  apiKey: string;
  /** Where to start: `start`, `now` (the default) or a cursor (an event id received earlier). */
  after?: string;
  /** One application's events only (its external id). */
  externalId?: string;
  /** Ends following. */
  signal?: AbortSignal;
  /** Told of each reconnection and why (the service restarted, the network failed). */
  onReconnect?: (reason: string, attempt: number) => void;
  /** The longest wait between reconnections (default 5 s; the first is 250 ms). */
  maxBackoffMs?: number;
}

/** An event and its cursor in the log (give it back as `after` to resume there). */
export interface FollowedEvent {
  cursor: string;
  event: LifecycleEventRecord;
}

/** A status the service will answer again however often it is asked: following stops. */
export class EventStreamRefused extends Error {
  override readonly name = 'EventStreamRefused';
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(`the event stream was refused (HTTP ${status}): ${detail}`);
  }
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * The firm's events, in the log's order, for as long as `signal` lets it: a dropped connection is
 * reopened after the last event received, with backoff. 400, 401, 403 and 404 (no such application) end
 * it with EventStreamRefused.
 */
export async function* followEvents(options: FollowOptions): AsyncGenerator<FollowedEvent> {
  const path = options.externalId ? `/v1/applications/${encodeURIComponent(options.externalId)}/events` : '/v1/events';
  let after = options.after ?? 'now';
  let attempt = 0;
  while (!options.signal?.aborted) {
    let reason: string;
    try {
      const response = await fetch(`${options.url.replace(/\/$/, '')}${path}?after=${encodeURIComponent(after)}`, {
        headers: { accept: 'text/event-stream', authorization: `Bearer ${options.apiKey}` },
        signal: options.signal,
      });
      if ([400, 401, 403, 404].includes(response.status)) {
        const problem = (await response.json().catch(() => ({}))) as { detail?: string };
        throw new EventStreamRefused(response.status, problem.detail ?? response.statusText);
      }
      if (!response.ok || !response.body) {
        reason = `HTTP ${response.status}`;
      } else {
        for await (const message of parseEventStream(response.body)) {
          // The service ends a stream whose key was revoked (or whose firm was disabled) with an `error` event:
          // following stops, as on the 401 (403) the same request would now get.
          if (message.event === 'error' && message.id === undefined) {
            const problem = (JSON.parse(message.data || '{}') ?? {}) as { code?: string; detail?: string };
            const status = problem.code === 'UNAUTHENTICATED' || problem.code === undefined ? 401 : 403;
            throw new EventStreamRefused(status, problem.detail ?? 'the stream was ended by the service');
          }
          if (message.id === undefined) continue;
          attempt = 0;
          after = message.id;
          if (message.data === '') continue;
          yield { cursor: message.id, event: JSON.parse(message.data) as LifecycleEventRecord };
        }
        reason = 'the stream ended';
      }
    } catch (error) {
      if (error instanceof EventStreamRefused) throw error;
      if (options.signal?.aborted) return;
      reason = (error as Error).message;
    }
    attempt++;
    options.onReconnect?.(reason, attempt);
    await sleep(Math.min(250 * 2 ** (attempt - 1), options.maxBackoffMs ?? 5_000), options.signal);
  }
}

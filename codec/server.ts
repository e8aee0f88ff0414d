/**
 * The codec server the Temporal UI and CLI call to show encrypted payloads: `POST /encode` and
 * `POST /decode` with `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }` (protobuf JSON), as
 * Temporal's codec server protocol defines them.
 *
 * Access: every encode/decode needs the bearer token, either as `Authorization: Bearer <token>` (the
 * CLI's `--codec-auth`, scripts, a proxy) or as the first path segment, `/<token>/decode`, for a UI that
 * cannot add a header (`temporal server start-dev --ui-codec-endpoint http://host:port/<token>`): whoever
 * can read the UI's settings then holds the token, so that form is for a UI that is itself access
 * controlled. `authorize` replaces the token check, e.g. to validate the access token a UI with
 * single sign-on forwards (`TEMPORAL_CODEC_PASS_ACCESS_TOKEN`). Browsers may call it from `uiOrigin` only.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Payload } from '@temporalio/common';
import { AesGcmPayloadCodec } from './aes-gcm-codec.js';
import type { CodecKeyring } from './keyring.js';
import { CodecConfigurationError } from './keyring.js';

export interface CodecServerOptions {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Address to bind; loopback by default. */
  host?: string;
  keys: CodecKeyring;
  /** The shared secret callers present; at least 16 characters. */
  token: string;
  /** Origin(s) of the Temporal UI allowed to call from a browser, e.g. `http://localhost:8233`. */
  uiOrigin?: string | string[];
  /** Replaces the token check: receives the `Authorization` header (or undefined). */
  authorize?: (authorization: string | undefined) => boolean | Promise<boolean>;
  /** Operational lines (never payloads or tokens). */
  log?: (line: string) => void;
  /** Largest request body accepted; 16 MiB by default. */
  maxBodyBytes?: number;
}

export interface RunningCodecServer {
  /** `http://host:port`, for `--codec-endpoint` with `--codec-auth "Bearer <token>"`. */
  url: string;
  /** `http://host:port/<token>`, for `--ui-codec-endpoint` (the UI appends `/decode`). */
  uiEndpoint: string;
  port: number;
  /** Lets browsers at one more origin call (a UI whose port was picked after this server started). */
  allowOrigin(origin: string): void;
  close(): Promise<void>;
}

/** Arguments for `temporal server start-dev` that make its UI decode through `server`. */
export function uiCodecEndpointArgs(server: Pick<RunningCodecServer, 'uiEndpoint'>): string[] {
  return ['--ui-codec-endpoint', server.uiEndpoint];
}

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function fromJson(payload: JsonPayload): Payload {
  if (payload === null || typeof payload !== 'object') throw new HttpError(400, 'a payload must be an object');
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (typeof value !== 'string') throw new HttpError(400, `metadata ${key} must be base64`);
    metadata[key] = new Uint8Array(Buffer.from(value, 'base64'));
  }
  if (payload.data !== undefined && typeof payload.data !== 'string') throw new HttpError(400, 'data must be base64');
  return { metadata, data: new Uint8Array(Buffer.from(payload.data ?? '', 'base64')) };
}

function toJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) {
    if (value) metadata[key] = Buffer.from(value).toString('base64');
  }
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}

async function readBody(request: IncomingMessage, limit: number): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new HttpError(413, 'request body too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

/** What each request is checked and answered with. */
interface CodecService {
  codec: AesGcmPayloadCodec;
  origins: Set<string>;
  limit: number;
  authorised: (request: IncomingMessage, pathToken: string | undefined) => Promise<boolean>;
}

function authorisation(options: CodecServerOptions): CodecService['authorised'] {
  const tokenDigest = digest(options.token);
  const tokenMatches = (candidate: string | undefined) =>
    candidate !== undefined && timingSafeEqual(digest(candidate), tokenDigest);
  return async (request, pathToken) => {
    const header = request.headers.authorization;
    if (options.authorize) return options.authorize(header);
    if (pathToken !== undefined) return tokenMatches(pathToken);
    const match = /^Bearer\s+(.+)$/i.exec(header ?? '');
    return tokenMatches(match?.[1]?.trim());
  };
}

/** Lets the UI's origins call from a browser; true when the request was a preflight, answered here. */
function answerCors(origins: Set<string>, request: IncomingMessage, response: ServerResponse): boolean {
  const origin = request.headers.origin;
  if (origin !== undefined) {
    if (!origins.has(origin)) throw new HttpError(403, 'origin not allowed');
    response.setHeader('Access-Control-Allow-Origin', origin);
    response.setHeader('Access-Control-Allow-Credentials', 'true');
    response.setHeader('Vary', 'Origin');
  }
  if (request.method !== 'OPTIONS') return false;
  response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
  response.setHeader('Access-Control-Allow-Headers', 'Authorization, Content-Type, X-Namespace');
  response.setHeader('Access-Control-Max-Age', '600');
  response.writeHead(204).end();
  return true;
}

async function handle(service: CodecService, request: IncomingMessage, response: ServerResponse): Promise<void> {
  if (answerCors(service.origins, request, response)) return;
  const path = new URL(request.url ?? '/', 'http://codec.invalid').pathname.split('/').filter(Boolean);
  const operation = path.at(-1);
  const pathToken = path.length === 2 ? decodeURIComponent(path[0] ?? '') : undefined;
  if (path.length === 1 && operation === 'health' && request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    return;
  }
  if ((operation !== 'encode' && operation !== 'decode') || path.length > 2) throw new HttpError(404, 'not found');
  if (request.method !== 'POST') throw new HttpError(405, 'use POST');
  if (!(await service.authorised(request, pathToken))) {
    response.setHeader('WWW-Authenticate', 'Bearer');
    throw new HttpError(401, 'unauthorised');
  }
  const body = (await readBody(request, service.limit)) as { payloads?: unknown } | null;
  if (!body || !Array.isArray(body.payloads)) throw new HttpError(400, 'expected { "payloads": [...] }');
  const payloads = (body.payloads as JsonPayload[]).map(fromJson);
  let result: Payload[];
  try {
    result = operation === 'encode' ? await service.codec.encode(payloads) : await service.codec.decode(payloads);
  } catch (error) {
    throw new HttpError(400, error instanceof Error ? error.message : 'cannot process the payloads');
  }
  response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ payloads: result.map(toJson) }));
}

export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  if (!options.authorize && (typeof options.token !== 'string' || options.token.length < 16)) {
    throw new CodecConfigurationError(
      'the codec server needs a token of at least 16 characters (ECA_CODEC_SERVER_TOKEN)',
    );
  }
  const codec = new AesGcmPayloadCodec(options.keys);
  const origins = new Set([options.uiOrigin ?? []].flat().map((origin) => origin.replace(/\/+$/, '')));
  const authorised = authorisation(options);
  const log = options.log ?? (() => undefined);
  const service: CodecService = { codec, origins, limit: options.maxBodyBytes ?? 16 * 1024 * 1024, authorised };

  const server = createServer((request, response) => {
    handle(service, request, response).catch((error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      const message = error instanceof HttpError ? error.message : 'internal error';
      if (status >= 500 || status === 401 || status === 403) log(`${request.method ?? '?'} ${status} ${message}`);
      if (!response.headersSent) response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: message }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    uiEndpoint: `${url}/${encodeURIComponent(options.token)}`,
    port,
    allowOrigin: (origin) => void origins.add(origin.replace(/\/+$/, '')),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

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
 *
 * `/decode` decodes what it can and passes the rest through as it came (not encrypted, or not decrypting:
 * unknown key id, wrong key, altered); `/encode` is all or nothing. Limits are checked as the body arrives
 * (413). Every answer has `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`; refusals are JSON.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Transform } from 'node:stream';
import type { Duplex } from 'node:stream';
import fastifyCors from '@fastify/cors';
import type { Payload } from '@temporalio/common';
import Fastify from 'fastify';
import type { FastifyError, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { AesGcmPayloadCodec, isEncryptedPayload, PayloadDecryptionError } from './aes-gcm-codec.js';
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
  /** Largest request body accepted, counted as it arrives; 16 MiB by default. */
  maxBodyBytes?: number;
  /** Most payloads one request may carry, counted as the body arrives; 10,000 by default. */
  maxPayloads?: number;
  /** Most JSON values (objects, arrays, and the items after a comma) one body may hold; 200,000 by default. */
  maxJsonValues?: number;
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

/** The limits of a request (413 over them): default values, and what each counts. */
const LIMITS = { maxBodyBytes: 16 * 1024 * 1024, maxPayloads: 10_000, maxJsonValues: 200_000 };
const COUNTED: Record<Limit, string> = { maxBodyBytes: 'bytes', maxPayloads: 'payloads', maxJsonValues: 'JSON values' };
type Limit = keyof typeof LIMITS;
/** Deepest nesting a body may have: the object, `payloads`, a payload, its metadata, and room for new fields. */
const MAX_DEPTH = 8;
const EXPECTED = 'expected { "payloads": [...] }';
/** Headers of every answer: nothing decoded is kept by a cache, and no browser guesses another type. */
const ANSWER_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };

type JsonPayload = { metadata?: Record<string, string> | null; data?: string | null };
/** A payload of a request: as it came (what a pass-through answers) and as bytes. */
type Received = { json: JsonPayload; payload: Payload };

class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    /** More fields of the JSON answer (a limit's name and value). */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

function overLimit(limit: Limit, maximum: number): HttpError {
  return new HttpError(413, `more than ${maximum} ${COUNTED[limit]} in one request (${limit})`, { limit, maximum });
}

const digest = (text: string): Buffer => createHash('sha256').update(text).digest();

/** Protobuf JSON bytes: base64, standard or URL-safe alphabet, padded or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const base64Length = (text: string) =>
  text.replace(/=+$/, '').length % 4 !== 1 && (!text.endsWith('=') || text.length % 4 === 0);

function base64(value: unknown, where: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64.test(value) || !base64Length(value)) {
    throw new HttpError(400, `${where} must be a base64 string`);
  }
  return new Uint8Array(Buffer.from(value, 'base64'));
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function fromJson(json: unknown, index: number): Received {
  const where = `payloads[${index}]`;
  if (!isRecord(json)) throw new HttpError(400, `${where} must be an object`);
  const { metadata, data } = json;
  if (metadata !== undefined && metadata !== null && !isRecord(metadata)) {
    throw new HttpError(400, `${where}.metadata must be an object of base64 strings`);
  }
  const entries = Object.entries(metadata ?? {}).map(([key, value]) => {
    // A map key the protobuf decoder turns into a prototype: it would not come back from an encode.
    if (key === '__proto__') throw new HttpError(400, `${where}.metadata may not have the key "__proto__"`);
    return [key, base64(value, `${where}.metadata[${JSON.stringify(key).slice(0, 40)}]`)] as const;
  });
  const bytes = data === undefined || data === null ? new Uint8Array() : base64(data, `${where}.data`);
  return { json, payload: { metadata: Object.fromEntries(entries), data: bytes } };
}

function toJson(payload: Payload): JsonPayload {
  const entries = Object.entries(payload.metadata ?? {}).filter(([, value]) => value);
  return {
    metadata: Object.fromEntries(entries.map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

const [QUOTE, BACKSLASH, COMMA] = [0x22, 0x5c, 0x2c];
const [OPEN_OBJECT, OPEN_ARRAY, CLOSE_OBJECT, CLOSE_ARRAY] = [0x7b, 0x5b, 0x7d, 0x5d];
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/**
 * Follows a body's JSON structure as it passes, building nothing, so that a body over `maxPayloads` (the
 * elements of arrays directly under the top-level object: `payloads`) or `maxJsonValues` is refused before
 * anything is parsed, as is one whose top level is not an object or that nests deeper than MAX_DEPTH.
 * It does not validate the JSON; JSON.parse does, once the whole body is in.
 */
class BodyScanner extends Transform {
  private depth = 0;
  private started = false;
  private inString = false;
  private escaped = false;
  /** Whether the container at depth 2 is an array, and whether its current element has begun. */
  private arrayAtTwo = false;
  private elementOpen = false;
  private payloads = 0;
  private values = 0;

  constructor(private readonly limits: Record<Limit, number>) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: unknown, next: (error?: Error | null, chunk?: Buffer) => void) {
    try {
      for (let index = 0; index < chunk.length; index++) this.step(chunk[index]!);
      next(null, chunk);
    } catch (error) {
      next(error as Error);
    }
  }

  private step(byte: number): void {
    if (this.inString) {
      if (this.escaped) this.escaped = false;
      else if (byte === BACKSLASH) this.escaped = true;
      else if (byte === QUOTE) this.inString = false;
      return;
    }
    if (WHITESPACE.has(byte)) return;
    if (!this.started && byte !== OPEN_OBJECT) throw new HttpError(400, EXPECTED);
    this.started = true;
    if (this.depth === 2 && this.arrayAtTwo && !this.elementOpen && byte !== COMMA && byte !== CLOSE_ARRAY) {
      this.elementOpen = true;
      if (++this.payloads > this.limits.maxPayloads) throw overLimit('maxPayloads', this.limits.maxPayloads);
    }
    const value = byte === COMMA || byte === OPEN_OBJECT || byte === OPEN_ARRAY;
    if (value && ++this.values > this.limits.maxJsonValues) throw overLimit('maxJsonValues', this.limits.maxJsonValues);
    if (byte === QUOTE) this.inString = true;
    else if (byte === COMMA && this.depth === 2) this.elementOpen = false;
    else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
      if (++this.depth > MAX_DEPTH) throw new HttpError(400, `the body nests deeper than ${MAX_DEPTH} levels`);
      if (this.depth === 2) [this.arrayAtTwo, this.elementOpen] = [byte === OPEN_ARRAY, false];
    } else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) this.depth--;
  }
}

function payloadsOf(body: unknown): Received[] {
  if (!isRecord(body) || !Array.isArray(body.payloads)) throw new HttpError(400, EXPECTED);
  return (body.payloads as unknown[]).map(fromJson);
}

/** What the routes answer with. */
interface Service {
  codec: AesGcmPayloadCodec;
  log: (line: string) => void;
  limit: Record<Limit, number>;
}

/** Whether a caller may encode and decode: the `Authorization` header, or the token of the path. */
function authorisation(options: CodecServerOptions) {
  const tokenDigest = digest(options.token);
  const tokenMatches = (candidate: string | undefined) =>
    candidate !== undefined && timingSafeEqual(digest(candidate), tokenDigest);
  return async (header: string | undefined, pathToken: string | undefined): Promise<boolean> => {
    if (options.authorize) return options.authorize(header);
    if (pathToken !== undefined) return tokenMatches(pathToken);
    return tokenMatches(/^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim());
  };
}

/** Decodes each payload it can; passes the others through as they came, and logs how many (no contents). */
async function decodeEach({ codec, log }: Service, received: Received[]): Promise<JsonPayload[]> {
  const failures: string[] = [];
  const answer: JsonPayload[] = [];
  for (const { json, payload } of received) {
    try {
      answer.push(isEncryptedPayload(payload) ? toJson((await codec.decode([payload]))[0]!) : json);
    } catch (error) {
      failures.push(error instanceof PayloadDecryptionError ? error.message : 'the decrypted bytes are not a payload');
      answer.push(json);
    }
  }
  const summary = `${failures.length} of ${received.length} payloads passed through undecoded (first: ${failures[0]})`;
  if (failures.length > 0) log(`decode: ${summary}`);
  return answer;
}

async function encodeAll({ codec }: Service, received: Received[]): Promise<JsonPayload[]> {
  try {
    return (await codec.encode(received.map(({ payload }) => payload))).map(toJson);
  } catch (error) {
    throw new HttpError(400, error instanceof Error ? error.message : 'cannot encode the payloads');
  }
}

/** An answer written on the socket, where Node gives no response object (a request it cannot parse, CONNECT). */
function answerRaw(socket: Duplex, status: number, message: string): void {
  const inProgress = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage;
  if (!socket.writable || inProgress?.headersSent) return void socket.destroy();
  const body = JSON.stringify({ error: message });
  const headers = { ...ANSWER_HEADERS, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${lines.join('')}Connection: close\r\n\r\n${body}`);
}

function limits(options: CodecServerOptions): Record<Limit, number> {
  const chosen = { ...LIMITS };
  for (const limit of Object.keys(LIMITS) as Limit[]) chosen[limit] = options[limit] ?? LIMITS[limit];
  const wrong = Object.entries(chosen).find(([, value]) => !Number.isInteger(value) || value < 1);
  if (wrong) throw new CodecConfigurationError(`${wrong[0]} must be a positive integer, not ${wrong[1]}`);
  return chosen;
}

/** The refusal an error answers with: its own, or one for a 4xx of fastify's (a 5xx tells nothing more). */
function refusalOf(error: unknown, { maxBodyBytes }: Record<Limit, number>): HttpError {
  if (error instanceof HttpError) return error;
  const { code = '', statusCode = 500, message } = error as FastifyError;
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return overLimit('maxBodyBytes', maxBodyBytes);
  if (code === 'FST_ERR_BAD_URL') {
    return new HttpError(400, 'the request path is malformed: not a URL path, or a % escape that is not UTF-8');
  }
  if (/^FST_ERR_CTP_(EMPTY|INVALID)_JSON_BODY$/.test(code)) return new HttpError(400, 'the body is not JSON');
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return new HttpError(415, 'the Content-Type header is malformed');
  return statusCode < 500 ? new HttpError(statusCode, message) : new HttpError(500, 'internal error');
}

/** Answers an error as a JSON refusal; logs the refusals an operator looks for (never a payload or token). */
function refuser({ limit, log }: Service) {
  return (error: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const { statusCode, message, details } = refusalOf(error, limit);
    if (statusCode >= 500 || [401, 403, 413].includes(statusCode)) log(`${request.method} ${statusCode} ${message}`);
    // A refused body may still be arriving: it is dropped, and the connection closes after the answer.
    if (statusCode === 413) reply.header('connection', 'close');
    if (statusCode === 401) reply.header('www-authenticate', 'Bearer');
    void reply
      .headers(ANSWER_HEADERS)
      .code(statusCode)
      .send({ error: message, ...details });
  };
}

/** `/encode` and `/decode`, also under `/<token>/`: the caller's token is checked, then the body as it arrives. */
function operations(options: CodecServerOptions, service: Service): FastifyPluginCallback {
  const authorised = authorisation(options);
  const { maxBodyBytes } = service.limit;
  return (app, _options, done) => {
    app.addHook('onRequest', async (request) => {
      const { token } = request.params as { token?: string };
      if (!(await authorised(request.headers.authorization, token))) throw new HttpError(401, 'unauthorised');
    });
    // A declared length over the limit is refused before anything is read; the scanner refuses the rest. Its
    // refusal reaches the body parser, or nothing when the request was answered before its body was read.
    app.addHook('preParsing', async (request, _reply, payload) => {
      if (Number(request.headers['content-length']) > maxBodyBytes) throw overLimit('maxBodyBytes', maxBodyBytes);
      return payload.pipe(new BodyScanner(service.limit)).on('error', () => undefined);
    });
    // Whatever type a body declares, it is read as JSON; `__proto__` is left for fromJson to name.
    app.addContentTypeParser('*', { parseAs: 'string' }, app.getDefaultJsonParser('ignore', 'ignore'));
    for (const [path, operation] of [['encode', encodeAll] as const, ['decode', decodeEach] as const]) {
      const handler = async ({ body }: FastifyRequest) => ({ payloads: await operation(service, payloadsOf(body)) });
      app.post(`/${path}`, handler).post(`/:token/${path}`, handler);
    }
    done();
  };
}

export async function startCodecServer(options: CodecServerOptions): Promise<RunningCodecServer> {
  if (!options.authorize && (typeof options.token !== 'string' || options.token.length < 16)) {
    throw new CodecConfigurationError(
      'the codec server needs a token of at least 16 characters (ECA_CODEC_SERVER_TOKEN)',
    );
  }
  const origins = new Set([options.uiOrigin ?? []].flat().map((origin) => origin.replace(/\/+$/, '')));
  const service: Service = {
    codec: new AesGcmPayloadCodec(options.keys),
    log: options.log ?? (() => undefined),
    limit: limits(options),
  };
  const app = Fastify({
    bodyLimit: service.limit.maxBodyBytes,
    // Node would answer a request without Host itself, not in JSON: the onRequest hook refuses it.
    http: { requireHostHeader: false },
    exposeHeadRoutes: false,
    forceCloseConnections: true,
    routerOptions: { ignoreTrailingSlash: true, ignoreDuplicateSlashes: true, maxParamLength: 1024 },
    clientErrorHandler: (error: NodeJS.ErrnoException, socket) => {
      const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      answerRaw(socket, status, `not a valid HTTP request (${STATUS_CODES[status]})`);
    },
    frameworkErrors: refuser(service),
  });
  app.setErrorHandler(refuser(service));
  app.setNotFoundHandler(({ url }) => {
    const path = url.split(/[?#]/)[0]!.split('/').filter(Boolean);
    const known = path.length <= 2 && ['encode', 'decode'].includes(path.at(-1)!);
    throw known ? new HttpError(405, 'use POST') : new HttpError(404, 'not found');
  });
  app.addHook('onRequest', async (request, reply) => {
    reply.headers(ANSWER_HEADERS);
    if (request.raw.httpVersion === '1.1' && !request.headers.host) throw new HttpError(400, 'no Host header');
  });
  // Browsers may call from the UI's origins only; a request without Origin is not a browser's.
  await app.register(fastifyCors, {
    origin: (origin, allow) =>
      origin === undefined || origins.has(origin)
        ? allow(null, origin !== undefined)
        : allow(new HttpError(403, 'origin not allowed'), false),
    credentials: true,
    methods: ['POST', 'OPTIONS'],
    allowedHeaders: ['Authorization', 'Content-Type', 'X-Namespace'],
    maxAge: 600,
    strictPreflight: false,
  });
  app.removeAllContentTypeParsers();
  app.get('/health', (_request, reply) => reply.type('text/plain').send('ok'));
  await app.register(operations(options, service));
  // Node's own answers to an unknown Expect and to CONNECT would not be JSON.
  app.server.on('checkExpectation', (request: IncomingMessage, response: ServerResponse) =>
    app.routing(request, response),
  );
  app.server.on('connect', (_request: IncomingMessage, socket: Duplex) => answerRaw(socket, 405, 'use POST'));
  // A request asking to upgrade the connection: without this, Node reads no body after its headers, and one
  // that also sent an Expect header was never answered. Nothing here speaks another protocol.
  app.server.on('upgrade', (_request: IncomingMessage, socket: Duplex) =>
    answerRaw(socket, 400, 'connection upgrades are not served'),
  );
  await app.listen({ port: options.port ?? 0, host: options.host ?? '127.0.0.1' });

  const { port } = app.server.address() as AddressInfo;
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    uiEndpoint: `${url}/${encodeURIComponent(options.token)}`,
    port,
    allowOrigin: (origin) => void origins.add(origin.replace(/\/+$/, '')),
    close: () => app.close(),
  };
}

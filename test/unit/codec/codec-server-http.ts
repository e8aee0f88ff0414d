/**
 * HTTP for the codec server's tests: requests with any method, path, headers and body (node:http, a new
 * connection each), raw bytes on a socket, each bounded in time, and the checks every answer must pass.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { connect } from 'node:net';
import type { Payload } from '@temporalio/common';

/** Longest a request may take before a test calls it a hang. */
export const ANSWER_WITHIN_MS = 5_000;

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface Sent {
  method?: string;
  path: string;
  headers?: OutgoingHttpHeaders;
  body?: Buffer | string;
  /** Leaves the body unfinished: the answer must come while the request is still open. */
  keepOpen?: boolean;
  /** Sends the body in chunks (Transfer-Encoding: chunked), its length not declared. */
  chunked?: boolean;
}

/** One request on its own connection; rejects when no answer comes within ANSWER_WITHIN_MS. */
export function send(url: string, sent: Sent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      outgoing.destroy();
      reject(new Error(`no answer within ${ANSWER_WITHIN_MS} ms: ${sent.method ?? 'GET'} ${sent.path}`));
    }, ANSWER_WITHIN_MS);
    // A finished body is framed by its length, whatever the method (Node frames only some by default).
    const length =
      sent.body === undefined || sent.keepOpen || sent.chunked
        ? {}
        : { 'content-length': Buffer.byteLength(sent.body) };
    const headers = { ...length, ...sent.headers };
    // The path goes as it is: no URL parsing on this side (it would resolve `..` and drop `#...`).
    const { hostname, port } = new URL(url);
    const target = { host: hostname, port, path: sent.path, method: sent.method ?? 'GET', headers, agent: false };
    const outgoing = request(target);
    let answered = false;
    outgoing.on('response', (response) => {
      answered = true;
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        clearTimeout(timer);
        if (sent.keepOpen) outgoing.destroy();
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      // Writing the rest of a body the server refused fails once its answer is in: not an error here.
      if (answered && (error.code === 'EPIPE' || error.code === 'ECONNRESET')) return;
      clearTimeout(timer);
      reject(error);
    });
    if (sent.body !== undefined) outgoing.write(sent.body);
    if (!sent.keepOpen) outgoing.end();
  });
}

/** Bytes written on a socket, then its end: everything the server wrote back before it closed. */
export function sendRaw(port: number, bytes: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${ANSWER_WITHIN_MS} ms`));
    }, ANSWER_WITHIN_MS);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close before reading all that was sent: what it answered is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks));
    });
    socket.end(bytes);
  });
}

/** The body of a refusal: JSON with an `error` message, and no stack trace. */
export function refusal(answer: Answer): { error: string; [field: string]: unknown } {
  const shown = `${answer.status} ${answer.body.toString('latin1').slice(0, 300)}`;
  assert.match(String(answer.headers['content-type']), /^application\/json/, shown);
  const body = JSON.parse(answer.body.toString('utf8')) as { error?: unknown };
  assert.equal(typeof body.error, 'string', shown);
  assert.ok((body.error as string).length > 0, shown);
  assert.doesNotMatch(answer.body.toString('utf8'), /\n\s+at |node:internal|\.ts:\d/, `a stack trace: ${shown}`);
  return body as { error: string };
}

/** What every answer carries. */
export function assertAnswerHeaders(answer: Answer): void {
  assert.equal(answer.headers['cache-control'], 'no-store', `${answer.status}: Cache-Control`);
  assert.equal(answer.headers['x-content-type-options'], 'nosniff', `${answer.status}: X-Content-Type-Options`);
}

export type JsonPayload = { metadata?: Record<string, string>; data?: string };

export const b64 = (bytes: Uint8Array | null | undefined): string => Buffer.from(bytes ?? []).toString('base64');

/** A payload as the protocol's JSON: base64 metadata values and data. */
export function jsonPayload(payload: Payload): { metadata: Record<string, string>; data: string } {
  const entries = Object.entries(payload.metadata ?? {}).map(([key, bytes]) => [key, b64(bytes)] as const);
  return { metadata: Object.fromEntries(entries), data: b64(payload.data) };
}

/** A payload from the protocol's JSON. */
export function fromJsonPayload(json: JsonPayload): Payload {
  const entries = Object.entries(json.metadata ?? {}).map(([key, text]) => [key, Buffer.from(text, 'base64')] as const);
  return { metadata: Object.fromEntries(entries), data: Buffer.from(json.data ?? '', 'base64') };
}

/** The JSON of an answer's `payloads`. */
export function answeredPayloads(answer: Answer): unknown[] {
  assert.equal(answer.status, 200, answer.body.toString('utf8').slice(0, 300));
  assert.match(String(answer.headers['content-type']), /^application\/json/);
  const { payloads } = JSON.parse(answer.body.toString('utf8')) as { payloads: unknown[] };
  assert.ok(Array.isArray(payloads));
  return payloads;
}

/** The answers in what a server wrote on a connection, one after the other (HEAD excepted: no body known). */
export function responses(raw: Buffer): Answer[] {
  const answers: Answer[] = [];
  let at = 0;
  while (at < raw.length) {
    const end = raw.indexOf('\r\n\r\n', at);
    assert.ok(end >= 0, `an answer's head without its end: ${raw.subarray(at).toString('latin1')}`);
    const [statusLine, ...lines] = raw.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3}) /.exec(statusLine ?? '')?.[1]);
    assert.ok(status >= 100, `not a status line: ${statusLine}`);
    const headers: IncomingHttpHeaders = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    at = end + 4;
    let body: Buffer = Buffer.alloc(0);
    if (status < 200 || status === 204 || status === 304) {
      // no body
    } else if (headers['content-length'] !== undefined) {
      body = raw.subarray(at, (at += Number(headers['content-length'])));
    } else if (headers['transfer-encoding'] === 'chunked') {
      const chunks: Buffer[] = [];
      for (;;) {
        const lineEnd = raw.indexOf('\r\n', at);
        const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
        assert.ok(lineEnd >= 0 && Number.isInteger(size), 'a malformed chunk');
        chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
        at = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      body = Buffer.concat(chunks);
    } else {
      [body, at] = [raw.subarray(at), raw.length];
    }
    answers.push({ status, headers, body });
  }
  return answers;
}

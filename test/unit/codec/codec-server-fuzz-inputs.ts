/**
 * What the codec server's fuzz properties send: payload batches mixing payloads that decrypt with ones
 * that do not (another key, the wrong key under a known id, a relabelled key id, altered, truncated),
 * plaintext in every valid JSON form, and malformed entries; paths, methods and headers; raw HTTP. Each
 * batch entry knows what the server must answer for it.
 */
import type { Payload } from '@temporalio/common';
import { AesGcmPayloadCodec } from '../../../codec/index.js';
import type { CodecKeyring } from '../../../codec/index.js';
import { fc } from '../../support/fuzz.js';
import { b64, jsonPayload } from './codec-server-http.js';

export const TOKEN = 'fuzz-token-0123456789abcdef';
export const UI_ORIGIN = 'http://localhost:8233';

const bytes = fc.uint8Array({ maxLength: 40 });
const metadataKey = fc
  .oneof(fc.constantFrom('encoding', 'encryption-key-id', 'messageType'), fc.string({ maxLength: 10 }))
  .filter((key) => key !== '__proto__');

/** A payload as a client has it before the codec: any metadata, any data. */
export const plainPayload: fc.Arbitrary<Payload> = fc.record({
  metadata: fc.dictionary(metadataKey, bytes, { maxKeys: 4, noNullPrototype: true }),
  data: bytes,
});

/** The protocol's JSON of a payload in any form it allows: URL-safe or unpadded base64, fields left out. */
export const plainJson = fc
  .tuple(plainPayload, fc.constantFrom('base64', 'base64url', 'no-metadata', 'no-data', 'null-data', 'extra'))
  .map(([payload, form]) => {
    const json: Record<string, unknown> = jsonPayload(payload);
    if (form === 'base64url') {
      const entries = Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, url(value)]);
      return { metadata: Object.fromEntries(entries), data: url(payload.data) };
    }
    if (form === 'no-metadata') delete json.metadata;
    if (form === 'no-data') delete json.data;
    if (form === 'null-data') json.data = null;
    if (form === 'extra') json.externalPayloads = [{ sizeBytes: '12' }];
    return json;
  });

function url(value: Uint8Array | null | undefined): string {
  return Buffer.from(value ?? []).toString('base64url');
}

/** An entry of a batch: how to build it, and what decoding it gives. */
export type Entry =
  | { kind: 'encrypted'; plain: Payload; key: 'newest' | 'older' }
  | {
      kind: 'undecryptable';
      plain: Payload;
      how: 'foreign' | 'impostor' | 'relabelled' | 'altered' | 'truncated';
      at: number;
    }
  | { kind: 'plaintext'; json: unknown }
  | { kind: 'lookalike'; keyId: string; data: Uint8Array }
  | { kind: 'malformed'; json: unknown };

/** Anything that is not a payload object: refused wherever it is in a batch. */
const malformed = fc.oneof(
  fc.oneof(
    fc.integer(),
    fc.string({ maxLength: 8 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.nat(), { maxLength: 3 }),
  ),
  fc.record({
    data: fc.oneof(
      fc.string({ maxLength: 8 }).map((text) => `${text}!`),
      fc.constantFrom('A', 'AAAAA', 'A=AA', '===='),
      fc.integer(),
      fc.array(fc.nat(), { maxLength: 2 }),
    ),
  }),
  fc.record({
    metadata: fc.oneof(
      fc.integer(),
      fc.string({ maxLength: 8 }),
      fc.array(fc.string(), { maxLength: 2 }),
      fc.boolean(),
    ),
  }),
  fc.record({
    metadata: fc.dictionary(metadataKey, fc.oneof(fc.integer(), fc.constant(null), fc.constant('%%')), {
      minKeys: 1,
      maxKeys: 2,
      noNullPrototype: true,
    }),
  }),
  fc.constant(JSON.parse('{"metadata":{"__proto__":"AA=="}}') as unknown),
);

export const entry: fc.Arbitrary<Entry> = fc.oneof(
  fc.record({
    kind: fc.constant('encrypted' as const),
    plain: plainPayload,
    key: fc.constantFrom('newest' as const, 'older' as const),
  }),
  fc.record({
    kind: fc.constant('undecryptable' as const),
    plain: plainPayload,
    how: fc.constantFrom(
      'foreign' as const,
      'impostor' as const,
      'relabelled' as const,
      'altered' as const,
      'truncated' as const,
    ),
    at: fc.nat(),
  }),
  fc.record({ kind: fc.constant('plaintext' as const), json: plainJson }),
  fc.record({
    kind: fc.constant('lookalike' as const),
    keyId: fc.constantFrom('fz1', 'fz2', 'zz', ''),
    data: fc.uint8Array({ maxLength: 64 }),
  }),
  fc.record({ kind: fc.constant('malformed' as const), json: malformed }),
);

/** What the server must answer for an entry: its decoding, itself, or a refusal of the whole batch. */
export type Expected = { decoded: unknown } | { same: true } | { refused: true };

/** The codecs entries are built with: the server's keys, and keys it does not have. */
export interface Codecs {
  newest: AesGcmPayloadCodec;
  older: AesGcmPayloadCodec;
  foreign: AesGcmPayloadCodec;
  impostor: AesGcmPayloadCodec;
}

export function codecs(keys: CodecKeyring, foreign: CodecKeyring, impostor: CodecKeyring): Codecs {
  return {
    newest: new AesGcmPayloadCodec(keys),
    older: new AesGcmPayloadCodec({ keys: keys.keys.slice(1) }),
    foreign: new AesGcmPayloadCodec(foreign),
    impostor: new AesGcmPayloadCodec(impostor),
  };
}

/** An entry's JSON as sent, and what the server must answer for it. */
export async function build(item: Entry, from: Codecs): Promise<{ json: unknown; expected: Expected }> {
  if (item.kind === 'plaintext') return { json: item.json, expected: { same: true } };
  if (item.kind === 'malformed') return { json: item.json, expected: { refused: true } };
  if (item.kind === 'lookalike') {
    const metadata = {
      encoding: b64(Buffer.from('binary/encrypted')),
      'encryption-key-id': b64(Buffer.from(item.keyId)),
    };
    return { json: { metadata, data: b64(item.data) }, expected: { same: true } };
  }
  if (item.kind === 'encrypted') {
    const [encrypted] = await from[item.key].encode([item.plain]);
    return { json: jsonPayload(encrypted!), expected: { decoded: jsonPayload(item.plain) } };
  }
  const codec = item.how === 'foreign' || item.how === 'impostor' ? from[item.how] : from.older;
  const json = jsonPayload((await codec.encode([item.plain]))[0]!);
  const data = Buffer.from(json.data, 'base64');
  if (item.how === 'relabelled') json.metadata['encryption-key-id'] = b64(Buffer.from('fz2'));
  if (item.how === 'altered') data[item.at % data.length] = data[item.at % data.length]! ^ (1 << (item.at % 8));
  json.data = b64(item.how === 'truncated' ? data.subarray(0, item.at % data.length) : data);
  return { json, expected: { same: true } };
}

/** Request parts for arbitrary requests. */
export const method = fc.oneof(
  { weight: 3, arbitrary: fc.constant('POST') },
  { weight: 2, arbitrary: fc.constantFrom('GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'BREW', 'PROPFIND') },
);

const segment = fc.oneof(
  fc.constantFrom(
    'decode',
    'encode',
    'health',
    'DECODE',
    '%64ecode',
    encodeURIComponent(TOKEN),
    '%zz',
    '%E0%A4%A',
    '%C0%AF',
    '%',
    '..',
    '.',
  ),
  fc.string({ maxLength: 10 }).map(encodeURIComponent),
  fc.stringMatching(/^[!-~]{0,8}$/).filter((text) => !text.includes('?') && !text.includes('#')),
);
const token = encodeURIComponent(TOKEN);
export const path = fc.oneof(
  fc.constantFrom('/decode', '/encode', `/${token}/decode`, `/${token}/encode`, '/health', '/wrong-token-0000/decode'),
  fc
    .tuple(fc.array(segment, { maxLength: 4 }), fc.constantFrom('', '/', '?x=1', '//', '#f'))
    .map(([segments, tail]) => `/${segments.join('/')}${tail}`),
);

const headerText = fc.stringMatching(/^[ -~]{0,24}$/);

/** Strings of the characters from `min` to `max` (control characters included). */
const chars = (min: number, max: number, maxLength: number) =>
  fc.string({ unit: fc.integer({ min, max }).map((code) => String.fromCharCode(code)), maxLength });
export const authorization = fc.oneof(
  fc.constant(undefined),
  fc.constant(`Bearer ${TOKEN}`),
  fc.constantFrom(`Bearer ${TOKEN}`, `bearer   ${TOKEN}  `, `Bearer ${TOKEN}x`, `Basic ${TOKEN}`, 'Bearer', TOKEN),
  headerText,
);
export const origin = fc.oneof(
  { weight: 10, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(UI_ORIGIN, 'https://elsewhere.example', 'null') },
  { weight: 1, arbitrary: headerText },
);
export const extraHeaders = fc.dictionary(
  fc.oneof(
    fc.constantFrom('content-type', 'expect', 'x-namespace', 'accept', 'cookie'),
    fc.stringMatching(/^x-[a-z0-9-]{1,10}$/),
  ),
  headerText,
  { maxKeys: 3, noNullPrototype: true },
);

/** Raw HTTP: random bytes, or a request line, header lines and a body, each part well formed or not. */
export const rawRequest: fc.Arbitrary<Buffer> = fc.oneof(
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes)) },
  {
    weight: 4,
    arbitrary: fc
      .record({
        method: fc.oneof(
          { weight: 6, arbitrary: method },
          { weight: 1, arbitrary: fc.stringMatching(/^[A-Z]{0,8}$/) },
          { weight: 1, arbitrary: fc.constantFrom('CONNECT', 'get', 'POST ', '') },
        ),
        target: fc.oneof(
          { weight: 6, arbitrary: path },
          { weight: 1, arbitrary: fc.constantFrom('*', 'http://[/decode', 'http://x/decode', '//decode', '') },
          { weight: 1, arbitrary: headerText },
        ),
        version: fc.oneof(
          { weight: 3, arbitrary: fc.constant('HTTP/1.1') },
          { weight: 1, arbitrary: fc.constantFrom('HTTP/1.0', 'HTTP/2.0', 'HTTP/1.1x', 'HTTP/0.9', '') },
        ),
        host: fc.boolean(),
        headers: fc.array(
          fc.oneof(
            {
              weight: 8,
              arbitrary: fc.constantFrom(
                `Authorization: Bearer ${TOKEN}x`,
                'Content-Type: application/json',
                'Content-Length: 15',
                'Transfer-Encoding: chunked',
                'Expect: 100-continue',
                'Expect: x',
                'Connection: upgrade',
                'Upgrade: websocket',
                `Origin: ${UI_ORIGIN}`,
              ),
            },
            {
              weight: 1,
              arbitrary: fc.constantFrom(
                'Content-Length: -1',
                'Content-Length: 99999999999',
                'Content-Length: 3, 4',
                'Transfer-Encoding: gzip',
                'Host: second.example',
              ),
            },
            {
              weight: 4,
              arbitrary: fc
                .tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,10}$/), headerText)
                .map(([name, value]) => `${name}: ${value}`),
            },
            { weight: 1, arbitrary: chars(0x00, 0x7f, 20).map((line) => line.replace(/^\r?\n/, ' ')) },
          ),
          { maxLength: 4 },
        ),
        body: fc.oneof(
          fc.constantFrom('', '{"payloads":[]}', 'f\r\n{"payloads":[]}\r\n0\r\n\r\n', 'zz\r\n', '{"payloads":[{}'),
          chars(0x00, 0xff, 40),
          fc.json({ maxDepth: 2 }),
        ),
        // the body's length declared (most often), or left as the headers have it
        framed: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
      })
      .filter(({ method: verb }) => verb.trim().toUpperCase() !== 'HEAD')
      .map(({ method: verb, target, version, host, headers, body, framed }) => {
        const length = framed ? [`Content-Length: ${Buffer.byteLength(body, 'latin1')}`] : [];
        const unframed = framed
          ? headers.filter((line) => !/^(content-length|transfer-encoding):/i.test(line))
          : headers;
        const lines = [...(host ? ['Host: codec.example'] : []), ...length, ...unframed].map((line) => `${line}\r\n`);
        const head = `${verb} ${target} ${version}\r\n${lines.join('')}\r\n`;
        return Buffer.from(`${head}${body}`, 'latin1');
      }),
  },
);

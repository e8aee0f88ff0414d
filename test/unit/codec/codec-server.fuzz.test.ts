/**
 * Property-based tests of the codec server over real HTTP: arbitrary paths, methods, headers (token or
 * not) and bodies (random bytes, random JSON, payload batches mixing payloads that decrypt with ones that
 * do not and malformed entries), raw HTTP bytes, and bodies around each limit. Every answer is a typed
 * refusal (4xx, JSON `error`) or a correct answer, never a 5xx or a hang, and never decoded payloads for
 * a caller without the token; encode then decode gives back the payloads sent.
 */
import assert from 'node:assert/strict';
import { generateCodecKeyring, parseCodecKeys, generateCodecKeyEntry, startCodecServer } from '../../../codec/index.js';
import type { RunningCodecServer } from '../../../codec/server.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import {
  answeredPayloads,
  assertAnswerHeaders,
  fromJsonPayload,
  jsonPayload,
  refusal,
  responses,
  send,
  sendRaw,
} from './codec-server-http.js';
import type { Answer, JsonPayload, Sent } from './codec-server-http.js';
import * as inputs from './codec-server-fuzz-inputs.js';
import type { Codecs, Expected } from './codec-server-fuzz-inputs.js';

const { TOKEN, UI_ORIGIN } = inputs;
const LIMITS = { maxBodyBytes: 64 * 1024, maxPayloads: 40, maxJsonValues: 2000 };

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The path's segments as the server's router reads them: up to `?` or `#`, empty ones left out, decoded. */
const segmentsOf = (path: string) =>
  path
    .split(/[?#]/)[0]!
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => decoded(segment) ?? segment);

/** Whether the request holds the token: as the first of two path segments, else as a bearer token. */
function holdsToken(sent: Sent): boolean {
  const segments = segmentsOf(sent.path);
  if (segments.length === 2) return segments[0] === TOKEN;
  // Node's parser drops the spaces around a header's value.
  const authorization = String(sent.headers?.authorization ?? '').trim();
  return /^Bearer\s+(.+)$/i.exec(authorization)?.[1]?.trim() === TOKEN;
}

/** A payload's bytes, whatever base64 form its JSON has: what a round trip must keep. */
function normalised(json: unknown) {
  const payload = fromJsonPayload(json as JsonPayload);
  const metadata = Object.entries(payload.metadata ?? {}).map(([key, value]) => [
    key,
    Buffer.from(value ?? []).toString('hex'),
  ]);
  return {
    metadata: metadata.sort(([a], [b]) => (a! < b! ? -1 : a! > b! ? 1 : 0)),
    data: Buffer.from(payload.data!).toString('hex'),
  };
}

describe('codec server (fuzz)', function () {
  this.timeout(120_000);
  const keys = parseCodecKeys(`${generateCodecKeyEntry('fz2')},${generateCodecKeyEntry('fz1')}`, 'fuzz keys');
  const codecs: Codecs = inputs.codecs(keys, generateCodecKeyring('fz9'), generateCodecKeyring('fz2'));
  let server: RunningCodecServer;
  let last: string | undefined;

  before(async function () {
    server = await startCodecServer({ keys, token: TOKEN, uiOrigin: UI_ORIGIN, ...LIMITS });
  });
  after(async function () {
    await server?.close();
  });
  afterEach(function () {
    if (this.currentTest?.state === 'failed' && last) process.stderr.write(`last request: ${last}\n`);
  });

  const request = (sent: Sent) => {
    last = JSON.stringify({ ...sent, body: sent.body?.toString().slice(0, 2000) });
    return send(server.url, sent);
  };

  /** What a 200 from /decode or /encode must hold, for the payloads sent (and what each must give). */
  async function assertPayloads(operation: string, sentPayloads: unknown[], answer: Answer, expected?: Expected[]) {
    const payloads = answeredPayloads(answer);
    assert.equal(payloads.length, sentPayloads.length);
    if (operation === 'decode') {
      payloads.forEach((payload, index) => {
        const wanted = expected?.[index];
        assert.ok(!wanted || !('refused' in wanted), `payloads[${index}] is malformed, yet the batch was answered`);
        assert.deepEqual(
          payload,
          wanted && 'decoded' in wanted ? wanted.decoded : sentPayloads[index],
          `payloads[${index}]`,
        );
      });
      return;
    }
    const back = await codecs.newest.decode(payloads.map((payload) => fromJsonPayload(payload as JsonPayload)));
    back.forEach((payload, index) => {
      const encoding = (payloads[index] as JsonPayload).metadata?.encoding ?? '';
      assert.equal(Buffer.from(encoding, 'base64').toString(), 'binary/encrypted', `payloads[${index}] not encrypted`);
      assert.deepEqual(normalised(jsonPayload(payload)), normalised(sentPayloads[index]), `payloads[${index}]`);
    });
  }

  it('answers any request with a typed refusal or a correct answer, never a 5xx or decoded payloads without the token', async function () {
    const body = fc.oneof(
      fc.constant(undefined),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => ({ raw: Buffer.from(bytes) })),
      fc.json({ maxDepth: 3 }).map((text) => ({ raw: text })),
      fc.jsonValue({ maxDepth: 3 }).map((value) => ({ raw: JSON.stringify({ payloads: value }) })),
      fc.array(inputs.entry, { maxLength: 8 }).map((entries) => ({ entries })),
    );
    const requestParts = fc.record({
      method: inputs.method,
      path: inputs.path,
      authorization: inputs.authorization,
      origin: inputs.origin,
      extra: inputs.extraHeaders,
      body,
    });
    await fc.assert(
      fc.asyncProperty(requestParts, async (parts) => {
        const headers = { ...parts.extra } as Record<string, string>;
        if (parts.authorization !== undefined) headers.authorization = parts.authorization;
        if (parts.origin !== undefined) headers.origin = parts.origin;
        const built =
          parts.body && 'entries' in parts.body
            ? await Promise.all(parts.body.entries.map((item) => inputs.build(item, codecs)))
            : undefined;
        const raw = parts.body && 'raw' in parts.body ? parts.body.raw : undefined;
        const text = built ? JSON.stringify({ payloads: built.map(({ json }) => json) }) : raw;
        const sent: Sent = { method: parts.method, path: parts.path, headers, body: text };
        const answer = await request(sent);
        const shown = `${answer.status} ${answer.body.toString('latin1').slice(0, 200)}`;
        assert.ok(answer.status >= 200 && answer.status < 500, shown);
        assertAnswerHeaders(answer);
        if (parts.method === 'HEAD') return assert.ok(answer.status >= 400, shown);
        if (answer.status >= 400) return void refusal(answer);
        if (parts.origin !== undefined)
          assert.equal(parts.origin.trim(), UI_ORIGIN, `a ${answer.status} for a foreign origin`);
        if (answer.status === 204) return assert.equal(parts.method, 'OPTIONS', shown);
        assert.equal(answer.status, 200, shown);
        const segments = segmentsOf(parts.path);
        if (parts.method === 'GET' && segments.join('/') === 'health')
          return assert.equal(answer.body.toString(), 'ok');
        assert.equal(parts.method, 'POST', shown);
        assert.ok(holdsToken(sent), `answered without the token: ${shown}`);
        const operation = segments.at(-1)!;
        assert.ok(operation === 'decode' || operation === 'encode', shown);
        const sentPayloads = (JSON.parse(text!.toString()) as { payloads: unknown[] }).payloads;
        await assertPayloads(
          operation,
          sentPayloads,
          answer,
          built?.map(({ expected }) => expected),
        );
      }),
      fuzzParameters('codec server: any request (method, path, headers, body)', 1500),
    );
  });

  it('decodes each payload of a batch it can, passes the rest through unchanged, refuses a malformed one by its index', async function () {
    const batch = fc.record({
      entries: fc.array(inputs.entry, { maxLength: 12 }),
      operation: fc.constantFrom('decode', 'encode'),
      viaPath: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(batch, async ({ entries, operation, viaPath }) => {
        const built = await Promise.all(entries.map((item) => inputs.build(item, codecs)));
        const payloads = built.map(({ json }) => json);
        const path = viaPath ? `/${encodeURIComponent(TOKEN)}/${operation}` : `/${operation}`;
        const headers = viaPath ? {} : { authorization: `Bearer ${TOKEN}` };
        const answer = await request({ method: 'POST', path, headers, body: JSON.stringify({ payloads }) });
        assertAnswerHeaders(answer);
        const malformed = built.findIndex(({ expected }) => 'refused' in expected);
        if (malformed >= 0) {
          assert.equal(answer.status, 400, answer.body.toString());
          assert.match(refusal(answer).error, new RegExp(`^payloads\\[${malformed}\\]`));
          return;
        }
        await assertPayloads(
          operation,
          payloads,
          answer,
          built.map(({ expected }) => expected),
        );
      }),
      fuzzParameters('codec server: payload batches (decode / encode)', 800),
    );
  });

  it('gives back the payloads sent when they are encoded, then decoded', async function () {
    await fc.assert(
      fc.asyncProperty(fc.array(inputs.plainJson, { maxLength: 10 }), async (payloads) => {
        const headers = { authorization: `Bearer ${TOKEN}` };
        const encoded = answeredPayloads(
          await request({ method: 'POST', path: '/encode', headers, body: JSON.stringify({ payloads }) }),
        );
        const back = answeredPayloads(
          await request({ method: 'POST', path: '/decode', headers, body: JSON.stringify({ payloads: encoded }) }),
        );
        assert.deepEqual(back.map(normalised), payloads.map(normalised));
      }),
      fuzzParameters('codec server: encode then decode (round trip)', 500),
    );
  });

  it('refuses a body over a limit with 413 naming it, and answers one within them', async function () {
    const shape = fc.record({
      payloads: fc.nat({ max: 2 * LIMITS.maxPayloads }),
      metadataEntries: fc.nat({ max: LIMITS.maxJsonValues + 100 }),
      padding: fc.nat({ max: LIMITS.maxBodyBytes + 2000 }),
      chunked: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(shape, async ({ payloads, metadataEntries, padding, chunked }) => {
        const metadata = Array.from({ length: metadataEntries }, (_, index) => `"k${index}":""`).join(',');
        const items = Array.from({ length: payloads }, (_, index) =>
          index === 0 ? `{"metadata":{${metadata}}}` : '{}',
        );
        const body = `{"payloads":[${items.join(',')}]${' '.repeat(padding)}}`;
        // No string holds a structural character: each `{`, `[` and `,` is one the server counts.
        const over = {
          maxBodyBytes: Buffer.byteLength(body) > LIMITS.maxBodyBytes,
          maxPayloads: payloads > LIMITS.maxPayloads,
          maxJsonValues: (body.match(/[{[,]/g) ?? []).length > LIMITS.maxJsonValues,
        };
        const headers = { authorization: `Bearer ${TOKEN}` };
        const answer = await request({ method: 'POST', path: '/decode', headers, body, chunked });
        assertAnswerHeaders(answer);
        const exceeded = Object.entries(over)
          .filter(([, is]) => is)
          .map(([limit]) => limit);
        if (exceeded.length === 0) return assert.equal(answeredPayloads(answer).length, payloads);
        assert.equal(answer.status, 413, answer.body.toString());
        const { limit, maximum } = refusal(answer) as unknown as { limit: keyof typeof LIMITS; maximum: number };
        // A declared length over maxBodyBytes is refused before any payload is counted.
        if (over.maxBodyBytes && !chunked) assert.equal(limit, 'maxBodyBytes');
        assert.ok(exceeded.includes(limit), `${limit} is not exceeded (${exceeded.join(', ')} are)`);
        assert.equal(maximum, LIMITS[limit]);
      }),
      fuzzParameters('codec server: bodies around the limits', 400),
    );
  });

  it('answers raw HTTP bytes with typed refusals or correct answers, each with its headers', async function () {
    await fc.assert(
      fc.asyncProperty(inputs.rawRequest, async (bytes) => {
        last = JSON.stringify(bytes.toString('latin1'));
        const answered = responses(await sendRaw(server.port, bytes));
        const request = bytes.toString('latin1');
        if (/^[\r\n]*$/.test(request)) return assert.equal(answered.length, 0);
        assert.ok(answered.length > 0, 'no answer');
        for (const answer of answered) {
          const shown = `${answer.status} ${answer.body.toString('latin1').slice(0, 200)}`;
          assert.ok(answer.status < 500, shown);
          if (answer.status < 200) continue;
          assertAnswerHeaders(answer);
          if (answer.status >= 400) refusal(answer);
          else if (answer.status === 200 && answer.body.toString() !== 'ok') {
            assert.ok(request.includes(encodeURIComponent(TOKEN)), `payloads answered without the token: ${shown}`);
            answeredPayloads(answer);
          } else assert.ok(answer.status === 204 || answer.status === 200, shown);
        }
      }),
      fuzzParameters('codec server: raw HTTP bytes', 1500),
    );
  });
});

/**
 * The codec server's answers to what a security review sent it: a batch with payloads that do not
 * decrypt, bodies over its limits (the 700,000-payload body among them), the headers of every answer,
 * malformed paths and requests Node cannot parse.
 */
import assert from 'node:assert/strict';
import { defaultPayloadConverter } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  CodecConfigurationError,
  generateCodecKeyring,
  startCodecServer,
} from '../../../codec/index.js';
import type { RunningCodecServer } from '../../../codec/server.js';
import {
  assertAnswerHeaders,
  answeredPayloads,
  b64,
  jsonPayload,
  refusal,
  send,
  sendRaw,
} from './codec-server-http.js';
import type { Answer } from './codec-server-http.js';

const value = { name: 'Jane Doe', taxId: '123-45-6789' };
const token = 'test-token-0123456789';
const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const uiOrigin = 'http://localhost:8233';

describe('codec server: per-payload decode, limits, headers, malformed requests', function () {
  const keys = generateCodecKeyring('srv');
  const lines: string[] = [];
  let server: RunningCodecServer;
  let small: RunningCodecServer;

  before(async function () {
    server = await startCodecServer({ keys, token, uiOrigin, log: (line) => lines.push(line) });
    small = await startCodecServer({ keys, token, maxBodyBytes: 4096, maxPayloads: 5, maxJsonValues: 100 });
  });
  after(async function () {
    await server?.close();
    await small?.close();
  });

  const post = (path: string, body: unknown, target = server) =>
    send(target.url, { method: 'POST', path, headers: auth, body: JSON.stringify(body) });

  it('decodes each payload it can and passes the others through unchanged; encode stays all or nothing', async function () {
    const plain = defaultPayloadConverter.toPayload(value);
    const [ours] = await new AesGcmPayloadCodec(keys).encode([plain]);
    const [foreign] = await new AesGcmPayloadCodec(generateCodecKeyring('other')).encode([plain]);
    const tampered = jsonPayload(ours!);
    tampered.data = b64(ours!.data!.map((byte, index) => (index === 20 ? byte ^ 1 : byte)));
    const truncated = { ...jsonPayload(ours!), data: b64(ours!.data!.subarray(0, 10)) };
    const unpadded = { metadata: { encoding: 'YmluYXJ5L3BsYWlu' }, data: 'AQID_-8' };
    const sent = [jsonPayload(ours!), jsonPayload(foreign!), tampered, truncated, jsonPayload(plain), unpadded];
    const answer = await post('/decode', { payloads: sent });
    const payloads = answeredPayloads(answer);
    assert.deepEqual(payloads[0], jsonPayload(plain));
    assert.deepEqual(payloads.slice(1), sent.slice(1));
    const logged = lines.filter((line) => line.startsWith('decode:'));
    assert.equal(logged.length, 1);
    assert.match(logged[0]!, /3 of 6 payloads passed through undecoded \(first: .*key id "other"/);
    assert.doesNotMatch(logged.join('\n'), /Jane|123-45|AQID/);

    for (const [payloads, named] of [
      [[{ data: 'not base64!' }], /payloads\[0\]\.data must be a base64 string/],
      [[jsonPayload(plain), 42], /payloads\[1\] must be an object/],
      [[{ metadata: 'x' }], /payloads\[0\]\.metadata must be an object/],
      [[{ metadata: { encoding: 7 } }], /payloads\[0\]\.metadata\["encoding"\] must be a base64 string/],
    ] as const) {
      const refused = await post('/encode', { payloads });
      assert.equal(refused.status, 400);
      assert.match(refusal(refused).error, named);
    }
  });

  it('refuses the 700,000-payload body with 413 naming maxPayloads, before parsing it', async function () {
    const body = `{"payloads":[${Array<string>(700_000).fill('{"metadata":{"a":""}}').join(',')}]}`;
    const answer = await send(server.url, { method: 'POST', path: '/decode', headers: auth, body });
    assert.equal(answer.status, 413);
    assert.deepEqual(refusal(answer), {
      error: 'more than 10000 payloads in one request (maxPayloads)',
      limit: 'maxPayloads',
      maximum: 10_000,
    });
  });

  it('refuses a body over a limit while it still arrives (413 naming the limit)', async function () {
    const open = (body: string, headers = {}) =>
      send(small.url, { method: 'POST', path: '/decode', headers: { ...auth, ...headers }, body, keepOpen: true });
    const expect = (answer: Answer, limit: string, maximum: number) => {
      assert.equal(answer.status, 413, answer.body.toString());
      const { error, ...rest } = refusal(answer);
      assert.match(error, new RegExp(`\\(${limit}\\)$`));
      assert.deepEqual(rest, { limit, maximum });
      assert.equal(answer.headers.connection, 'close');
    };
    expect(await open(`{"payloads":[${' '.repeat(5000)}`), 'maxBodyBytes', 4096);
    expect(await open('{"payloads":[', { 'content-length': '1000000' }), 'maxBodyBytes', 4096);
    expect(await open('{"payloads":[{},{},{},{},{},{}'), 'maxPayloads', 5);
    expect(await open(`{"payloads":[{"metadata":{${'"a":"",'.repeat(120)}`), 'maxJsonValues', 100);
    // within the limits, the same server answers
    assert.deepEqual(answeredPayloads(await post('/decode', { payloads: [{}, {}, {}, {}, {}] }, small)).length, 5);
  });

  it('puts Cache-Control: no-store and X-Content-Type-Options: nosniff on every answer', async function () {
    const [ours] = await new AesGcmPayloadCodec(keys).encode([defaultPayloadConverter.toPayload(value)]);
    const answers = [
      await post('/decode', { payloads: [jsonPayload(ours!)] }),
      await post('/encode', { payloads: [{ data: 'AA==' }] }),
      await send(server.url, { method: 'POST', path: '/decode', body: '{"payloads":[]}' }),
      await send(server.url, { path: '/nowhere' }),
      await send(server.url, { path: '/decode' }),
      await send(server.url, { method: 'POST', path: '/decode', headers: auth, body: '{' }),
      await post('/decode', { payloads: [{}, {}, {}, {}, {}, {}] }, small),
      await send(server.url, { method: 'OPTIONS', path: '/decode', headers: { origin: uiOrigin } }),
      await send(server.url, { path: '/decode', headers: { origin: 'https://elsewhere.example' } }),
      await send(server.url, { path: '/health' }),
    ];
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [200, 200, 401, 404, 405, 400, 413, 204, 403, 200],
    );
    answers.forEach(assertAnswerHeaders);
    const raw = (await sendRaw(server.port, Buffer.from('NOT HTTP\r\n\r\n'))).toString();
    assert.match(raw, /^HTTP\/1\.1 400 /);
    assert.match(raw, /\r\nCache-Control: no-store\r\n/i);
    assert.match(raw, /\r\nX-Content-Type-Options: nosniff\r\n/i);
  });

  it('answers a malformed path or request with a JSON 4xx, never 500', async function () {
    for (const path of ['/%E0%A4%A/decode', '/%zz/decode', '/%C0%AF/encode', '/%/decode', '/%E0%A4%A/health']) {
      for (const method of ['GET', 'POST']) {
        const answer = await send(server.url, { method, path, headers: auth, body: '{"payloads":[]}' });
        assert.ok(answer.status === 400 || answer.status === 404, `${method} ${path}: ${answer.status}`);
        assert.match(refusal(answer).error, /path/);
        assertAnswerHeaders(answer);
      }
    }
    for (const [body, named] of [
      [`{"payloads":[{"metadata":{"x":${'['.repeat(10)}`, /nests deeper than 8 levels/],
      ['[{"payloads":[]}]', /expected \{ "payloads": \[\.\.\.\] \}/],
      ['{"payloads":{}}', /expected \{ "payloads": \[\.\.\.\] \}/],
      ['{"payloads":[]', /the body is not JSON/],
    ] as const) {
      const answer = await send(server.url, { method: 'POST', path: '/decode', headers: auth, body });
      assert.equal(answer.status, 400, body);
      assert.match(refusal(answer).error, named);
    }
    const answers = await Promise.all(
      [
        'BREW /decode HTTP/1.1\r\nHost: x\r\n\r\n',
        'GET /decode HTTP/1.1\r\n\r\n',
        'GET http://[/decode HTTP/1.1\r\nHost: x\r\n\r\n',
        'CONNECT codec.example:443 HTTP/1.1\r\nHost: codec.example:443\r\n\r\n',
        'GET /health HTTP/1.1\r\nHost: x\r\nExpect: the-unexpected\r\n\r\n',
        `GET / HTTP/1.1\r\nHost: x\r\nX-Long: ${'a'.repeat(20_000)}\r\n\r\n`,
      ].map((text) => sendRaw(server.port, Buffer.from(text))),
    );
    for (const raw of answers.map(String)) {
      const [head, body] = raw.split('\r\n\r\n');
      assert.match(head!, /^HTTP\/1\.1 (4\d\d|200) /, raw);
      if (/^HTTP\/1\.1 4/.test(head!)) {
        assert.match(head!, /\r\ncontent-type: application\/json/i, raw);
        assert.match(body!, /"error":"[^"]+"/, raw);
      }
    }
  });

  it('will not start with limits that are not positive integers', async function () {
    for (const limits of [{ maxPayloads: 0 }, { maxBodyBytes: 1.5 }, { maxJsonValues: -1 }]) {
      await assert.rejects(startCodecServer({ keys, token, ...limits }), CodecConfigurationError);
    }
  });
});

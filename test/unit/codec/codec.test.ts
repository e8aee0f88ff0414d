import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import type { Payload } from '@temporalio/common';
import {
  AesGcmPayloadCodec,
  CodecConfigurationError,
  codecKeyringFromEnv,
  dataConverterFromEnv,
  formatCodecKeys,
  generateCodecKeyEntry,
  generateCodecKeyring,
  isEncryptedPayload,
  isPlaintextRefusal,
  parseCodecKeys,
  PLAINTEXT_REFUSED,
  PayloadDecryptionError,
  startCodecServer,
} from '../../../codec/index.js';

const value = { name: 'Jane Doe', email: 'jane.doe@example.com', taxId: '123-45-6789' };
const plain = (): Payload => defaultPayloadConverter.toPayload(value);
const text = (payload: Payload) => Buffer.from(payload.data ?? []).toString('latin1');
const b64 = (bytes: Uint8Array | null | undefined) => Buffer.from(bytes ?? []).toString('base64');

describe('payload codec (AES-256-GCM)', function () {
  it('encrypts whole payloads under the newest key and decrypts them back', async function () {
    const codec = new AesGcmPayloadCodec(generateCodecKeyring('k2'));
    const [encrypted] = await codec.encode([plain()]);
    assert.ok(encrypted && isEncryptedPayload(encrypted));
    assert.equal(new TextDecoder().decode(encrypted.metadata?.['encryption-key-id'] ?? undefined), 'k2');
    assert.ok(!text(encrypted).includes('Jane') && !text(encrypted).includes('json/plain'));
    const [decoded] = await codec.decode([encrypted]);
    assert.deepEqual(defaultPayloadConverter.fromPayload(decoded!), value);
    // A fresh IV each time: equal values do not give equal ciphertexts.
    const [again] = await codec.encode([plain()]);
    assert.notEqual(b64(again?.data), b64(encrypted.data));
  });

  it('rotates keys: new payloads use the first key, older ones stay readable, unknown ids are named', async function () {
    const old = generateCodecKeyEntry('2024');
    const current = generateCodecKeyEntry('2025');
    const before = new AesGcmPayloadCodec(parseCodecKeys(old, 'test'));
    const after = new AesGcmPayloadCodec(parseCodecKeys(`${current},${old}`, 'test'));
    const [written] = await before.encode([plain()]);
    assert.deepEqual(defaultPayloadConverter.fromPayload((await after.decode([written!]))[0]!), value);
    const [fresh] = await after.encode([plain()]);
    assert.equal(new TextDecoder().decode(fresh?.metadata?.['encryption-key-id'] ?? undefined), '2025');
    await assert.rejects(before.decode([fresh!]), (error: unknown) => {
      assert.ok(error instanceof PayloadDecryptionError);
      assert.match(error.message, /key id "2025".*ECA_CODEC_KEYS/);
      return true;
    });
  });

  it('refuses a wrong key of the same id and a tampered payload', async function () {
    const codec = new AesGcmPayloadCodec(generateCodecKeyring('k'));
    const impostor = new AesGcmPayloadCodec(generateCodecKeyring('k'));
    const [encrypted] = await codec.encode([plain()]);
    await assert.rejects(impostor.decode([encrypted!]), /does not authenticate/);
    const data = new Uint8Array(encrypted!.data!);
    data[20] = data[20]! ^ 1;
    await assert.rejects(codec.decode([{ ...encrypted!, data }]), PayloadDecryptionError);
  });

  it('passes payloads written before encryption was turned on (accept mode, the readers)', async function () {
    const codec = new AesGcmPayloadCodec(generateCodecKeyring());
    assert.deepEqual(await codec.decode([plain()]), [plain()]);
  });

  it('strict mode: a plaintext payload decodes to a refusal holding nothing of it; patch markers pass', async function () {
    const keyring = generateCodecKeyring();
    const strict = new AesGcmPayloadCodec(keyring, { plaintext: 'refuse' });
    const [refused] = await strict.decode([plain()]);
    const decoded = defaultPayloadConverter.fromPayload(refused!);
    assert.ok(isPlaintextRefusal(decoded), JSON.stringify(decoded));
    assert.match(decoded[PLAINTEXT_REFUSED], /not encrypted.*ECA_CODEC_ALLOW_PLAINTEXT/);
    assert.doesNotMatch(text(refused!), /Jane|123-45/);
    // the SDK's patch marker details, which its core writes unencrypted
    const marker = defaultPayloadConverter.toPayload({ id: 'status-sweep', deprecated: false });
    assert.deepEqual(await strict.decode([marker]), [marker]);
    const lookalike = defaultPayloadConverter.toPayload({ id: 'x', deprecated: false, taxId: '123-45-6789' });
    assert.ok(isPlaintextRefusal(defaultPayloadConverter.fromPayload((await strict.decode([lookalike]))[0]!)));
    // encrypted payloads decode as in accept mode
    const [encrypted] = await strict.encode([plain()]);
    assert.deepEqual(defaultPayloadConverter.fromPayload((await strict.decode([encrypted!]))[0]!), value);
  });

  it('stops at start-up with the variable named when keys are missing or malformed', function () {
    const fails = (env: NodeJS.ProcessEnv, pattern: RegExp) =>
      assert.throws(
        () => codecKeyringFromEnv(env),
        (error: unknown) => error instanceof CodecConfigurationError && pattern.test(error.message),
      );
    fails({}, /ECA_CODEC_KEYS or ECA_CODEC_KEYS_FILE/);
    fails(
      { ECA_CODEC_KEYS: 'k1:' + Buffer.alloc(16).toString('base64') },
      /ECA_CODEC_KEYS: entry 1 \(key id k1\): an AES-256 key has 32 bytes, this one has 16/,
    );
    fails({ ECA_CODEC_KEYS: 'nokeyid' }, /ECA_CODEC_KEYS: entry 1 must be "keyId:base64Key"/);
    fails({ ECA_CODEC_KEYS: 'a:not base64!' }, /not base64/);
    const entry = generateCodecKeyEntry('a');
    fails({ ECA_CODEC_KEYS: `${entry},${entry}` }, /listed twice/);
    fails({ ECA_CODEC_KEYS: entry, ECA_CODEC_KEYS_FILE: '/x' }, /either ECA_CODEC_KEYS or ECA_CODEC_KEYS_FILE/);
    fails({ ECA_CODEC_KEYS_FILE: '/nonexistent/keys' }, /ECA_CODEC_KEYS_FILE \/nonexistent\/keys cannot be read/);
    assert.equal(dataConverterFromEnv({ ECA_CODEC_DISABLED: 'true' }), undefined);
    assert.throws(() => dataConverterFromEnv({}), CodecConfigurationError);
  });

  it('reads keys from a file (a Docker secret), comments allowed, newest first', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-codec-'));
    try {
      const file = join(dir, 'keys');
      await writeFile(file, `# rotated 2025-06\n${generateCodecKeyEntry('new')}\n${generateCodecKeyEntry('old')}\n`);
      const keyring = codecKeyringFromEnv({ ECA_CODEC_KEYS_FILE: file });
      assert.deepEqual(
        keyring.keys.map((key) => key.id),
        ['new', 'old'],
      );
      assert.deepEqual(parseCodecKeys(formatCodecKeys(keyring), 'again').keys, keyring.keys);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('codec server', function () {
  const keys = generateCodecKeyring('srv');
  const token = 'test-token-0123456789';
  const uiOrigin = 'http://localhost:8233';
  let server: Awaited<ReturnType<typeof startCodecServer>>;

  before(async function () {
    server = await startCodecServer({ keys, token, uiOrigin });
  });
  after(async function () {
    await server?.close();
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const json = (payload: Payload) => ({
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([key, bytes]) => [key, b64(bytes)])),
    data: b64(payload.data),
  });

  it('decodes and encodes for a caller with the bearer token, or the token in the path', async function () {
    const [encrypted] = await new AesGcmPayloadCodec(keys).encode([plain()]);
    const auth = { authorization: `Bearer ${token}` };
    const response = await post('/decode', { payloads: [json(encrypted!)] }, auth);
    assert.equal(response.status, 200);
    const { payloads } = (await response.json()) as { payloads: { data: string }[] };
    assert.deepEqual(JSON.parse(Buffer.from(payloads[0]!.data, 'base64').toString()), value);

    const viaPath = await fetch(`${server.uiEndpoint}/decode`, {
      method: 'POST',
      body: JSON.stringify({ payloads: [json(encrypted!)] }),
    });
    assert.equal(viaPath.status, 200);

    const encoded = (await (await post('/encode', { payloads: [json(plain())] }, auth)).json()) as {
      payloads: { metadata: Record<string, string> }[];
    };
    assert.equal(Buffer.from(encoded.payloads[0]!.metadata.encoding!, 'base64').toString(), 'binary/encrypted');
  });

  it('refuses callers without the token and browsers from other origins; answers the UI preflight', async function () {
    const [encrypted] = await new AesGcmPayloadCodec(keys).encode([plain()]);
    assert.equal((await post('/decode', { payloads: [json(encrypted!)] })).status, 401);
    assert.equal(
      (await post('/decode', { payloads: [] }, { authorization: 'Bearer wrong-token-0000000' })).status,
      401,
    );
    assert.equal((await fetch(`${server.url}/wrong-token-00000/decode`, { method: 'POST', body: '{}' })).status, 401);
    const foreign = await post(
      '/decode',
      { payloads: [] },
      { authorization: `Bearer ${token}`, origin: 'https://evil.example' },
    );
    assert.equal(foreign.status, 403);
    assert.equal(foreign.headers.get('access-control-allow-origin'), null);

    const preflight = await fetch(`${server.url}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: uiOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), uiOrigin);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /X-Namespace/);
    assert.equal(preflight.headers.get('access-control-allow-credentials'), 'true');
  });

  it('passes a payload it cannot decrypt through undecoded (test/unit/codec/codec-server.test.ts has more)', async function () {
    const [foreign] = await new AesGcmPayloadCodec(generateCodecKeyring('other')).encode([plain()]);
    const response = await post('/decode', { payloads: [json(foreign!)] }, { authorization: `Bearer ${token}` });
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), { payloads: [json(foreign!)] });
  });

  it('will not start with a short token', async function () {
    await assert.rejects(startCodecServer({ keys, token: 'short' }), CodecConfigurationError);
  });
});

/**
 * No brokerage call follows a redirect: a brokerage URL answering 307 (the token request, a signed call of the Web
 * API, a query of the XML service) is refused by its status, and the host the redirect names receives nothing,
 * neither the assertion nor the signed body. On real HTTP servers, with the global fetch and with the engine's
 * checked transport (runtime/checked-fetch.ts), which also refuses an address before connecting.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EcaRedirectError, EcaRequestError } from '../../../eca/index.js';
import { createTransport } from '../../../eca/web-client/transport.js';
import { WebApiClient, WebApiRedirectError, WebApiRequestError } from '../../../webapi/index.js';
import { brokerageFetch, checkedFetch } from '../../../runtime/checked-fetch.js';
import type { Resolver } from '../../../runtime/checked-fetch.js';
import { configurationErrorKind } from '../../../activities/configuration-errors.js';
import { describeError } from '../../../activities/brokerage-errors.js';

interface Received {
  method: string;
  url: string;
  body: string;
}

async function listen(answer: (request: IncomingMessage, response: ServerResponse) => void) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', body });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { server, received, url };
}

describe('brokerage calls never follow a redirect, and connect only to addresses a brokerage may have', function () {
  this.timeout(20_000);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let other: Awaited<ReturnType<typeof listen>>;
  let brokerage: Awaited<ReturnType<typeof listen>>;
  /** What the brokerage answers to a request other than the token's. */
  let redirectCalls = true;
  let redirectTokens = true;

  before(async function () {
    other = await listen((_request, response) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    brokerage = await listen((request, response) => {
      const token = request.url === '/oauth2/api/v1/token';
      if (token ? redirectTokens : redirectCalls) {
        response.writeHead(307, { location: `${other.url}${request.url ?? '/'}` }).end();
      } else if (token) {
        response
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'token-1', expires_in: 3600, token_type: 'Bearer' }));
      } else {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
  });
  after(async function () {
    for (const { server } of [other, brokerage]) await new Promise((resolve) => server?.close(resolve));
  });
  beforeEach(function () {
    redirectCalls = true;
    redirectTokens = true;
  });

  const transports: [string, typeof fetch | undefined][] = [
    ['the global fetch', undefined],
    ['the checked transport', brokerageFetch],
  ];

  for (const [name, transport] of transports) {
    const webApi = () =>
      new WebApiClient({
        baseUrl: brokerage.url,
        clientId: 'client-r',
        keyId: 'k1',
        privateKey: pem,
        ...(transport && { fetch: transport }),
      });

    it(`refuses a 307 to the token request, sending the assertion nowhere else (${name})`, async function () {
      const before = { brokerage: brokerage.received.length, other: other.received.length };
      await assert.rejects(webApi().echoHttps(), (error: unknown) => {
        assert.ok(error instanceof WebApiRedirectError, String(error));
        assert.equal(error.status, 307);
        assert.match(error.message, /generateToken: HTTP 307, a redirect: redirects are never followed/);
        assert.equal(configurationErrorKind(error), 'firm', 'a configuration problem, not a transient fault');
        assert.equal(describeError(error), error.message);
        return true;
      });
      assert.equal(brokerage.received.length, before.brokerage + 1, 'one token request');
      assert.match(brokerage.received.at(-1)!.body, /client_assertion=/);
      assert.equal(other.received.length, before.other, 'the other host received nothing');
    });

    it(`refuses a 307 to a signed call, sending the token and the body nowhere else (${name})`, async function () {
      redirectTokens = false;
      const before = other.received.length;
      await assert.rejects(webApi().echoSignedJwt({ note: 'signed' }), (error: unknown) => {
        assert.ok(error instanceof WebApiRedirectError, String(error));
        assert.equal(error.operation, 'echoSignedJwt');
        assert.match(error.message, /HTTP 307, a redirect: redirects are never followed/);
        return true;
      });
      assert.equal(brokerage.received.at(-1)!.method, 'POST');
      assert.equal(other.received.length, before, 'the other host received nothing');
      // Answered without a redirect, the same call goes through the same client.
      redirectCalls = false;
      const answered = await webApi()
        .echoSignedJwt({ note: 'signed' })
        .catch((error: unknown) => error);
      assert.ok(!(answered instanceof WebApiRedirectError));
      assert.equal(other.received.length, before);
    });

    it(`refuses a 307 to an XML service call, once, sending the body nowhere else (${name})`, async function () {
      const before = { brokerage: brokerage.received.length, other: other.received.length };
      const xml = createTransport(
        {
          csid: 'R',
          baseUrl: brokerage.url,
          retry: { limit: 2, delayMs: 1 },
          ...(transport && { fetch: transport }),
        },
        'qa',
      );
      await assert.rejects(xml.send('getAccountStatus', { CSID: 'R' }, 'query'), (error: unknown) => {
        assert.ok(error instanceof EcaRedirectError, String(error));
        assert.equal(error.status, 307);
        assert.match(error.message, /getAccountStatus: HTTP 307, a redirect: redirects are never followed/);
        assert.equal(configurationErrorKind(error), 'firm');
        return true;
      });
      assert.equal(brokerage.received.length, before.brokerage + 1, 'a redirect is not retried');
      assert.equal(other.received.length, before.other, 'the other host received nothing');
    });
  }

  it('connects to no name that resolves to a metadata or link-local address, on both protocols', async function () {
    const port = new URL(brokerage.url).port;
    const resolver =
      (address: string): Resolver =>
      () =>
        Promise.resolve([{ address, family: address.includes(':') ? 6 : 4 }]);
    const before = brokerage.received.length;
    redirectTokens = false;
    redirectCalls = false;
    for (const [address, reason] of [
      ['169.254.169.254', '169.254.169.254, a link-local address'],
      ['fd00:ec2::254', 'fd00:ec2::254, a cloud metadata service'],
      ['::ffff:169.254.169.254', '::ffff:169.254.169.254, a link-local address'],
    ] as const) {
      const transport = checkedFetch({ resolve: resolver(address), what: 'a brokerage' });
      const client = new WebApiClient({
        baseUrl: `http://brokerage.invalid:${port}`,
        clientId: 'client-r',
        keyId: 'k1',
        privateKey: pem,
        fetch: transport,
      });
      await assert.rejects(client.echoHttps(), (error: unknown) => {
        assert.ok(error instanceof WebApiRequestError, String(error));
        assert.equal(error.parameter, 'baseUrl');
        assert.equal(error.message, `baseUrl: brokerage.invalid resolves to ${reason}: never a brokerage`);
        assert.equal(configurationErrorKind(error), 'firm');
        return true;
      });
      const xml = createTransport(
        {
          csid: 'R',
          baseUrl: `http://brokerage.invalid:${port}`,
          preferenceUrl: `http://brokerage.invalid:${port}`,
          fetch: transport,
          retry: { limit: 2, delayMs: 1 },
        },
        'qa',
      );
      for (const operation of ['getAccountStatus', 'preferenceSet'] as const) {
        await assert.rejects(xml.send(operation, { CSID: 'R' }, 'query'), (error: unknown) => {
          assert.ok(error instanceof EcaRequestError, String(error));
          assert.equal(error.parameter, operation === 'preferenceSet' ? 'preferenceUrl' : 'baseUrl');
          assert.match(error.message, new RegExp(`brokerage\\.invalid resolves to .*: never a brokerage`));
          assert.equal(configurationErrorKind(error), 'firm');
          return true;
        });
      }
    }
    assert.equal(brokerage.received.length, before, 'no connection was made');
    // The same name resolved to loopback reaches the brokerage.
    const reached = new WebApiClient({
      baseUrl: `http://brokerage.invalid:${port}`,
      clientId: 'client-r',
      keyId: 'k1',
      privateKey: pem,
      fetch: checkedFetch({ resolve: resolver('127.0.0.1'), what: 'a brokerage' }),
    });
    await reached.echoHttps().catch(() => undefined);
    assert.equal(brokerage.received.length, before + 2, 'the token request and the call');
  });
});

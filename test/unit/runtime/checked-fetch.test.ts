/**
 * The checked transport (runtime/checked-fetch.ts) answers as fetch does where the engine's clients read the answer:
 * a timeout before the answer and while its body streams fails with the signal's TimeoutError, a URL carrying a
 * user name or password is refused before any connection, a Request's body is sent whole, a 204 has no body. Each
 * case on a real HTTP server, with the global fetch beside it for the behaviour it must match.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ADDRESS_REFUSED, checkedFetch } from '../../../runtime/checked-fetch.js';

describe('the checked transport answers as fetch does (runtime/checked-fetch)', function () {
  this.timeout(20_000);
  let server: Server;
  let url: string;
  const received: { url: string; authorization?: string; body: string }[] = [];
  const transports: [string, typeof fetch][] = [
    ['fetch', fetch],
    ['checked', checkedFetch()],
  ];

  before(async function () {
    server = createServer((request: IncomingMessage, response: ServerResponse) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({
          url: request.url ?? '',
          ...(request.headers.authorization !== undefined && { authorization: request.headers.authorization }),
          body,
        });
        if (request.url === '/silent') return; // never answers
        if (request.url === '/stalls') {
          // The headers and a first part of the body, then nothing more.
          response.writeHead(200, { 'content-type': 'application/json' });
          response.write('{"part":');
          return;
        }
        if (request.url === '/empty') {
          response.writeHead(204).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echo: body }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(async function () {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  for (const [name, transport] of transports) {
    it(`${name}: a timeout before the answer fails with the signal's TimeoutError`, async function () {
      const error = await transport(`${url}/silent`, { signal: AbortSignal.timeout(300) }).then(
        () => assert.fail('answered'),
        (failure: Error) => failure,
      );
      assert.equal(error.name, 'TimeoutError');
    });

    it(`${name}: a timeout while the body streams fails the read with the signal's TimeoutError`, async function () {
      const response = await transport(`${url}/stalls`, { signal: AbortSignal.timeout(500) });
      assert.equal(response.status, 200);
      const error = await response.text().then(
        () => assert.fail('read whole'),
        (failure: Error) => failure,
      );
      assert.equal(error.name, 'TimeoutError');
    });
  }

  it('refuses a URL with a user name or password before connecting, as fetch does', async function () {
    const before = received.length;
    for (const [, transport] of transports) {
      const error = await transport(`http://user:secret@127.0.0.1:${new URL(url).port}/echo`).then(
        () => assert.fail('sent'),
        (failure: Error) => failure,
      );
      assert.ok(error instanceof TypeError);
    }
    const checked = await checkedFetch()(`http://user:secret@127.0.0.1:${new URL(url).port}/echo`).catch(
      (failure: Error) => failure,
    );
    assert.equal(((checked as Error).cause as { code?: string }).code, ADDRESS_REFUSED);
    assert.equal(received.length, before, 'nothing reached the server');
  });

  it("sends a Request's body whole, and answers a 204 with no body", async function () {
    const transport = checkedFetch();
    const sent = JSON.stringify({ value: 'x'.repeat(100_000) });
    const response = await transport(
      new Request(`${url}/echo`, { method: 'POST', body: sent, headers: { 'content-type': 'application/json' } }),
    );
    assert.deepEqual(await response.json(), { echo: sent });
    const empty = await transport(`${url}/empty`);
    assert.equal(empty.status, 204);
    assert.equal(empty.body, null);
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { checkedFetch, postEvent } from '../../../activities/webhook-post.js';
import type { Resolver } from '../../../activities/webhook-post.js';
import { toRecord } from '../../../runtime/events.js';

describe('webhook deliveries connect only to addresses a receiver may have (activities/webhook-post)', function () {
  this.timeout(20_000);
  const secret = `whsec_${randomBytes(24).toString('base64')}`;
  const event = toRecord({
    application: 'wf-hook/run',
    seq: 1,
    type: 'application.open',
    csid: 'FIRM-H',
    externalId: 'HOOK-1',
    from: 'awaitingApproval',
    to: 'open',
    at: Date.now(),
    data: {},
  });
  let server: Server;
  let port: number;
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  let connections = 0;
  let answer: (response: ServerResponse) => void = (response) => response.writeHead(204).end();

  before(async function () {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        received.push({ headers: request.headers, body });
        answer(response);
      });
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(async function () {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  /** A resolver that answers `addresses` for every name, and counts the names asked. */
  function resolver(...addresses: string[]): Resolver & { asked: string[] } {
    const asked: string[] = [];
    const resolve = (hostname: string) => {
      asked.push(hostname);
      return Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
    };
    return Object.assign(resolve, { asked });
  }

  const post = (url: string, send: typeof fetch, timeoutMs = 5_000) =>
    postEvent(url, event, [secret], { fetch: send, timeoutMs });

  it('delivers to the address the checked name resolves to, signed, and to localhost by the system resolver', async function () {
    // No such name in any DNS: the socket can only go where the checked lookup said.
    const resolve = resolver('127.0.0.1');
    const before = received.length;
    assert.deepEqual(await post(`http://receiver.invalid:${port}/hooks`, checkedFetch(resolve)), {
      ok: true,
      status: 204,
    });
    assert.deepEqual(resolve.asked, ['receiver.invalid']);
    const delivery = received[before]!;
    assert.equal(delivery.body, JSON.stringify(event));
    assert.doesNotThrow(() => new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>));
    assert.deepEqual(await post(`http://localhost:${port}/hooks`, checkedFetch()), { ok: true, status: 204 });
  });

  it('refuses a name that resolves to a metadata, link-local or multicast address, in any form, before connecting', async function () {
    const before = connections;
    for (const [addresses, reason] of [
      [['169.254.169.254'], 'resolves to 169.254.169.254, a link-local address'],
      // Every address is checked: one good address beside a bad one does not let the name through.
      [['127.0.0.1', '169.254.169.254'], 'resolves to 169.254.169.254, a link-local address'],
      [['64:ff9b::a9fe:a9fe'], 'resolves to 64:ff9b::a9fe:a9fe, a link-local address'],
      [['fd00:ec2::254'], 'resolves to fd00:ec2::254, a cloud metadata service'],
      [['224.0.0.251'], 'resolves to 224.0.0.251, a multicast or reserved address'],
    ] as const) {
      const outcome = await post(`http://rebind.invalid:${port}/hooks`, checkedFetch(resolver(...addresses)));
      assert.deepEqual(outcome, { ok: false, error: `request refused: rebind.invalid ${reason}: never a receiver` });
    }
    // An address written in the URL is checked as it stands.
    assert.deepEqual(await post('http://169.254.169.254/latest/', checkedFetch(resolver('127.0.0.1'))), {
      ok: false,
      error: 'request refused: 169.254.169.254 is a link-local address: never a receiver',
    });
    assert.equal(connections, before, 'no connection was made');
  });

  it('never follows a redirect, and ends an unanswered request at its timeout', async function () {
    answer = (response) => response.writeHead(302, { location: 'http://169.254.169.254/' }).end();
    assert.deepEqual(await post(`http://localhost:${port}/hooks`, checkedFetch()), {
      ok: false,
      error: 'HTTP 302 Found',
    });
    answer = () => undefined;
    assert.deepEqual(await post(`http://localhost:${port}/hooks`, checkedFetch(), 300), {
      ok: false,
      error: 'no answer within 300 ms',
    });
    answer = (response) => response.writeHead(204).end();
  });
});

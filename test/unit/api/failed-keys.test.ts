import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { FailedKeys } from '../../../api/auth.js';
import { buildApi } from '../../../api/server.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { watchedLogger } from '../../support/log-watch.js';
import { sharedEmbeddedDatabase } from '../../support/databases.js';

describe('onboarding API: requests without a valid key are limited per client address', function () {
  this.timeout(30_000);
  let dir: string;
  let app: FastifyInstance | undefined;

  before(async function () {
    // The embedded database opens first: seconds of initdb, more on a loaded machine.
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), 'eca-failed-keys-'));
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'documents')),
      },
      verifyKey: (key) =>
        Promise.resolve(key === 'good' ? { keyId: 'good', csid: 'FIRM-K', role: 'staff' as const } : undefined),
      database: await sharedEmbeddedDatabase(),
      failedKeysPerMinute: 3,
      // Temporal is out of reach: a request past the key check ends 504 at once instead of waiting.
      callTimeoutMs: 200,
    });
  });

  after(async function () {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const get = (remoteAddress: string, authorization?: string) =>
    app!.inject({
      method: 'GET',
      url: '/v1/applications',
      remoteAddress,
      headers: authorization === undefined ? {} : { authorization },
    });

  it('answers 401 up to the limit, then 429 with Retry-After to every request of that address only', async function () {
    // A valid key is let through (to an engine out of reach: 504) before the address has failed.
    assert.equal((await get('10.0.0.1', 'Bearer good')).statusCode, 504);
    // Unknown, malformed and absent keys all count.
    for (const authorization of ['Bearer wrong', 'Basic abc', undefined]) {
      const answer = await get('10.0.0.1', authorization);
      assert.equal(answer.statusCode, 401, String(authorization));
    }
    const refused = await get('10.0.0.1', 'Bearer wrong');
    assert.equal(refused.statusCode, 429);
    const problem = refused.json<{ code: string; detail: string }>();
    assert.equal(problem.code, 'RATE_LIMITED');
    assert.match(problem.detail, /over 3 requests a minute without a valid API key from this address; retry in \d+ s/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After: ${retryAfter}`);
    // The address is refused whatever key it presents, until its minute ends.
    assert.equal((await get('10.0.0.1', 'Bearer good')).statusCode, 429);
    // Another address is not: its wrong key is a 401, its valid key served.
    assert.equal((await get('10.0.0.2', 'Bearer wrong')).statusCode, 401);
    assert.equal((await get('10.0.0.2', 'Bearer good')).statusCode, 504);
    // Public routes carry no key and are not limited.
    assert.equal((await app!.inject({ method: 'GET', url: '/healthz', remoteAddress: '10.0.0.1' })).statusCode, 200);
  });

  it('counts in one-minute windows: an address may try again when its window ends', function () {
    let now = 1_000_000;
    const failed = new FailedKeys(2, () => now);
    failed.fail('a');
    assert.equal(failed.retryAfter('a'), 0, 'under the limit');
    failed.fail('a');
    assert.equal(failed.retryAfter('a'), 60);
    now += 59_500;
    assert.equal(failed.retryAfter('a'), 1);
    now += 500;
    assert.equal(failed.retryAfter('a'), 0, 'the window ended');
    failed.fail('a');
    assert.equal(failed.retryAfter('a'), 0, 'a new window counts from one');
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi, readinessCheck } from '../../../api/server.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { logWatch, watchedLogger } from '../../support/log-watch.js';
import { sharedEmbeddedDatabase } from '../../support/databases.js';
import type { Database } from '../../../runtime/database/index.js';

describe('onboarding API: /readyz names the part that does not answer, never its error', function () {
  this.timeout(30_000);
  let dir: string;
  let app: FastifyInstance | undefined;
  let database: Database;

  before(async function () {
    // The embedded database opens first: seconds of initdb, more on a loaded machine.
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), 'eca-readyz-'));
    database = await sharedEmbeddedDatabase();
  });

  after(async function () {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('answers 503 naming the part; the driver text and addresses go to the log only', async function () {
    // What a database driver says when it cannot connect: an internal address a public endpoint must not show.
    const internal = 'connect ECONNREFUSED 10.20.30.40:5432 (role eca_owner)';
    let databaseUp = false;
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'documents')),
      },
      verifyKey: () => Promise.resolve(undefined),
      database,
      checkReady: readinessCheck({
        Temporal: () => Promise.resolve(),
        'the engine database': () => (databaseUp ? Promise.resolve() : Promise.reject(new Error(internal))),
      }),
    });
    const logged = logWatch.count(/^not ready$/);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });

    const down = await fetch(`${url}/readyz`);
    assert.equal(down.status, 503);
    const text = await down.text();
    const problem = JSON.parse(text) as { code: string; detail: string };
    assert.equal(problem.code, 'UNAVAILABLE');
    assert.equal(problem.detail, 'not ready: the engine database does not answer');
    assert.doesNotMatch(text, /10\.20\.30\.40|ECONNREFUSED|eca_owner/);
    assert.equal(logged.seen, 1, 'the cause is logged');

    databaseUp = true;
    const up = await fetch(`${url}/readyz`);
    assert.equal(up.status, 200);
    assert.deepEqual(await up.json(), { status: 'ready' });
  });

  it('asks the parts in turn and names the first that fails', async function () {
    const asked: string[] = [];
    const check = readinessCheck({
      Temporal: () => {
        asked.push('Temporal');
        return Promise.reject(new Error('14 UNAVAILABLE: No connection established'));
      },
      'the engine database': () => {
        asked.push('database');
        return Promise.resolve();
      },
    });
    await assert.rejects(check(), (error: Error & { part?: string; cause?: unknown }) => {
      assert.equal(error.name, 'NotReadyError');
      assert.equal(error.part, 'Temporal');
      assert.match(String((error.cause as Error).message), /No connection established/);
      return true;
    });
    assert.deepEqual(asked, ['Temporal']);
  });
});

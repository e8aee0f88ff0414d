/**
 * The onboarding API's query parameters that take one of a list (api/schemas.ts): a value outside it is a
 * 400 problem naming the parameter and the values it takes, never an empty page. Refused by the schema,
 * before the engine is asked: Temporal is out of reach here.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../../api/server.js';
import { APPLICATION_STATES } from '../../../domain/application-states.js';
import { ACCOUNT_STATUS_LETTER_RULE } from '../../../domain/account.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { sharedEmbeddedDatabase } from '../../support/databases.js';

interface Problem {
  status: number;
  code: string;
  field?: string;
  detail: string;
}

describe('onboarding API: a query parameter outside its list is refused, naming the list', function () {
  this.timeout(30_000);
  let dir: string;
  let app: FastifyInstance;
  let base: string;

  before(async function () {
    // The embedded database opens first: seconds of initdb, more on a loaded machine.
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), 'eca-list-query-'));
    app = await buildApi({
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'documents')),
      },
      verifyKey: (key) => Promise.resolve(key === 'k' ? { keyId: 'k', csid: 'FIRM-1', role: 'ops' } : undefined),
      database: await sharedEmbeddedDatabase(),
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
  });

  after(async function () {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function problemOf(path: string): Promise<Problem> {
    const response = await fetch(`${base}${path}`, { headers: { authorization: 'Bearer k' } });
    const problem = (await response.json()) as Problem;
    assert.equal(response.status, 400, JSON.stringify(problem));
    assert.equal(problem.code, 'INVALID_INPUT');
    return problem;
  }

  it('refuses a lifecycleState that does not exist, naming every one there is', async function () {
    const problem = await problemOf('/v1/applications?lifecycleState=needsDocs');
    assert.equal(problem.field, 'querystring.lifecycleState');
    for (const state of APPLICATION_STATES) assert.match(problem.detail, new RegExp(`"${state}"`), problem.detail);
  });

  it('refuses an accountStatus that no brokerage sends, saying what one is', async function () {
    for (const status of ['open', 'o', 'OO']) {
      const problem = await problemOf(`/v1/applications?accountStatus=${status}`);
      assert.equal(problem.field, 'querystring.accountStatus');
      assert.ok(problem.detail.includes(ACCOUNT_STATUS_LETTER_RULE), problem.detail);
    }
  });

  it('refuses a running that is neither true nor false, on applications and runs', async function () {
    for (const path of ['/v1/applications', '/v1/maintenance-requests', '/v1/daily-documents']) {
      const problem = await problemOf(`${path}?running=yes`);
      assert.equal(problem.field, 'querystring.running');
      assert.match(problem.detail, /true.*false/);
    }
  });
});

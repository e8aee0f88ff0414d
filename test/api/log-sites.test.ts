/**
 * The API's failure line fed an applicant's data: an application XML full of it is posted to a service whose
 * document store fails, so the request ends in `500 INTERNAL`, logged with its error through the engine's
 * logger. The run's log watch (test/support/log-watch.ts) reads the line and fails the run on any of the data.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import type { FastifyInstance } from 'fastify';
import { buildApi } from '../../api/server.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { applicant, personalXml } from '../support/history-privacy.js';
import { logWatch, siteLines, watchedLogger } from '../support/log-watch.js';

describe("the API's failure line, fed an applicant's data", function () {
  let dir: string;
  let app: FastifyInstance;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-api-log-'));
    // A store whose root is a file: every put fails, as a full or broken disk would.
    await writeFile(join(dir, 'not-a-directory'), '');
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: {
        client: new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) }),
        store: new FileDocumentStore(join(dir, 'not-a-directory')),
      },
      verifyKey: (key) =>
        Promise.resolve(key === 'k' ? { keyId: 'k', csid: 'FIRM-LOG', role: 'onboarding' } : undefined),
    });
  });

  after(async function () {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('logs the failure of a start, not the application it carried', async function () {
    const person = applicant('apilog', randomBytes(4).toString('hex'));
    const before = siteLines('api/problems.ts', /^request failed: /);
    const findings = logWatch.findings.length;
    const answer = await app.inject({
      method: 'POST',
      url: '/v1/applications',
      headers: { authorization: 'Bearer k', 'content-type': 'application/json' },
      payload: { applicationXml: personalXml(`apilog-${randomBytes(4).toString('hex')}`, person) },
    });
    assert.equal(answer.statusCode, 500, answer.body);
    assert.equal(answer.json<{ code: string }>().code, 'INTERNAL');
    assert.equal(siteLines('api/problems.ts', /^request failed: /) - before, 1);
    assert.deepEqual(logWatch.findings.slice(findings), []);
  });
});

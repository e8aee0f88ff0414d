/**
 * Property-based tests of the onboarding API's routes: arbitrary methods, paths (route templates with
 * arbitrary references, and arbitrary paths), authorization headers (each role's key, another firm's,
 * revoked, garbage, none), content types and bodies (random JSON shaped like the requests, random text).
 * Every answer is a success of the route or a problem (RFC 9457) with a known code and the request id;
 * never a 5xx, and never an answer about the firm's application to another firm's key.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { FastifyInstance } from 'fastify';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { PROBLEM_TYPES } from '../../../api/problems.js';
import { buildApi } from '../../../api/server.js';
import { createApiKey, revokeApiKey } from '../../../runtime/api-keys.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { Database } from '../../../runtime/database/index.js';
import { applicationXml } from '../../support/engine.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';
import { devServerEnv } from '../../support/servers.js';
import { watchedLogger } from '../../support/log-watch.js';
import { openSeededDatabase } from '../../support/database-template.js';

const ROUTES = [
  ['GET', '/v1/applications'],
  ['POST', '/v1/applications'],
  ['GET', '/v1/applications/{reference}'],
  ['POST', '/v1/applications/{reference}/documents'],
  ['POST', '/v1/applications/{reference}/resubmit'],
  ['POST', '/v1/applications/{reference}/abandon'],
  ['POST', '/v1/applications/{reference}/reset'],
  ['POST', '/v1/applications/{reference}/retry'],
  ['POST', '/v1/applications/{reference}/poll-now'],
  ['POST', '/v1/applications/{reference}/credentials'],
  ['GET', '/healthz'],
  ['GET', '/openapi.json'],
] as const;

describe('onboarding API (fuzz)', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let db: Database;
  let app: FastifyInstance;
  let dir: string;
  const keys: string[] = [];
  let otherFirmKey: string;

  before(async function () {
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-api-fuzz-'));
    db = await openSeededDatabase(join(dir, 'database'));
    for (const role of ['onboarding', 'staff', 'ops'] as const) {
      keys.push((await createApiKey(db, { csid: 'FUZZ1', role, name: role })).key);
    }
    otherFirmKey = (await createApiKey(db, { csid: 'FUZZ2', role: 'staff', name: 'other' })).key;
    const revoked = await createApiKey(db, { csid: 'FUZZ1', role: 'staff', name: 'revoked' });
    await revokeApiKey(db, revoked.record.id);
    keys.push(revoked.key, otherFirmKey);
    // No worker polls this queue: a start is accepted by Temporal and never run; reads of it wait on no one.
    app = await buildApi({
      logger: watchedLogger('eca-api'),
      engine: { client: env.client, store: new FileDocumentStore(join(dir, 'documents')), taskQueue: 'api-fuzz' },
      verifyKey: databaseKeyVerifier(db),
      database: db,
      // Every route is explored: a wrong key is answered 401, never refused for the address's earlier ones.
      failedKeysPerMinute: Number.MAX_SAFE_INTEGER,
      bodyLimit: 256 * 1024,
      rateLimitPerMinute: 1_000_000,
    });
  });

  after(async function () {
    await app?.close();
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const reference = fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('..', '%2e%2e', 'application-FUZZ1-x', 'application-FUZZ2-x', '%00', '%E0%A4%A', 'a'.repeat(300)),
    fc.stringMatching(/^[A-Za-z0-9%._~-]{1,60}$/),
  );
  const path = fc.oneof(
    fc.tuple(fc.constantFrom(...ROUTES), reference).map(([[method, template], ref]) => ({
      method,
      url: template.replace('{reference}', ref.replace(/[/?#]/g, '_')),
    })),
    fc.record({ method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE'), url: fc.webPath().map((p) => p || '/') }),
  );
  const jsonBody = fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record(
      {
        // Never a valid application: a start would wait for a worker this test does not run (api.test.ts starts them).
        applicationXml: fc.oneof(
          fc.string(),
          fc.constant(applicationXml('fuzz-x').slice(0, 200)),
          fc.constant('/etc/passwd'),
        ),
        documents: fc.array(
          fc.record(
            { formNumber: fc.string({ maxLength: 12 }), fileName: fc.string(), contentBase64: fc.base64String() },
            { requiredKeys: [] },
          ),
          { maxLength: 3 },
        ),
        reason: fc.string(),
      },
      { requiredKeys: [] },
    ),
  );
  const body = fc.oneof(
    fc.constant(undefined),
    jsonBody.map((value) => ({ type: 'application/json', payload: JSON.stringify(value) ?? 'null' })),
    fc.string().map((text) => ({ type: 'application/json', payload: text })),
    fc
      .tuple(fc.constantFrom('application/xml', 'text/plain', 'multipart/form-data'), fc.string())
      .map(([type, payload]) => ({ type, payload })),
  );
  const authorization = fc.oneof(
    fc.constant(undefined),
    fc.nat({ max: 4 }).map((i) => `Bearer ${keys[i]}`),
    fc.string({ maxLength: 80 }),
    fc.string({ maxLength: 60 }).map((s) => `Bearer eca_${s}`),
  );

  it('answers every request with a success or a typed problem, never a 5xx, never about another firm', async function () {
    await fc.assert(
      fc.asyncProperty(path, body, authorization, async (route, sent, auth) => {
        const answer = await app.inject({
          method: route.method,
          url: route.url,
          headers: {
            ...(auth === undefined ? {} : { authorization: auth }),
            ...(sent === undefined ? {} : { 'content-type': sent.type }),
          },
          ...(sent === undefined ? {} : { payload: sent.payload }),
        });
        const what = `${route.method} ${route.url} → ${answer.statusCode} ${answer.body.slice(0, 300)}`;
        assert.ok(answer.statusCode < 500, what);
        assert.ok(answer.headers['x-request-id'], what);
        if (answer.statusCode >= 400) {
          assert.match(String(answer.headers['content-type']), /^application\/problem\+json/, what);
          const problem = answer.json<{ code: keyof typeof PROBLEM_TYPES; status: number; requestId: string }>();
          assert.ok(PROBLEM_TYPES[problem.code], what);
          assert.equal(problem.status, answer.statusCode, what);
          assert.equal(problem.requestId, answer.headers['x-request-id'], what);
        } else if (auth === `Bearer ${otherFirmKey}` && route.url.startsWith('/v1/applications/')) {
          assert.fail(`another firm's key was answered: ${what}`);
        }
      }),
      fuzzParameters('api routes', 150),
    );
  });
});

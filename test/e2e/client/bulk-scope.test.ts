/**
 * `eca bulk` stays inside the firm: the staff filter is parsed by a grammar and written back by the
 * engine (client/visibility-filter.ts), so an unbalanced `)`, a quote or an `OR` cannot widen the scope.
 * Two firms' applications on a real dev server; a real batch job signals only the caller's firm.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { WorkflowHandle } from '@temporalio/client';
import { awaitBulkJob, bulkQuery, planBulk, startBulk } from '../../../client/bulk.js';
import type { BulkJob } from '../../../client/bulk.js';
import { InvalidInputError, startApplication } from '../../../client/index.js';
import type { EngineContext } from '../../../client/index.js';
import { filterText, parseFilter } from '../../../client/visibility-filter.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { applicationXml } from '../../support/engine.js';
import { devServerEnv } from '../../support/servers.js';

/** The scope's breakouts found in review, and other texts that must never widen it. */
export const HOSTILE_FILTERS = [
  "EcaLifecycleState = 'x') OR (EcaCsid != 'FIRM-A'",
  "EcaLifecycleState = 'x' OR EcaCsid = 'FIRM-B'",
  "EcaCsid = 'FIRM-B'",
  "WorkflowType = 'accountApplication'",
  "ExecutionStatus = 'Completed'",
  "EcaExternalId = 'a') OR (1 = 1",
  ') OR (',
  "EcaLifecycleState = 'x' -- comment",
  "EcaLifecycleState = 'x'; DROP",
  'TaskQueue = "q"',
];

describe('eca bulk: a filter parsed by a grammar, never past the firm', function () {
  it('refuses the breakouts, naming what is wrong', function () {
    for (const filter of HOSTILE_FILTERS) {
      assert.throws(() => bulkQuery('FIRM-A', filter), InvalidInputError, filter);
    }
    assert.throws(
      () => bulkQuery('FIRM-A', "EcaCsid = 'FIRM-B'"),
      /"EcaCsid" cannot be filtered on here; the attributes are/,
    );
    assert.throws(
      () => bulkQuery('FIRM-A', "EcaLifecycleState = 'x')"),
      /position 24: unexpected "\)" after a complete filter/,
    );
    assert.throws(() => bulkQuery('FIRM-A', "EcaLifecycleState = 'x"), /not closed/);
    assert.throws(() => bulkQuery('FIRM-A', '   '), /is empty/);
    assert.throws(() => bulkQuery('FIRM-A', '('.repeat(40) + "EcaAccountId = 'U1'" + ')'.repeat(40)), /nested/);
  });

  it('writes the filter back itself: quotes escaped, groups in parentheses, keywords in any case', function () {
    assert.equal(
      bulkQuery(
        'FIRM-A',
        "EcaLifecycleState = 'needsDocuments' or EcaExternalId in ('a', \"b'c\") and EcaAccountId is not null",
      ),
      "WorkflowType = 'accountApplication' AND ExecutionStatus = 'Running' AND EcaCsid = 'FIRM-A' AND " +
        "((EcaLifecycleState = 'needsDocuments') OR ((EcaExternalId IN ('a', 'b\\'c')) AND (EcaAccountId IS NOT NULL)))",
    );
    assert.throws(() => bulkQuery('FIRM-A', "ecaLifecycleState = 'x'"), /"ecaLifecycleState" cannot be filtered on/);
    const filter =
      "StartTime BETWEEN '2026-01-01T00:00:00Z' AND '2026-12-31T00:00:00Z' AND EcaExternalId STARTS_WITH 'k'";
    const ast = parseFilter(filter);
    assert.deepEqual(parseFilter(filterText(ast)), ast, 'the written filter reads back the same');
  });
});

describe('eca bulk with two firms on a real server', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let dir: string;
  const run = randomUUID().slice(0, 6);
  const firms: Record<'a' | 'b', { ctx: EngineContext; handles: WorkflowHandle[] }> = {} as never;

  before(async function () {
    env = await devServerEnv();
    dir = await mkdtemp(join(tmpdir(), 'eca-bulk-'));
    const store = new FileDocumentStore(dir);
    // No worker polls this queue: the applications stay running, and their histories show every signal.
    const taskQueue = `bulk-scope-${run}`;
    for (const firm of ['a', 'b'] as const) {
      const ctx: EngineContext = { client: env.client, store, csid: `FIRM-${firm.toUpperCase()}-${run}`, taskQueue };
      const handles: WorkflowHandle[] = [];
      for (let i = 0; i < 3; i++) {
        const xml = applicationXml(`bulk-${run}-${firm}${i}`);
        handles.push((await startApplication(ctx, { applicationXml: xml })).handle);
      }
      firms[firm] = { ctx, handles };
    }
    // Visibility lags the starts a little.
    for (let i = 0; i < 100; i++) {
      const { count } = await env.client.workflow.count(`EcaExternalId STARTS_WITH 'bulk-${run}-'`);
      if (count === 6) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async function () {
    for (const firm of Object.values(firms))
      for (const handle of firm.handles) await handle.terminate('test done').catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it("every filter the grammar takes matches the firm's own applications only; the hostile ones are refused", async function () {
    const a = firms.a.ctx;
    for (const filter of HOSTILE_FILTERS) await assert.rejects(planBulk(a, { query: filter }), InvalidInputError);
    for (const filter of [
      `EcaExternalId STARTS_WITH 'bulk-${run}-'`,
      `EcaExternalId STARTS_WITH 'bulk-${run}-b'`,
      "EcaLifecycleState = 'validating' OR EcaLifecycleState != 'validating'",
      "WorkflowId STARTS_WITH 'application:'",
      `EcaExternalId IN ('bulk-${run}-b0', 'bulk-${run}-a0')`,
    ]) {
      const plan = await planBulk(a, { query: filter });
      assert.ok(
        plan.sample.every((id) => id.includes(a.csid)),
        `${filter}: ${plan.sample.join(', ')}`,
      );
      assert.ok(plan.matching <= 3, `${filter} matched ${plan.matching}`);
    }
  });

  it("a poll-now job signals the firm's applications, and none of the other firm's", async function () {
    const job = (await startBulk(firms.a.ctx, {
      action: 'poll-now',
      query: "WorkflowId STARTS_WITH 'application:'",
    })) as BulkJob;
    assert.equal(job.matching, 3);
    const done = await awaitBulkJob(firms.a.ctx, job.jobId);
    assert.equal(done.completed, 3);
    const signalled = async (handle: WorkflowHandle) =>
      (await handle.fetchHistory()).events!.filter((event) => event.workflowExecutionSignaledEventAttributes).length;
    for (const handle of firms.a.handles) assert.equal(await signalled(handle), 1, handle.workflowId);
    for (const handle of firms.b.handles) assert.equal(await signalled(handle), 0, handle.workflowId);
  });
});

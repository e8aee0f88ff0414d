import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import {
  abandon,
  applicationQuery,
  ApplicationFinishedError,
  findApplication,
  getState,
  InvalidInputError,
  listApplications,
  NotAllowedInStateError,
  pollNow,
  provideDocuments,
  startApplication,
  UnknownApplicationError,
} from '../../../client/index.js';
import type { EngineContext, StartApplicationInput } from '../../../client/index.js';
import { applicationXml, pdf, startEngine } from '../../support/engine.js';
import { applicationWorkflowId } from '../../../domain/workflow-ids.js';
import type { EngineHarness } from '../../support/engine.js';
import { devServerEnv } from '../../support/servers.js';

const FAST: StartApplicationInput['settings'] = {
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let i = 0; i < 300; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('client API (dev server, worker, simulator)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let ctx: EngineContext;
  let running: Promise<void>;
  const run = randomUUID().slice(0, 6);

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 } });
    ctx = { client: env.client, store: engine.store, csid: engine.sim.csid, taskQueue: engine.taskQueue };
    running = engine.worker.run();
  });

  after(async function () {
    engine.worker.shutdown();
    await running;
    await engine.close();
  });

  it('starts an application once: a second start returns the same workflow, also after it finished', async function () {
    const xml = applicationXml(`happy-${run}`);
    {
      const first = await startApplication(ctx, { applicationXml: xml, settings: FAST });
      const second = await startApplication(ctx, { applicationXml: xml, settings: FAST });
      assert.equal(first.existed, false);
      assert.equal(second.existed, true);
      assert.equal(second.workflowId, first.workflowId);
      assert.equal(first.workflowId, applicationWorkflowId(engine.sim.csid, `happy-${run}`));
      const result = await first.handle.result();
      assert.equal(result.outcome, 'open');
      const third = await startApplication(ctx, { applicationXml: xml, settings: FAST });
      assert.equal(third.existed, true);
      assert.equal((await third.handle.describe()).runId, (await first.handle.describe()).runId);
      assert.equal(engine.sim.control.calls().create, 1);

      // found again by account id, and listed by its search attributes
      const byAccount = await findApplication(ctx, result.accountId!);
      assert.equal(byAccount.workflowId, first.workflowId);
      // another firm's context finds it by no reference, its workflow id included
      const otherFirm = { ...ctx, csid: `OTHER${run}` };
      await assert.rejects(findApplication(otherFirm, result.accountId!), UnknownApplicationError);
      await assert.rejects(findApplication(otherFirm, first.workflowId), UnknownApplicationError);
      const listed = await until(
        () => listApplications(ctx, { externalId: `happy-${run}`, lifecycleState: 'open' }),
        (entries) => entries.length === 1,
        'the open application in the list',
      );
      assert.equal(listed[0]?.accountId, result.accountId);
      assert.equal(listed[0]?.status, 'COMPLETED');
      await assert.rejects(abandon(ctx, `happy-${run}`), ApplicationFinishedError);
    }
  });

  it('starts a terminated application again: the new run takes over its account, none is created twice', async function () {
    const xml = applicationXml(`stalled-${run}`);
    const first = await startApplication(ctx, { applicationXml: xml, settings: FAST });
    const waiting = await until(
      () => getState(ctx, `stalled-${run}`),
      (state) => state.lifecycleState === 'awaitingClient',
      'the first run waiting for the portal',
    );
    const firstRun = (await first.handle.describe()).runId;
    await first.handle.terminate('test: a run stopped by ops');
    const creates = engine.sim.control.calls().create;
    const again = await startApplication(ctx, { applicationXml: xml, settings: FAST });
    assert.equal(again.existed, false);
    assert.notEqual((await again.handle.describe()).runId, firstRun);
    const taken = await until(
      () => getState(ctx, `stalled-${run}`),
      (state) => state.lifecycleState === 'awaitingClient',
      'the new run waiting for the portal',
    );
    assert.equal(taken.accountId, waiting.accountId, 'the new run found the account the first one made');
    assert.equal(engine.sim.control.calls().create, creates, 'no create was sent again');
    await again.handle.terminate('test finished');
  });

  it('refuses messages the lifecycle does not take, and takes them in the right state', async function () {
    {
      const { externalId } = await startApplication(ctx, {
        applicationXml: applicationXml(`docs-required-${run}`),
        settings: FAST,
      });
      await until(
        () => getState(ctx, externalId),
        (state) => state.lifecycleState === 'needsDocuments',
        'needsDocuments',
      );
      await assert.rejects(
        provideDocuments(ctx, externalId, [{ formNumber: '8001', data: new TextEncoder().encode('not a pdf') }]),
        (error: unknown) => error instanceof InvalidInputError && /not a PDF/.test(error.message),
      );
      await pollNow(ctx, externalId);
      const state = await provideDocuments(ctx, externalId, [
        { formNumber: '8001', data: pdf('id') },
        { formNumber: '8002', data: pdf('address') },
      ]);
      assert.equal(state.lifecycleState, 'submittingDocuments');
      await abandon(ctx, externalId, 'client withdrew');
      const abandoned = await until(
        () => getState(ctx, externalId),
        (view) => view.lifecycleState === 'abandoned',
        'abandoned',
      );
      assert.equal(abandoned.status, 'A');
      await assert.rejects(abandon(ctx, externalId), NotAllowedInStateError);
    }
  });

  it("stops a call that waits when its signal aborts, with the signal's reason", async function () {
    // No worker polls this queue: a query of the application waits for one.
    const idle = { ...ctx, taskQueue: `nobody-${run}`, settings: FAST };
    const { externalId, handle } = await startApplication(idle, { applicationXml: applicationXml(`idle-${run}`) });
    const began = Date.now();
    await assert.rejects(getState({ ...idle, signal: AbortSignal.timeout(500) }, externalId), { name: 'TimeoutError' });
    const waited = Date.now() - began;
    assert.ok(waited >= 450 && waited < 10_000, `rejected after ${waited} ms`);
    // An update waits for a worker too: it ends at the caller's abort, with the caller's reason.
    const stop = new AbortController();
    setTimeout(() => stop.abort(), 300);
    await assert.rejects(abandon({ ...idle, signal: stop.signal }, externalId, 'test'), { name: 'AbortError' });
    // Aborted before it begins, a start stores nothing and starts nothing.
    const before = (await engine.store.list()).length;
    await assert.rejects(
      startApplication({ ...idle, signal: AbortSignal.abort() }, { applicationXml: applicationXml(`never-${run}`) }),
      { name: 'AbortError' },
    );
    assert.equal((await engine.store.list()).length, before);
    await assert.rejects(getState(idle, `never-${run}`), UnknownApplicationError);
    await handle.terminate('test finished');
  });

  it('refuses bad input before anything is sent', async function () {
    await assert.rejects(
      startApplication(ctx, { applicationXml: '<Applications><Application>' }),
      (error: unknown) => error instanceof InvalidInputError && /malformed XML/.test(error.message),
    );
    await assert.rejects(
      startApplication(ctx, { applicationXml: '/nonexistent/application.xml' }),
      (error: unknown) => error instanceof InvalidInputError && /ENOENT/.test(error.message),
    );
    await assert.rejects(getState(ctx, `nobody-${run}`), UnknownApplicationError);
    assert.throws(() => applicationQuery({ startedAfter: 'yesterday' }), InvalidInputError);
    assert.equal(
      applicationQuery({ lifecycleState: 'needsDocuments', csid: "O'Brien" }),
      "WorkflowType = 'accountApplication' AND EcaLifecycleState = 'needsDocuments' AND EcaCsid = 'O\\'Brien'",
    );
  });
});

/**
 * Ids that cannot collide across firms (domain/workflow-ids.ts), end to end on the dev server: two firms
 * whose CSIDs prefix one another (`A` and `A-X`), each with its simulated brokerage and worker. Under
 * 1.0.0's ids firm `A`'s `X-1` and firm `A-X`'s `1` were one workflow id; they are two applications now.
 * Workflows started under 1.0.0's ids (started here by hand, as 1.0.0's client did) are still found by
 * their firm, and by no other, and a start of the same request answers with them.
 */
import assert from 'node:assert/strict';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ScheduleNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getState, startApplication } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import { EngineError, UnknownApplicationError } from '../../client/errors.js';
import { startMaintenance } from '../../client/maintenance.js';
import { runStatus } from '../../client/runs.js';
import { upsertDailyDocumentsSchedule } from '../../client/schedules.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import {
  ACCOUNT_APPLICATION_WORKFLOW,
  ACCOUNT_MAINTENANCE_WORKFLOW,
  applicationWorkflowId,
  DAILY_DOCUMENTS_TRIGGER_WORKFLOW,
  documentRetentionWorkflowId,
  FIRM_STATUS_SWEEP_WORKFLOW,
  legacyApplicationWorkflowId,
  legacyDailyDocumentsScheduleId,
  legacyDocumentRetentionWorkflowId,
  legacyMaintenanceWorkflowId,
  legacySweepWorkflowId,
  maintenanceWorkflowId,
  sweepWorkflowId,
} from '../../domain/workflow-ids.js';
import { EcaAccountId, EcaCsid, EcaExternalId, EcaLifecycleState } from '../../domain/search-attributes.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import type { accountApplication } from '../../workflows/application/workflow.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';

const FAST: ApplicationInput['settings'] = {
  statusSource: 'poll',
  pollIntervals: { tracking: '1 second', documents: '1 second', portal: '1 second', approval: '1 second' },
  requestPollInterval: '1 second',
};

/** A task queue no worker polls: what is started there stays as it was started. */
const IDLE_QUEUE = 'firm-ids-idle';

describe('ids that cannot collide across firms (dev server, two firms A and A-X)', function () {
  this.timeout(180_000);
  let env: TestWorkflowEnvironment;
  const engines: Record<'A' | 'A-X', EngineHarness> = {} as never;
  const running: Promise<void>[] = [];
  /** Workflows a test left running (on the idle queue), ended after the file. */
  const leftRunning: WorkflowHandle[] = [];

  const ctxOf = (csid: 'A' | 'A-X', taskQueue = engines[csid].taskQueue): EngineContext => ({
    client: env.client,
    store: engines[csid].store,
    csid,
    taskQueue,
    settings: FAST,
  });

  before(async function () {
    env = await devServerEnv();
    for (const csid of ['A', 'A-X'] as const) {
      engines[csid] = await startEngine(env, { simulator: { timeScale: 20_000, firm: { csid } } });
      running.push(engines[csid].worker.run());
    }
  });

  after(async function () {
    for (const handle of leftRunning) await handle.terminate('test finished').catch(() => undefined);
    for (const engine of Object.values(engines)) engine.worker.shutdown();
    await Promise.all(running);
    for (const engine of Object.values(engines)) await engine.close();
  });

  /** Starts an application as 1.0.0's client did: its id `application-<CSID>-<externalId>`, its XML stored under it. */
  async function startAsVersion1(csid: 'A' | 'A-X', externalId: string, taskQueue = engines[csid].taskQueue) {
    const workflowId = legacyApplicationWorkflowId(csid, externalId);
    const application = await engines[csid].store.put(new TextEncoder().encode(applicationXml(externalId)), {
      owner: workflowId,
    });
    return env.client.workflow.start<typeof accountApplication>(ACCOUNT_APPLICATION_WORKFLOW, {
      taskQueue,
      workflowId,
      workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
      args: [{ csid, externalId, application, documents: [], settings: FAST }],
      typedSearchAttributes: [
        { key: EcaCsid, value: csid },
        { key: EcaExternalId, value: externalId },
        { key: EcaLifecycleState, value: 'validating' },
      ],
    });
  }

  async function exists(workflowId: string): Promise<boolean> {
    try {
      await env.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  it("firm A's `X-1` and firm A-X's `1` (one id in 1.0.0) are two applications, each run by its firm", async function () {
    assert.equal(legacyApplicationWorkflowId('A', 'X-1'), legacyApplicationWorkflowId('A-X', '1'));
    const a = await startApplication(ctxOf('A'), { applicationXml: applicationXml('X-1') });
    const ax = await startApplication(ctxOf('A-X'), { applicationXml: applicationXml('1') });
    assert.deepEqual([a.existed, ax.existed], [false, false]);
    assert.equal(a.workflowId, 'application:A:X-1');
    assert.equal(ax.workflowId, 'application:A-X:1');

    const [resultA, resultAX] = await Promise.all([a.handle.result(), ax.handle.result()]);
    assert.equal(resultA.outcome, 'open');
    assert.equal(resultAX.outcome, 'open');
    // Each firm's brokerage made the account of its own application, once.
    assert.equal(engines.A.sim.control.accountByExternalId('X-1')?.accountId, resultA.accountId);
    assert.equal(engines['A-X'].sim.control.accountByExternalId('1')?.accountId, resultAX.accountId);
    assert.equal(engines.A.sim.control.accountByExternalId('1'), undefined);
    assert.equal(engines['A-X'].sim.control.accountByExternalId('X-1'), undefined);
    assert.equal(engines.A.sim.control.calls().create, 1);
    assert.equal(engines['A-X'].sim.control.calls().create, 1);

    assert.equal((await getState(ctxOf('A'), 'X-1')).csid, 'A');
    assert.equal((await getState(ctxOf('A-X'), '1')).csid, 'A-X');
    assert.equal((await getState(ctxOf('A'), a.workflowId)).externalId, 'X-1');
    await assert.rejects(getState(ctxOf('A'), '1'), UnknownApplicationError);
    await assert.rejects(getState(ctxOf('A-X'), 'X-1'), UnknownApplicationError);
    await assert.rejects(getState(ctxOf('A-X'), a.workflowId), UnknownApplicationError);
    // Their retention workflows are two as well, under today's ids.
    assert.ok(await exists(documentRetentionWorkflowId('A', 'X-1')));
    assert.ok(await exists(documentRetentionWorkflowId('A-X', '1')));
  });

  it("an application started under 1.0.0's id is found by its firm only, and a start of it answers existed", async function () {
    // Firm A-X's `L-1` under 1.0.0's id, which is also what firm A's `X-L-1` would have had.
    const legacy = await startAsVersion1('A-X', 'L-1');
    assert.equal(legacy.workflowId, 'application-A-X-L-1');
    assert.equal(legacy.workflowId, legacyApplicationWorkflowId('A', 'X-L-1'));

    assert.equal((await getState(ctxOf('A-X'), 'L-1')).externalId, 'L-1');
    assert.equal((await getState(ctxOf('A-X'), legacy.workflowId)).externalId, 'L-1');
    assert.equal((await getState(ctxOf('A-X'), applicationWorkflowId('A-X', 'L-1'))).externalId, 'L-1');
    await assert.rejects(getState(ctxOf('A'), 'X-L-1'), UnknownApplicationError);
    await assert.rejects(getState(ctxOf('A'), legacy.workflowId), UnknownApplicationError);

    // Running: the start answers with it, and starts nothing under today's id.
    const again = await startApplication(ctxOf('A-X'), { applicationXml: applicationXml('L-1') });
    assert.equal(again.existed, true);
    assert.equal(again.workflowId, legacy.workflowId);
    assert.equal(again.handle.workflowId, legacy.workflowId);
    assert.equal(again.state.externalId, 'L-1');
    assert.equal(await exists(applicationWorkflowId('A-X', 'L-1')), false, 'no second workflow');
    // Another XML under the external id is a conflict, as for today's ids.
    await assert.rejects(
      startApplication(ctxOf('A-X'), {
        applicationXml: applicationXml('L-1', (xml) => xml.replace('<Name first="Jane"', '<Name first="Joan"')),
      }),
      (error: unknown) => error instanceof EngineError && error.code === 'CONFLICT',
    );

    // Completed: still the application of its external id, and still found; one account at the brokerage.
    const result = await legacy.result();
    assert.equal(result.outcome, 'open');
    const afterwards = await startApplication(ctxOf('A-X'), { applicationXml: applicationXml('L-1') });
    assert.deepEqual([afterwards.existed, afterwards.workflowId], [true, legacy.workflowId]);
    assert.equal((await getState(ctxOf('A-X'), 'L-1')).lifecycleState, 'open');
    assert.equal(engines['A-X'].sim.control.accountByExternalId('L-1')?.accountId, result.accountId);
    // It finished on this code: its retention keeps 1.0.0's ids (its documents are stored under its id).
    assert.ok(await exists(legacyDocumentRetentionWorkflowId('A-X', 'L-1')));
    assert.equal(await exists(documentRetentionWorkflowId('A-X', 'L-1')), false);

    // Firm A's `X-L-1` is its own application, whatever holds 1.0.0's id.
    const own = await startApplication(ctxOf('A', IDLE_QUEUE), { applicationXml: applicationXml('X-L-1') });
    leftRunning.push(own.handle);
    assert.deepEqual([own.existed, own.workflowId], [false, applicationWorkflowId('A', 'X-L-1')]);
  });

  it("a workflow under the caller's id whose firm is another's is a conflict, never `existed`", async function () {
    // Cannot happen with today's ids: started by hand, as a forgery would be.
    const forged = await env.client.workflow.start(ACCOUNT_APPLICATION_WORKFLOW, {
      taskQueue: IDLE_QUEUE,
      workflowId: applicationWorkflowId('A', 'forged-1'),
      args: [{ csid: 'A-X', externalId: 'forged-1', application: { sha1: '0'.repeat(40), length: 1 } }],
      typedSearchAttributes: [{ key: EcaCsid, value: 'A-X' }],
    });
    leftRunning.push(forged);
    await assert.rejects(
      startApplication(ctxOf('A'), { applicationXml: applicationXml('forged-1') }),
      (error: unknown) => error instanceof EngineError && error.code === 'CONFLICT',
    );

    const request = { accountId: 'U1234567', firmType: 'advisor', functionName: 'SecurityQuestions', requestKey: 'k1' };
    const forgedRequest = await env.client.workflow.start(ACCOUNT_MAINTENANCE_WORKFLOW, {
      taskQueue: IDLE_QUEUE,
      workflowId: maintenanceWorkflowId('A', request.accountId, request.requestKey),
      args: [{ ...request, csid: 'A-X' }],
      typedSearchAttributes: [
        { key: EcaCsid, value: 'A-X' },
        { key: EcaAccountId, value: request.accountId },
      ],
    });
    leftRunning.push(forgedRequest);
    await assert.rejects(
      startMaintenance(ctxOf('A', IDLE_QUEUE), request),
      (error: unknown) => error instanceof EngineError && error.code === 'CONFLICT',
    );
  });

  it("a maintenance request under 1.0.0's id is the request of its firm, account and key only", async function () {
    // 1.0.0's `maintenance-A-X-U7654321-k-2`: firm A-X's account U7654321 with key `k-2`, or firm A's account X
    // with key `U7654321-k-2`.
    const request = {
      accountId: 'U7654321',
      firmType: 'advisor',
      functionName: 'SecurityQuestions',
      requestKey: 'k-2',
    };
    const legacy = await env.client.workflow.start(ACCOUNT_MAINTENANCE_WORKFLOW, {
      taskQueue: IDLE_QUEUE,
      workflowId: legacyMaintenanceWorkflowId('A-X', request.accountId, request.requestKey),
      args: [{ ...request, csid: 'A-X' }],
      typedSearchAttributes: [
        { key: EcaCsid, value: 'A-X' },
        { key: EcaAccountId, value: request.accountId },
      ],
    });
    leftRunning.push(legacy);
    assert.equal(legacy.workflowId, legacyMaintenanceWorkflowId('A', 'X', 'U7654321-k-2'));

    const again = await startMaintenance(ctxOf('A-X', IDLE_QUEUE), request);
    assert.deepEqual([again.existed, again.workflowId], [true, legacy.workflowId]);
    assert.equal(await exists(maintenanceWorkflowId('A-X', request.accountId, request.requestKey)), false);

    const other = await startMaintenance(ctxOf('A', IDLE_QUEUE), {
      ...request,
      accountId: 'X',
      requestKey: 'U7654321-k-2',
    });
    leftRunning.push(other.handle);
    assert.deepEqual([other.existed, other.workflowId], [false, maintenanceWorkflowId('A', 'X', 'U7654321-k-2')]);

    // Read by today's id of the request, or by its own; never by the other firm.
    await legacy.terminate('test: read it closed');
    const status = await runStatus(
      ctxOf('A-X'),
      'maintenance',
      maintenanceWorkflowId('A-X', request.accountId, request.requestKey),
    );
    assert.deepEqual([status.workflowId, status.status], [legacy.workflowId, 'TERMINATED']);
    assert.equal((await runStatus(ctxOf('A-X'), 'maintenance', legacy.workflowId)).workflowId, legacy.workflowId);
    await assert.rejects(
      runStatus(ctxOf('A'), 'maintenance', legacy.workflowId),
      (error: unknown) => error instanceof EngineError && error.code === 'UNKNOWN_APPLICATION',
    );
  });

  it("the firm's status sweep under 1.0.0's id is stopped once today's runs: one sweep a firm", async function () {
    const legacy = await env.client.workflow.start(FIRM_STATUS_SWEEP_WORKFLOW, {
      taskQueue: IDLE_QUEUE,
      workflowId: legacySweepWorkflowId('A-X'),
      args: [{ csid: 'A-X', interval: '1 minute' }],
      typedSearchAttributes: [{ key: EcaCsid, value: 'A-X' }],
    });
    leftRunning.push(legacy);
    const { workflowId } = await ensureStatusSweep(ctxOf('A-X', IDLE_QUEUE), { force: true });
    const current = env.client.workflow.getHandle(workflowId);
    leftRunning.push(current);
    assert.equal(workflowId, sweepWorkflowId('A-X'));
    assert.equal((await current.describe()).status.name, 'RUNNING');
    const stopped = await legacy.describe();
    assert.equal(stopped.status.name, 'TERMINATED');
    const terminated = (await legacy.fetchHistory()).events!.find((e) => e.workflowExecutionTerminatedEventAttributes);
    assert.match(terminated?.workflowExecutionTerminatedEventAttributes?.reason ?? '', /status-sweep:A-X/);
  });

  it("setting the firm's daily documents schedule deletes the firm's schedule of 1.0.0, and no other firm's", async function () {
    const formsDir = '/forms';
    const legacyAction = (csid: string) => ({
      type: 'startWorkflow' as const,
      workflowType: DAILY_DOCUMENTS_TRIGGER_WORKFLOW,
      workflowId: `documents-trigger-${csid}`,
      taskQueue: IDLE_QUEUE,
      args: [{ csid, formsDir, timeZone: 'UTC' }],
    });
    const spec = { calendars: [{ hour: 7, minute: 30 }] };
    // Firm A-X's schedule of 1.0.0, and a schedule under firm A's 1.0.0 id that starts another firm's day.
    await env.client.schedule.create({
      scheduleId: legacyDailyDocumentsScheduleId('A-X'),
      spec,
      action: legacyAction('A-X'),
      state: { paused: true },
    });
    const foreign = await env.client.schedule.create({
      scheduleId: legacyDailyDocumentsScheduleId('A'),
      spec,
      action: legacyAction('B'),
      state: { paused: true },
    });
    const options = { time: '07:30', timeZone: 'UTC', formsDir, taskQueue: IDLE_QUEUE, paused: true };
    const ax = await upsertDailyDocumentsSchedule(env.client, { ...options, csid: 'A-X' });
    assert.deepEqual([ax.scheduleId, ax.replaced], ['daily-documents:A-X', 'daily-documents-A-X']);
    await assert.rejects(
      env.client.schedule.getHandle(legacyDailyDocumentsScheduleId('A-X')).describe(),
      ScheduleNotFoundError,
    );
    const a = await upsertDailyDocumentsSchedule(env.client, { ...options, csid: 'A' });
    assert.deepEqual([a.scheduleId, a.replaced], ['daily-documents:A', undefined]);
    assert.equal((await foreign.describe()).action.workflowType, DAILY_DOCUMENTS_TRIGGER_WORKFLOW, 'still there');
    for (const id of [ax.scheduleId, a.scheduleId, foreign.scheduleId])
      await env.client.schedule.getHandle(id).delete();
  });
});

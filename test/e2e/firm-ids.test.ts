/**
 * Ids that cannot collide across firms (domain/workflow-ids.ts), end to end on the dev server: two firms
 * whose CSIDs prefix one another (`A` and `A-X`), each with its simulated brokerage and worker: firm
 * `A`'s `X-1` and firm `A-X`'s `1` are two applications, and a workflow under one firm's id that says it
 * is another's is never taken for the firm's.
 */
import assert from 'node:assert/strict';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getState, startApplication } from '../../client/applications.js';
import type { EngineContext } from '../../client/context.js';
import { EngineError, UnknownApplicationError } from '../../client/errors.js';
import { startMaintenance } from '../../client/maintenance.js';
import {
  ACCOUNT_APPLICATION_WORKFLOW,
  ACCOUNT_MAINTENANCE_WORKFLOW,
  applicationWorkflowId,
  documentRetentionWorkflowId,
  maintenanceWorkflowId,
} from '../../domain/workflow-ids.js';
import { EcaAccountId, EcaCsid } from '../../domain/search-attributes.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';

const FAST: ApplicationInput['settings'] = {
  safetyPollInterval: '1 second',
  pollIntervals: { tracking: '1 second' },
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

  async function exists(workflowId: string): Promise<boolean> {
    try {
      await env.client.workflow.getHandle(workflowId).describe();
      return true;
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    }
  }

  it("firm A's `X-1` and firm A-X's `1` are two applications, each run by its firm", async function () {
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
});

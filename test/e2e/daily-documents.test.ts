/**
 * End to end on the dev server (schedules need it: the time-skipping test server has no schedule
 * service): the firm's schedule is created and updated by upsertDailyDocumentsSchedule, fired, and the
 * day's submission reaches the simulator; the day's application is created with only its tax form;
 * an update of an open account is followed to PROCESSED.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { upsertDailyDocumentsSchedule } from '../../client/schedules.js';
import { accountApplication, accountMaintenance } from '../../workflows/index.js';
import type { dailyDocuments } from '../../workflows/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { dayIn } from '../../domain/days.js';
import { dailyDocumentsScheduleId, documentsWorkflowId } from '../../domain/workflow-ids.js';
import { maintenanceStateQuery } from '../../workflows/maintenance/messages.js';
import { maintenanceWorkflowId } from '../../domain/workflow-ids.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { AGREEMENT, DISCLOSURE, TAX_FORM, writeFormsDir } from '../support/forms.js';
import { devServerEnv } from '../support/servers.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('end to end: daily documents schedule and account maintenance (dev server, worker, simulator)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let formsDir: string;

  // One engine per test: a worker runs once (runUntil shuts it down).
  beforeEach(async function () {
    env = await devServerEnv();
    engine = await startEngine(env);
    formsDir = await writeFormsDir();
  });

  afterEach(async function () {
    await engine?.close();
    if (formsDir) await rm(formsDir, { recursive: true, force: true });
  });

  it('the schedule submits the day’s documents once; the day’s application carries only the tax form', async function () {
    const { csid } = engine.sim;
    const options = { csid, time: '03:15', timeZone: 'UTC', formsDir, taskQueue: engine.taskQueue };
    const created = await upsertDailyDocumentsSchedule(env.client, options);
    assert.equal(created.scheduleId, dailyDocumentsScheduleId(csid));
    assert.equal(created.created, true);
    assert.equal(created.nextRuns[0]?.toISOString().slice(11, 16), '03:15');

    // Run again with another time: the same schedule, updated.
    const updated = await upsertDailyDocumentsSchedule(env.client, { ...options, time: '06:30' });
    assert.equal(updated.created, false);
    assert.equal(updated.nextRuns[0]?.toISOString().slice(11, 16), '06:30');
    const schedule = env.client.schedule.getHandle(created.scheduleId);
    try {
      assert.equal((await schedule.describe()).spec.calendars?.[0]?.hour?.[0]?.start, 6);

      await engine.worker.runUntil(async () => {
        const today = dayIn(Date.now(), 'UTC');
        await schedule.trigger();
        const day = env.client.workflow.getHandle<typeof dailyDocuments>(documentsWorkflowId(csid, today));
        let result;
        for (let i = 0; !result; i++) {
          try {
            result = await day.result();
          } catch (error) {
            if (!(error instanceof WorkflowNotFoundError) || i > 100) throw error;
            await sleep(100);
          }
        }
        assert.equal(result.accepted, true);
        assert.deepEqual(result.forms.map((form) => [form.formNumber, form.status]).sort(), [
          [DISCLOSURE, 'Accepted'],
          [AGREEMENT, 'Accepted'],
        ]);
        assert.equal(engine.sim.control.calls().submitDocuments, 1);

        // Ops find the day through visibility.
        const query = `EcaCsid = '${csid}' AND EcaDocumentsAlert = 'none' AND WorkflowType = 'dailyDocuments'`;
        let ids: string[] = [];
        for (let i = 0; ids.length === 0 && i < 100; i++) {
          ids = [];
          for await (const execution of env.client.workflow.list({ query })) ids.push(execution.workflowId);
          if (ids.length === 0) await sleep(200);
        }
        assert.deepEqual(ids, [documentsWorkflowId(csid, today)]);

        const externalId = `happy-${randomUUID().slice(0, 8)}`;
        const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
        const handle = await env.client.workflow.start(accountApplication, {
          taskQueue: engine.taskQueue,
          workflowId: applicationWorkflowId(csid, externalId),
          args: [{ csid, externalId, application }],
        });
        let accountId: string | undefined;
        for (let i = 0; !accountId && i < 200; i++) {
          accountId = (await handle.query(stateQuery)).accountId;
          if (!accountId) await sleep(50);
        }
        await handle.terminate('the test needed only the create');
        assert.deepEqual(engine.sim.control.account(accountId!)?.createAttachments, [`${TAX_FORM}.pdf`]);
      });
    } finally {
      await schedule.delete();
    }
  });

  it('an update of an open account is followed to PROCESSED', async function () {
    const { csid } = engine.sim;
    const [accountId] = engine.sim.control.seedAccounts({
      count: 1,
      csid,
      prefix: `happy-${randomUUID().slice(0, 6)}-`,
    });
    engine.sim.control.advanceClock({ days: 5 });
    assert.equal(engine.sim.control.account(accountId!)?.status, 'O');
    const body = await engine.store.put(new TextEncoder().encode('<Currency>CHF</Currency>'));
    const requestKey = randomUUID();
    await engine.worker.runUntil(async () => {
      const handle = await env.client.workflow.start(accountMaintenance, {
        taskQueue: engine.taskQueue,
        workflowId: maintenanceWorkflowId(csid, accountId!, requestKey),
        args: [
          {
            csid,
            accountId: accountId!,
            firmType: 'advisor',
            functionName: 'ChangeBaseCurrency',
            body,
            requestKey,
            firstPollInterval: '200 milliseconds',
          },
        ],
      });
      for (let i = 0; (await handle.query(maintenanceStateQuery)).status !== 'PENDING'; i++) {
        assert.ok(i < 200, 'the request never became pending');
        await sleep(50);
      }
      // The service takes five simulated minutes to process a request.
      engine.sim.control.advanceClock({ minutes: 10 });
      const result = await handle.result();
      assert.equal(result.status, 'PROCESSED');
      assert.ok(result.responseFile, 'confirmed by its response file name');
    });
  });
});

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowExecutionAlreadyStartedError, WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { accountMaintenance } from '../../workflows/index.js';
import { maintenanceWorkflowId } from '../../domain/workflow-ids.js';
import type { MaintenanceInput } from '../../workflows/maintenance/messages.js';
import { EcaRequestStatus, EcaUpdateFunction } from '../../domain/search-attributes.js';
import { pdf, timeSkippingEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';

describe('accountMaintenance workflow (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  const engines = timeSkippingEngine();
  const { setUp } = engines;

  /** An account of the simulator's `happy` scenario: pending at first, open after a few (skipped) days. */
  function seedAccount(harness: EngineHarness): string {
    const [accountId] = harness.sim.control.seedAccounts({
      count: 1,
      csid: harness.sim.csid,
      prefix: `happy-${randomUUID().slice(0, 6)}-`,
    });
    return accountId!;
  }

  async function start(
    harness: EngineHarness,
    input: Omit<MaintenanceInput, 'csid' | 'requestKey'>,
    requestKey: string = randomUUID(),
  ) {
    return engines.env.client.workflow.start(accountMaintenance, {
      taskQueue: harness.taskQueue,
      workflowId: maintenanceWorkflowId(harness.sim.csid, input.accountId, requestKey),
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      args: [{ csid: harness.sim.csid, requestKey, ...input }],
    });
  }

  it('an update of an open account ends PROCESSED, confirmed by its response file; the start is idempotent', async function () {
    const harness = await setUp();
    const accountId = seedAccount(harness);
    await engines.env.sleep('5 days'); // the account opens meanwhile (the simulator follows Temporal's clock)
    const body = await harness.store.put(new TextEncoder().encode('<Currency>EUR</Currency>'));
    await harness.worker.runUntil(async () => {
      const handle = await start(
        harness,
        { accountId, firmType: 'advisor', functionName: 'ChangeBaseCurrency', body },
        'currency-1',
      );
      await assert.rejects(
        start(harness, { accountId, firmType: 'advisor', functionName: 'ChangeBaseCurrency', body }, 'currency-1'),
        WorkflowExecutionAlreadyStartedError,
      );
      const result = await handle.result();
      assert.equal(harness.sim.control.account(accountId)?.status, 'O');
      assert.equal(result.status, 'PROCESSED');
      assert.equal(result.functionName, 'ChangeBaseCurrency');
      // The update response names no request id (the spec does not show its format): the file name is the handle.
      assert.match(result.responseFile ?? '', /^DemoFirm_\d{8}_\d{4}_\d{4}\.xml$/);
      assert.ok(result.polls >= 2, `decided after ${result.polls} polls`);
      assert.ok(result.decidedAt - result.sentAt >= 5 * 60_000, 'decided after the service processed it');
      const attributes = (await handle.describe()).typedSearchAttributes;
      assert.equal(attributes.get(EcaRequestStatus), 'PROCESSED');
      assert.equal(attributes.get(EcaUpdateFunction), 'ChangeBaseCurrency');
      // Started again with the same key after it finished: still the same request, not a second update.
      await assert.rejects(
        start(harness, { accountId, firmType: 'advisor', functionName: 'ChangeBaseCurrency', body }, 'currency-1'),
        WorkflowExecutionAlreadyStartedError,
      );
      assert.equal(harness.sim.control.calls().update, 1);

      // A function with an attachment (the new tax form) from the document store.
      const taxForm = await harness.store.put(pdf('w8ben-signed'));
      const withAttachment = await start(harness, {
        accountId,
        firmType: 'advisor',
        functionName: 'UpdateTaxForm',
        attachments: [{ ...taxForm, fileName: 'w8ben.pdf' }],
      });
      assert.equal((await withAttachment.result()).status, 'PROCESSED');
    });
  });

  it('an update the service refuses ends REJECTED (getAmRequestStatus by account, matched on the file)', async function () {
    const harness = await setUp();
    const accountId = seedAccount(harness); // still pending: ChangeBaseCurrency applies to open accounts only
    const body = await harness.store.put(new TextEncoder().encode('<Currency>EUR</Currency>'));
    await harness.worker.runUntil(async () => {
      const handle = await start(harness, { accountId, firmType: 'advisor', functionName: 'ChangeBaseCurrency', body });
      const result = await handle.result();
      assert.equal(result.status, 'REJECTED');
      assert.match(result.error ?? '', new RegExp(`request ${result.responseFile ?? '-'} REJECTED`));
      assert.equal((await handle.describe()).typedSearchAttributes.get(EcaRequestStatus), 'REJECTED');
    });
  });

  it('an update whose answer was lost and is listed late is found with backoff, never sent again', async function () {
    const harness = await setUp();
    const accountId = seedAccount(harness);
    await engines.env.sleep('5 days');
    harness.sim.control.setListingLag({ getAmRequestStatus: { minMs: 20 * 60_000, maxMs: 20 * 60_000 } });
    harness.sim.control.addFault({ operation: 'update', kind: 'lost-response', count: 1 });
    const body = await harness.store.put(new TextEncoder().encode('<Currency>EUR</Currency>'));
    await harness.worker.runUntil(async () => {
      const handle = await start(harness, { accountId, firmType: 'advisor', functionName: 'ChangeBaseCurrency', body });
      const result = await handle.result();
      assert.equal(result.status, 'PROCESSED');
      assert.match(result.responseFile ?? '', /^DemoFirm_\d{8}_\d{4}_\d{4}\.xml$/);
      assert.equal(harness.sim.control.calls().update, 1, 'the update was sent again');
    });
  });

  it('a function the firm type may not use is refused before anything is sent', async function () {
    const harness = await setUp();
    const accountId = seedAccount(harness);
    await harness.worker.runUntil(async () => {
      // UpdateBCAN is for non-disclosed firms only; the simulator's demo firm is an advisor.
      const handle = await start(harness, { accountId, firmType: 'advisor', functionName: 'UpdateBCAN' });
      await assert.rejects(handle.result(), (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError);
        assert.ok(error.cause instanceof ApplicationFailure);
        assert.equal(error.cause.type, 'FunctionNotAvailable');
        assert.equal(error.cause.nonRetryable, true);
        assert.match(error.cause.message, /UpdateBCAN .* not available to advisor firms/);
        return true;
      });
      const unknown = await start(harness, { accountId, firmType: 'advisor', functionName: 'AddTradePermissions' });
      await assert.rejects(unknown.result(), (error: unknown) => {
        assert.ok(error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure);
        assert.equal(error.cause.type, 'UnknownUpdateFunction');
        return true;
      });
      assert.equal(harness.sim.control.calls().update ?? 0, 0, 'nothing was sent');
    });
  });
});

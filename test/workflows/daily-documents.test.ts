import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { accountApplication, dailyDocumentsTrigger } from '../../workflows/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { addDays, dayIn } from '../../domain/days.js';
import { documentsWorkflowId } from '../../domain/workflow-ids.js';
import type { DailyDocumentsResult } from '../../workflows/documents/messages.js';
import { EcaCsid, EcaDocumentsAlert, EcaReplaceFormsBy } from '../../domain/search-attributes.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { AGREEMENT, DISCLOSURE, rewriteForm, TAX_FORM, writeFormsDir } from '../support/forms.js';
import { timeSkippingEnv } from '../support/servers.js';
import { recordFixture } from '../support/replay-fixtures.js';
import { until } from '../support/until.js';

describe('dailyDocuments workflow (time-skipping server, simulator over HTTP)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness | undefined;
  let formsDir: string | undefined;

  let client: Client;

  // Each test asks: a test that left the shared server's clock held has had the server replaced.
  beforeEach(async function () {
    env = await timeSkippingEnv();
    // A plain client: time moves only by env.sleep, so "today" stays today between two steps
    // (the environment's client lets the server skip ahead while it waits for a result).
    client = new Client({ connection: env.connection });
  });

  afterEach(async function () {
    await engine?.close();
    if (formsDir) await rm(formsDir, { recursive: true, force: true });
    engine = undefined;
    formsDir = undefined;
  });

  async function setUp(options: { fetch?: typeof fetch } = {}): Promise<EngineHarness> {
    engine = await startEngine(env, { followTemporalClock: true, ...options });
    formsDir = await writeFormsDir();
    return engine;
  }

  /**
   * What the firm's schedule starts: the trigger, which runs the day's workflow as a child. With a
   * `fixture` name, its history and the day's are the replay fixtures `daily-documents-<fixture>` (recordFixture).
   */
  async function runDay(harness: EngineHarness, fixture?: string) {
    const workflowId = `trigger-${randomUUID()}`;
    const result = await client.workflow.execute(dailyDocumentsTrigger, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ csid: harness.sim.csid, formsDir: formsDir!, timeZone: 'UTC' }],
    });
    if (fixture) {
      await recordFixture(`daily-documents-trigger-${fixture}`, () =>
        client.workflow.getHandle(workflowId).fetchHistory(),
      );
      if (result.ran) {
        await recordFixture(`daily-documents-${fixture}`, () =>
          client.workflow.getHandle(result.workflowId).fetchHistory(),
        );
      }
    }
    return result;
  }

  /** Starts an application and returns the file names its create archive carried (as the simulator received them). */
  async function createAttachments(harness: EngineHarness, language = 'en'): Promise<string[]> {
    const externalId = `happy-${randomUUID().slice(0, 8)}`;
    const xml = applicationXml(externalId, (text) =>
      text.replace('input_language="en"', `input_language="${language}"`),
    );
    const application = await harness.store.put(new TextEncoder().encode(xml));
    const handle = await client.workflow.start(accountApplication, {
      taskQueue: harness.taskQueue,
      workflowId: applicationWorkflowId(harness.sim.csid, externalId),
      args: [{ csid: harness.sim.csid, externalId, application }],
    });
    // Left running (the harness ends it after the test): terminating a workflow with a task in flight
    // would hold the test server's clock for good, and the test sleeps after this.
    const accountId = await until('the application created', async () => (await handle.query(stateQuery)).accountId);
    return [...(harness.sim.control.account(accountId)?.createAttachments ?? [])].sort();
  }

  function statuses(result: DailyDocumentsResult | undefined): Record<string, string> {
    return Object.fromEntries((result?.forms ?? []).map((form) => [form.formNumber, form.status]));
  }

  it('accepted: submits the agreements once (never the tax form); the day’s create carries only the tax form', async function () {
    const harness = await setUp();
    await harness.worker.runUntil(async () => {
      const today = dayIn(await env.currentTimeMs(), 'UTC');
      const first = await runDay(harness, 'ran');
      assert.equal(first.ran, true);
      assert.equal(first.workflowId, documentsWorkflowId(harness.sim.csid, today));
      const result = first.result!;
      assert.equal(result.day, today);
      assert.equal(result.accepted, true);
      assert.equal(result.alert, 'none');
      assert.deepEqual(statuses(result), { [AGREEMENT]: 'Accepted', [DISCLOSURE]: 'Accepted' });
      assert.match(result.reportFile ?? '', /\.xml\.report$/);
      assert.deepEqual(result.replacements, []);

      const day = client.workflow.getHandle(first.workflowId);
      const attributes = (await day.describe()).typedSearchAttributes;
      assert.equal(attributes.get(EcaDocumentsAlert), 'none');
      assert.equal(attributes.get(EcaCsid), harness.sim.csid);

      // A second firing on the same day finds the day done: the service is called once.
      const second = await runDay(harness, 'day-done');
      assert.equal(second.ran, false);
      assert.equal(harness.sim.control.calls().submitDocuments, 1);

      assert.deepEqual(await createAttachments(harness), [`${TAX_FORM}.pdf`]);
      // zh-Hans: the Chinese agreement was not part of the (default-language) submission.
      assert.deepEqual(await createAttachments(harness, 'zh-Hans'), [`${AGREEMENT}.zh-Hans.pdf`, `${TAX_FORM}.pdf`]);
    });
  });

  it('checksum mismatch: an alert with the grace period, carried over days until the form is replaced', async function () {
    const harness = await setUp();
    await harness.worker.runUntil(async () => {
      assert.equal((await runDay(harness)).result?.accepted, true);

      // The agreement changes: the brokerage's archived original no longer matches it.
      await env.sleep('1 day');
      await rewriteForm(formsDir!, AGREEMENT, 'b');
      const second = (await runDay(harness)).result!;
      const day2 = second.day;
      assert.equal(second.accepted, false);
      assert.equal(second.alert, 'checksum-mismatch');
      assert.equal(statuses(second)[DISCLOSURE], 'Accepted');
      assert.match(statuses(second)[AGREEMENT] ?? '', /different SHA-1 checksum/);
      assert.ok(second.forms.find((form) => form.formNumber === AGREEMENT)?.changedFrom, 'the change is noted');
      assert.equal(second.replacements.length, 1);
      const replacement = second.replacements[0]!;
      assert.equal(replacement.formNumber, AGREEMENT);
      assert.equal(replacement.since, day2);
      assert.equal(replacement.replaceBy, addDays(day2, 7));
      assert.match(replacement.stored ?? '', /^[0-9a-f]{40}$/);
      assert.notEqual(replacement.stored, replacement.received);

      const handle = client.workflow.getHandle(documentsWorkflowId(harness.sim.csid, day2));
      const description = await handle.describe();
      assert.equal(description.typedSearchAttributes.get(EcaDocumentsAlert), 'checksum-mismatch');
      assert.equal(
        description.typedSearchAttributes.get(EcaReplaceFormsBy)?.toISOString(),
        `${addDays(day2, 7)}T00:00:00.000Z`,
      );
      const metadata = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
      assert.match(metadata.currentDetails ?? '', new RegExp(`Replace by ${addDays(day2, 7)}.*form ${AGREEMENT}`));

      // The day's applications carry the agreement the brokerage did not accept, not the accepted disclosure.
      assert.deepEqual(await createAttachments(harness), [`${AGREEMENT}.pdf`, `${TAX_FORM}.pdf`]);

      // Still not replaced the next day: the grace period keeps running from the first day.
      await env.sleep('1 day');
      const third = (await runDay(harness)).result!;
      assert.equal(third.alert, 'checksum-mismatch');
      assert.equal(third.replacements[0]?.since, day2);
      assert.equal(third.replacements[0]?.replaceBy, addDays(day2, 7));
    });
  });

  it('missed day: without an accepted submission today, create carries every PDF the application needs', async function () {
    const harness = await setUp();
    await harness.worker.runUntil(async () => {
      assert.equal((await runDay(harness)).result?.accepted, true);
      await env.sleep('1 day'); // no run today
      assert.deepEqual(
        await createAttachments(harness),
        [`${DISCLOSURE}.pdf`, `${AGREEMENT}.pdf`, `${TAX_FORM}.pdf`].sort(),
      );
      assert.equal(harness.sim.control.calls().submitDocuments, 1);
    });
  });

  it('a submission whose answer was lost is not sent again: the day is unconfirmed and create carries every PDF', async function () {
    let lost = 0;
    const harness = await setUp({
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        const url = input instanceof Request ? input.url : String(input);
        if (url.endsWith('/ws/eca/submitDocuments') && lost++ === 0) {
          await response.arrayBuffer();
          throw new TypeError('fetch failed: connection reset after the submission was processed');
        }
        return response;
      },
    });
    await harness.worker.runUntil(async () => {
      const day = await runDay(harness);
      // Spec: no operation looks a submission up, and rule 1 binds the caller to once a day.
      assert.equal(harness.sim.control.calls().submitDocuments, 1, 'the submission was sent again');
      assert.equal(day.result?.alert, 'unconfirmed');
      assert.equal(day.result?.accepted, false);
      assert.deepEqual(
        await createAttachments(harness),
        [`${DISCLOSURE}.pdf`, `${AGREEMENT}.pdf`, `${TAX_FORM}.pdf`].sort(),
      );
    });
  });

  it('an invalid forms manifest fails the day with a typed, non-retryable error', async function () {
    const harness = await setUp();
    await rm(`${formsDir!}/${DISCLOSURE}.pdf`);
    await harness.worker.runUntil(async () => {
      await assert.rejects(runDay(harness), (error: unknown) => {
        let cause: unknown = error;
        while (cause instanceof Error && cause.cause) cause = cause.cause;
        assert.ok(cause instanceof ApplicationFailure, String(cause));
        assert.equal(cause.type, 'FormsManifestInvalid');
        assert.match(cause.message, /3024\.pdf, which is not in the forms directory/);
        return true;
      });
      assert.equal(harness.sim.control.calls().submitDocuments ?? 0, 0);
    });
  });
});

/**
 * Staff in the Temporal UI, in a real browser (playwright-core driving the machine's Chromium or one from
 * the npm registry, scripts/browser.ts; never a browser vendor's download): the dev server's UI wired to the codec server, an application found with a
 * visibility query, its current details read (decoded), the `abandon` update sent from the UI's update
 * form and the application seen moving on, and a signal of an unknown name sent from the UI's signal
 * form recorded visibly. A screenshot of each step is written and its path printed
 * (`ECA_SCREENSHOT_DIR`, default `test-results/ui/`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { codecDataConverter, generateCodecKeyring, startCodecServer, uiCodecEndpointArgs } from '../../codec/index.js';
import type { RunningCodecServer } from '../../codec/index.js';
import { accountApplication } from '../../workflows/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import { devServerExecutable } from '../../scripts/temporal-servers.js';
import { chromiumExecutable } from '../../scripts/browser.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { startDevServerEnv } from '../support/servers.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

describe('staff in the Temporal UI (real browser, codec server)', function () {
  this.timeout(180_000);
  const keys = generateCodecKeyring('ui');
  const token = randomBytes(24).toString('hex');
  const shots = resolve(process.env.ECA_SCREENSHOT_DIR ?? join(ROOT, 'test-results', 'ui'));
  let codec: RunningCodecServer;
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let running: Promise<void>;
  let browser: Browser;
  let page: Page;
  let ui: string;
  let step = 0;

  async function shot(name: string): Promise<void> {
    const path = join(shots, `${String(++step).padStart(2, '0')}-${name}.png`);
    await page.screenshot({ path, fullPage: true });
    console.log(`      screenshot: ${path}`);
  }

  before(async function () {
    // The first run on a machine without Chromium fetches one from the npm registry (scripts/browser.ts).
    this.timeout(600_000);
    const executablePath = await chromiumExecutable();
    await mkdir(shots, { recursive: true });
    codec = await startCodecServer({ keys, token });
    env = await startDevServerEnv({ ui: true, extraArgs: uiCodecEndpointArgs(codec) });
    ui = `http://127.0.0.1:${Number(env.address.split(':')[1]) + 1000}`;
    codec.allowOrigin(ui);
    engine = await startEngine(env, { codec: keys, simulator: { timeScale: 20_000 } });
    running = engine.worker.run();
    browser = await chromium.launch({ executablePath, args: ['--no-sandbox'] });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await shot('failed').catch(() => undefined);
  });

  after(async function () {
    await browser?.close();
    if (engine?.worker.getState() === 'RUNNING') engine.worker.shutdown();
    await running;
    await engine?.close();
    await env?.teardown();
    await codec?.close();
  });

  async function waitFor(
    handle: WorkflowHandle<typeof accountApplication>,
    done: (view: ApplicationStateView) => boolean,
    what: string,
  ): Promise<ApplicationStateView> {
    for (let i = 0; i < 150; i++) {
      const view = await handle.query(stateQuery);
      if (done(view)) return view;
      await page.waitForTimeout(200);
    }
    assert.fail(`the application never showed ${what}`);
  }

  /** The current details: the UI renders their markdown in a sandboxed frame. */
  function details() {
    return page.frameLocator('iframe').first();
  }

  /** Opens a message form ("Send a Signal" / "Send an Update"), picks the name, types the JSON input, submits. */
  async function send(menuItem: string, name: string, json: string): Promise<void> {
    await page.getByRole('button', { name: 'More Actions' }).first().click();
    await page.getByRole('menuitem', { name: menuItem }).click();
    const dialog = page.getByRole('dialog').filter({ hasText: menuItem });
    // The name list holds what the workflow declares (its metadata), and "Custom" for any other name.
    await dialog.locator('button[aria-haspopup="true"]').first().click();
    const declared = dialog.getByRole('option', { name, exact: true });
    if ((await declared.count()) > 0) {
      await declared.first().click();
    } else {
      await dialog.getByRole('option', { name: /^Custom/ }).click();
      await dialog.locator(`#${menuItem.includes('Signal') ? 'signal' : 'update'}-name`).fill(name);
    }
    const editor = dialog.locator('[contenteditable="true"]').first();
    await editor.click();
    await page.keyboard.press('ControlOrMeta+A');
    // Inserted, not typed: the UI takes some keys as shortcuts (R reloads the details).
    await page.keyboard.insertText(json);
    await shot(`${name}-form`);
    await dialog.getByRole('button', { name: 'Submit' }).click();
  }

  /** A `stalled` application (it waits for the client in the portal), once it is awaitingClient. */
  async function stalledApplication(): Promise<{
    handle: WorkflowHandle<typeof accountApplication>;
    externalId: string;
    workflowId: string;
  }> {
    const client = new Client({ connection: env.connection, dataConverter: codecDataConverter(keys) });
    const externalId = `stalled-${randomUUID().slice(0, 8)}`;
    const workflowId = applicationWorkflowId(engine.sim.csid, externalId);
    const application = await engine.store.put(new TextEncoder().encode(applicationXml(externalId)));
    const settings = {
      pollIntervals: { tracking: '1 second' },
      requestPollInterval: '1 second',
    };
    await ensureStatusSweep({ client, csid: engine.sim.csid, taskQueue: engine.taskQueue, settings });
    const handle = await client.workflow.start(accountApplication, {
      taskQueue: engine.taskQueue,
      workflowId,
      args: [
        {
          csid: engine.sim.csid,
          externalId,
          application,
          settings,
        },
      ],
    });
    await waitFor(handle, (view) => view.lifecycleState === 'awaitingClient', 'awaitingClient');
    return { handle, externalId, workflowId };
  }

  it('finds an application, reads its decoded details, abandons it with the update form, and shows an unknown signal', async function () {
    const { handle, externalId, workflowId } = await stalledApplication();

    // 1. Found with a visibility query on the engine's search attributes.
    const query = `WorkflowType="accountApplication" AND EcaExternalId="${externalId}"`;
    await page.goto(`${ui}/namespaces/default/workflows?query=${encodeURIComponent(query)}`);
    const link = page.getByRole('link', { name: workflowId });
    await link.first().waitFor({ timeout: 30_000 });
    await shot('found-by-query');

    // 2. Its input decoded through the codec server, its current details readable.
    await link.first().click();
    await page.getByText(`"externalId": "${externalId}"`).first().waitFor({ timeout: 30_000 });
    await shot('decoded-input');
    await page.getByText('User Metadata', { exact: true }).click();
    await details().getByText('What staff can do now').waitFor({ timeout: 30_000 });
    await details()
      .getByText(/State:\s*awaitingClient/)
      .first()
      .waitFor();
    await details().getByText(`eca abandon ${externalId}`).first().waitFor();
    await shot('current-details');

    // 3. A signal the workflow does not know, from the UI's signal form: recorded, not dropped.
    await send('Send a Signal', 'abandonn', '{"reason": "typo"}');
    await waitFor(
      handle,
      (view) => (view.staffNotices ?? []).some((notice) => notice.name === 'abandonn' && notice.outcome === 'unknown'),
      'the unknown signal in its notices',
    );
    await page.reload();
    await details()
      .getByText(/abandonn\s+unknown: no such signal/)
      .first()
      .waitFor({ timeout: 30_000 });
    await shot('unknown-signal-shown');

    // 4. The abandon update from the UI's update form: the application moves to abandoning, then abandoned.
    await send('Send an Update', 'abandon', '{"reason": "client asked to stop, from the UI"}');
    const abandoned = await waitFor(
      handle,
      (view) => ['abandoning', 'abandoned'].includes(view.lifecycleState),
      'abandoning after the update',
    );
    assert.ok(abandoned.transitions.some((transition) => transition.state === 'abandoning'));
    await waitFor(handle, (view) => view.lifecycleState === 'abandoned', 'abandoned');
    assert.equal(engine.sim.control.account(abandoned.accountId!)?.status, 'A');
    await page.reload();
    await details()
      .getByText(/State:\s*abandoned/)
      .first()
      .waitFor({ timeout: 30_000 });
    await details().getByText(`eca reset ${externalId}`).first().waitFor();
    await details().getByText('Abandoned by staff: client asked to stop, from the UI').first().waitFor();
    await shot('abandoned');
  });

  it('the temporal CLI: abandon sent as a signal abandons; an unknown signal name shows in the current details', async function () {
    const cli = await devServerExecutable();
    if (cli.type !== 'existing-path') assert.fail('needs the temporal binary');
    const { handle, workflowId } = await stalledApplication();
    const signal = (name: string, input: string) =>
      run(cli.path, [
        'workflow',
        'signal',
        '--address',
        env.address,
        '--workflow-id',
        workflowId,
        '--name',
        name,
        '--input',
        input,
        '--codec-endpoint',
        codec.url,
        '--codec-auth',
        `Bearer ${token}`,
      ]);
    await signal('abandonn', '{"reason": "typo"}');
    await signal('abandon', '{"reason": "from the temporal CLI"}');
    const abandoned = await waitFor(handle, (view) => view.lifecycleState === 'abandoned', 'abandoned');
    assert.equal(abandoned.abandonReason, 'from the temporal CLI');
    assert.equal(engine.sim.control.account(abandoned.accountId!)?.status, 'A');
    const { currentDetails } = await handle.query<{ currentDetails?: string }>('__temporal_workflow_metadata');
    assert.match(currentDetails ?? '', /`abandonn` unknown: no such signal/);
    assert.match(currentDetails ?? '', /`abandon` accepted/);
    // Sent through the codec server, the signal's input is ciphertext in history.
    const events = (await handle.fetchHistory()).events ?? [];
    const signals = events.flatMap((event) => event.workflowExecutionSignaledEventAttributes ?? []);
    // The staff's two, beside the status sweep's wake-ups (accountObserved), all encrypted.
    assert.deepEqual(
      signals.map((signaled) => signaled.signalName).filter((name) => name !== 'accountObserved'),
      ['abandonn', 'abandon'],
    );
    for (const signaled of signals) {
      const encoding = signaled.input?.payloads?.[0]?.metadata?.encoding;
      assert.equal(Buffer.from(encoding ?? []).toString(), 'binary/encrypted', `${signaled.signalName} input`);
    }
  });
});

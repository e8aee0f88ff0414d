/** The real `eca` executable against the dev server, a worker and the simulator. */
/* eslint-disable no-control-regex -- terminal control codes are what these tests look for */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { applicationWorkflowId, documentsWorkflowId, maintenanceWorkflowId } from '../../../domain/workflow-ids.js';
import { stateQuery } from '../../../workflows/application/messages.js';
import type { ApplicationStateView } from '../../../workflows/application/messages.js';
import { codecDataConverter, formatCodecKeys, generateCodecKeyring } from '../../../codec/index.js';
import { applicationXml, pdf, startEngine } from '../../support/engine.js';
import type { EngineHarness } from '../../support/engine.js';
import { writeFormsDir } from '../../support/forms.js';
import { devServerEnv } from '../../support/servers.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('eca CLI (real executable)', function () {
  // A guard against a hang, not a timing: a test here runs up to a dozen CLI processes, each seconds of CPU on a
  // loaded machine.
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let running: Promise<void>;
  let client: Client;
  let dir: string;
  const run = randomUUID().slice(0, 6);
  const codec = generateCodecKeyring();

  function eca(args: string[], extraEnv: Record<string, string> = {}): Promise<Run> {
    const childEnv: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: env.address,
      ECA_CSID: engine.sim.csid,
      ECA_TASK_QUEUE: engine.taskQueue,
      ECA_DOCUMENT_STORE: engine.store.root,
      ECA_BASE_URL: engine.sim.url,
      ECA_PREFERENCE_URL: engine.sim.preferenceUrl,
      ECA_FIRM_PRIVATE_KEY: engine.sim.keys.firmPrivateKey,
      ECA_BROKERAGE_PUBLIC_KEY: engine.sim.keys.brokeragePublicKey,
      ECA_SSO_ALLOW_INSECURE_LOOPBACK: 'true',
      ECA_POLL_INTERVAL: '1 second',
      ECA_CODEC_KEYS: formatCodecKeys(codec),
      ...extraEnv,
    };
    return new Promise((resolve) => {
      execFile(process.execPath, [ECA, ...args], { env: childEnv }, (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      });
    });
  }

  async function statusOf(externalId: string): Promise<ApplicationStateView> {
    const result = await eca(['status', externalId, '--json']);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as ApplicationStateView;
  }

  /**
   * The application's status, read through the CLI once the workflow's own state says `done`: the waiting
   * asks the workflow from the test process (every 100 ms, for at most 30 s), so that a test spawns the CLI
   * for what it checks, not for every poll.
   */
  async function statusWhen(
    externalId: string,
    done: (state: ApplicationStateView) => boolean,
  ): Promise<ApplicationStateView> {
    const handle = client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, externalId));
    const deadline = Date.now() + 30_000;
    for (;;) {
      const state = await handle.query(stateQuery).catch(() => undefined);
      if ((state && done(state)) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return statusOf(externalId);
  }

  /** A failure is one line on stderr, with no stack trace. */
  function assertOneLineError(result: Run, pattern: RegExp): void {
    assert.notEqual(result.code, 0);
    assert.equal(result.stdout, '');
    const lines = result.stderr.trim().split('\n');
    assert.equal(lines.length, 1, `more than one line: ${result.stderr}`);
    assert.match(lines[0]!, pattern);
    assert.doesNotMatch(result.stderr, /\n\s+at /);
  }

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 }, codec });
    running = engine.worker.run();
    client = new Client({ connection: env.connection, dataConverter: codecDataConverter(codec) });
    dir = await mkdtemp(join(tmpdir(), 'eca-cli-'));
  });

  after(async function () {
    engine.worker.shutdown();
    await running;
    await engine.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('applies an application, reports it, lists it, and refuses a second start', async function () {
    const externalId = `stalled-${run}`;
    const file = join(dir, 'stalled.xml');
    await writeFile(file, applicationXml(externalId));

    const first = await eca(['apply', file]);
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, new RegExp(`started application ${externalId}`));
    const second = await eca(['apply', file, '--json']);
    assert.equal(second.code, 0, second.stderr);
    assert.deepEqual(JSON.parse(second.stdout), {
      workflowId: applicationWorkflowId(engine.sim.csid, externalId),
      externalId,
      existed: true,
    });

    const state = await statusWhen(externalId, (view) => view.lifecycleState === 'awaitingClient' || view.done);
    assert.equal(state.lifecycleState, 'awaitingClient');
    const text = await eca(['status', externalId]);
    assert.match(text.stdout, /state\s+awaitingClient/);
    assert.match(text.stdout, /Financial Information Questionnaire/);

    const listed = await eca(['list', '--state', 'awaitingClient', '--json']);
    assert.equal(listed.code, 0, listed.stderr);
    const entries = JSON.parse(listed.stdout) as Array<{ externalId: string }>;
    assert.ok(entries.some((entry) => entry.externalId === externalId));

    const poll = await eca(['poll-now', externalId]);
    assert.equal(poll.code, 0, poll.stderr);

    // The temporary password issued at creation: handed out once, then gone from the store.
    const password = await eca(['password', externalId, '--json']);
    assert.equal(password.code, 0, password.stderr);
    const taken = JSON.parse(password.stdout) as { users: Array<{ userName: string; temporaryPassword?: string }> };
    assert.ok(taken.users.length >= 1 && taken.users[0]!.temporaryPassword, password.stdout);
    assert.equal(taken.users[0]!.userName, state.userName);
    assertOneLineError(await eca(['password', externalId]), /already handed out/);
  });

  it('applies a batch with a summary, and hands out an SSO URL for an opened account', async function () {
    const batch = join(dir, 'batch');
    await rm(batch, { recursive: true, force: true });
    await mkdir(batch);
    await writeFile(join(batch, 'a.xml'), applicationXml(`happy-a-${run}`));
    await writeFile(join(batch, 'b.xml'), applicationXml(`happy-b-${run}`));
    await writeFile(join(batch, 'c.xml'), '<Applications><Application>');
    const result = await eca(['apply-batch', batch]);
    assert.equal(result.code, 1, 'a failed application makes the batch exit non-zero');
    assert.match(result.stdout, /2 started, 0 already existed, 1 failed/);
    assert.match(result.stdout, /c\.xml\s+failed\s+.*malformed XML/);

    const state = await statusWhen(`happy-a-${run}`, (view) => view.done);
    assert.equal(state.lifecycleState, 'open');
    assert.ok(state.userName);
    const sso = await eca(['sso', state.userName, '--ip', '203.0.113.7', '--landing', 'statements', '--json']);
    assert.equal(sso.code, 0, sso.stderr);
    const url = JSON.parse(sso.stdout) as { url: string; expiresAt: string };
    assert.match(url.url, /ACTION=Statement&SID=/);
    const validFor = Date.parse(url.expiresAt) - Date.now();
    assert.ok(validFor > 0 && validFor <= 60_000, `expiry ${url.expiresAt}`);

    // maintenance of the open account, followed to the service's decision
    const body = join(dir, 'currency.xml');
    await writeFile(body, '<BaseCurrency>EUR</BaseCurrency>');
    const maintain = await eca([
      'maintain',
      state.accountId!,
      'ChangeBaseCurrency',
      body,
      '--firm-type',
      'advisor',
      '--wait',
      '--json',
    ]);
    assert.equal(maintain.code, 0, maintain.stderr);
    const decided = JSON.parse(maintain.stdout) as { status: string; responseFile?: string };
    assert.equal(decided.status, 'PROCESSED');
    assert.ok(decided.responseFile);
    const requests = await eca(['maintenance', 'list', '--account', state.accountId!, '-o', 'jsonl']);
    assert.equal(requests.code, 0, requests.stderr);
    const [request] = requests.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { workflowId: string });
    assert.ok(request, requests.stdout);
    const inspected = await eca(['maintenance', 'status', request.workflowId, '-o', 'json']);
    assert.equal(inspected.code, 0, inspected.stderr);
    const view = JSON.parse(inspected.stdout) as { status: string; detail: { status: string; functionName: string } };
    assert.equal(view.status, 'COMPLETED');
    assert.equal(view.detail.status, 'PROCESSED');
    assert.equal(view.detail.functionName, 'ChangeBaseCurrency');
    const notOurs = await eca(['maintenance', 'status', applicationWorkflowId(engine.sim.csid, `happy-a-${run}`)]);
    assert.equal(notOurs.code, 4, 'an application is no maintenance run');
    assertOneLineError(
      await eca(['maintain', state.accountId!, 'UpdateBCAN', '--firm-type', 'advisor']),
      /UpdateBCAN .*not available|not available .*UpdateBCAN/i,
    );
  });

  it('creates, then updates, the daily documents schedule', async function () {
    const formsDir = await writeFormsDir();
    const first = await eca([
      'schedules',
      'set',
      '--time',
      '07:30',
      '--time-zone',
      'Europe/Zurich',
      '--forms-dir',
      formsDir,
      '--paused',
      '--json',
    ]);
    assert.equal(first.code, 0, first.stderr);
    assert.equal((JSON.parse(first.stdout) as { created: boolean }).created, true);
    const second = await eca([
      'schedules',
      'set',
      '--time',
      '08:00',
      '--time-zone',
      'Europe/Zurich',
      '--forms-dir',
      formsDir,
      '--paused',
    ]);
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stdout, new RegExp(`updated schedule daily-documents:${engine.sim.csid}`));
    const describe = async () => {
      const result = await eca(['schedules', 'describe', '-o', 'json']);
      assert.equal(result.code, 0, result.stderr);
      return JSON.parse(result.stdout) as { paused: boolean; note?: string; spec?: string; nextRuns: string[] };
    };
    assert.equal((await describe()).paused, true);
    assert.match((await describe()).spec ?? '', /08:00 Europe\/Zurich/);
    assert.equal((await eca(['schedules', 'unpause'])).code, 0);
    assert.equal((await describe()).paused, false);
    assert.equal((await eca(['schedules', 'pause', '--note', 'forms being replaced'])).code, 0);
    assert.deepEqual([(await describe()).paused, (await describe()).note], [true, 'forms being replaced']);
    const listed = await eca(['schedules', 'list', '-o', 'jsonl']);
    assert.equal(listed.stdout.trim().split('\n').length, 1, listed.stdout);
    assertOneLineError(await eca(['schedules', 'trigger', 'daily-documents:SOMEONE-ELSE']), /not firm/);
    // Fired now: the day's submission shows in `documents list`, and answers `documents status`.
    const triggered = await eca(['schedules', 'trigger']);
    assert.equal(triggered.code, 0, triggered.stderr);
    let runs: Array<{ workflowId: string }> = [];
    for (let i = 0; i < 100 && runs.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const listedRuns = await eca(['documents', 'list', '-o', 'json']);
      runs = JSON.parse(listedRuns.stdout) as typeof runs;
    }
    assert.equal(runs.length, 1, 'one submission for the day');
    assert.match(runs[0]!.workflowId, new RegExp(`^documents:${engine.sim.csid}:\\d{4}-\\d{2}-\\d{2}$`));
    const day = await eca(['documents', 'status', runs[0]!.workflowId, '-o', 'json']);
    assert.equal(day.code, 0, day.stderr);
    const dayView = JSON.parse(day.stdout) as { status: string; detail?: { csid?: string }; note?: string };
    assert.ok(['RUNNING', 'COMPLETED'].includes(dayView.status), day.stdout);
    assert.equal(dayView.detail?.csid, engine.sim.csid, day.stdout);
    const deleted = await eca(['schedules', 'delete', '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    const gone = await eca(['schedules', 'describe']);
    assert.equal(gone.code, 4, gone.stderr);
    assert.match(gone.stderr, /no schedule "daily-documents:.*schedules set/);
    assert.equal((await eca(['documents', 'status', documentsWorkflowId(engine.sim.csid, '1999-01-01')])).code, 4);
    assertOneLineError(await eca(['schedules', 'set', '--time', '25:00', '--forms-dir', formsDir]), /time/i);
  });

  it('applies a batch concurrently as JSON lines, watches into a pipe, and acts on many through a batch job', async function () {
    const batch = join(dir, 'concurrent');
    await rm(batch, { recursive: true, force: true });
    await mkdir(batch);
    for (const name of ['p', 'q', 'r'])
      await writeFile(join(batch, `${name}.xml`), applicationXml(`stalled-${name}-${run}`));
    const applied = await eca(['apply-batch', batch, '--concurrency', '3', '-o', 'jsonl']);
    assert.equal(applied.code, 0, applied.stderr);
    const rows = applied.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { application: string; outcome: string });
    assert.deepEqual(
      rows.map((row) => [row.application.split('/').at(-1), row.outcome]),
      [
        ['p.xml', 'started'],
        ['q.xml', 'started'],
        ['r.xml', 'started'],
      ],
      'every result, in the folder order',
    );
    assert.equal(applied.stderr, '', 'no progress bar when stderr is no terminal');

    const watched = await eca(['watch', '--count', '2', '--interval', '0.5', '-o', 'jsonl']);
    assert.equal(watched.code, 0, watched.stderr);
    const refreshes = watched.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { running: number });
    assert.equal(refreshes.length, 2);
    assert.ok(refreshes.every((refresh) => refresh.running >= 3));
    const text = await eca(['watch', '--count', '1']);
    assert.doesNotMatch(text.stdout, /\x1b\[2J/, 'the screen is not cleared in a pipe');
    assert.match(text.stdout, /running\n/);

    for (const name of ['p', 'q', 'r'])
      await statusWhen(`stalled-${name}-${run}`, (view) => view.lifecycleState === 'awaitingClient');
    const query = `EcaExternalId IN ('stalled-p-${run}', 'stalled-q-${run}')`;
    const dry = await eca(['bulk', 'abandon', '--query', query, '--dry-run', '-o', 'json']);
    assert.equal(dry.code, 0, dry.stderr);
    const plan = JSON.parse(dry.stdout) as { matching: number; dryRun: boolean; query: string };
    assert.deepEqual([plan.matching, plan.dryRun], [2, true]);
    assert.match(plan.query, /ExecutionStatus = 'Running' AND EcaCsid = '/);
    assert.equal((await statusOf(`stalled-p-${run}`)).lifecycleState, 'awaitingClient', 'a dry run sends nothing');
    const refused = await eca(['bulk', 'abandon', '--query', query]);
    assert.equal(refused.code, 13, 'not confirmed without --yes');

    const polled = await eca(['bulk', 'poll-now', '--query', query, '-o', 'json']);
    assert.equal(polled.code, 0, polled.stderr);
    const pollJob = JSON.parse(polled.stdout) as { state: string; total: number; completed: number; jobId: string };
    assert.deepEqual([pollJob.state, pollJob.total, pollJob.completed], ['COMPLETED', 2, 2]);
    const job = await eca(['bulk', 'status', pollJob.jobId, '-o', 'json']);
    assert.equal((JSON.parse(job.stdout) as { completed: number }).completed, 2);

    const abandoned = await eca([
      'bulk',
      'abandon',
      '--query',
      query,
      '--reason',
      'test cleanup',
      '--yes',
      '-o',
      'json',
    ]);
    assert.equal(abandoned.code, 0, abandoned.stderr);
    assert.equal((JSON.parse(abandoned.stdout) as { completed: number }).completed, 2);
    for (const name of ['p', 'q']) {
      const state = await statusWhen(`stalled-${name}-${run}`, (view) => view.lifecycleState === 'abandoned');
      assert.equal(state.lifecycleState, 'abandoned');
      assert.ok(state.staffNotices?.some((notice) => notice.name === 'abandon' && notice.outcome === 'accepted'));
    }
    assert.equal((await statusOf(`stalled-r-${run}`)).lifecycleState, 'awaitingClient', 'only the query matched');
  });

  it('refuses, with its own exit code, the very PDF the brokerage rejected, naming the form and the rejection', async function () {
    const externalId = `doc-rejected-${run}`;
    const file = join(dir, 'doc-rejected.xml');
    await writeFile(file, applicationXml(externalId));
    assert.equal((await eca(['apply', file])).code, 0);
    const identity = join(dir, 'identity.pdf');
    const address = join(dir, 'address.pdf');
    const otherAddress = join(dir, 'address-new.pdf');
    await writeFile(identity, pdf(`${externalId} identity`));
    await writeFile(address, pdf(`${externalId} address`));
    await writeFile(otherAddress, pdf(`${externalId} address, a newer one`));
    const asked = await statusWhen(externalId, (state) => state.lifecycleState === 'needsDocuments');
    assert.equal(asked.lifecycleState, 'needsDocuments');
    const provided = await eca(['provide-docs', externalId, `8001:${identity}`, `8002:${address}`]);
    assert.equal(provided.code, 0, provided.stderr);
    const rejectedTask = (state: ApplicationStateView) =>
      state.pendingTasks.find((task) => task.formNumber === '8002' && task.state === 'Rejected');
    const rejected = await statusWhen(
      externalId,
      (state) => state.lifecycleState === 'needsDocuments' && !!rejectedTask(state),
    );
    assert.ok(rejectedTask(rejected), `no rejection in ${JSON.stringify(rejected.pendingTasks)}`);

    const again = await eca(['provide-docs', externalId, `8002:${address}`]);
    assert.equal(again.code, 18, again.stderr);
    assertOneLineError(
      again,
      /the brokerage rejected this very PDF for form 8002 \([^)]+\): "Proof of address is older than three months"; provide a different one/,
    );
    const asJson = await eca(['provide-docs', externalId, `8002:${address}`, '-o', 'json']);
    assert.equal(asJson.code, 18);
    const { error } = JSON.parse(asJson.stderr) as { error: { code: string; exitCode: number } };
    assert.deepEqual([error.code, error.exitCode], ['DOCUMENT_REJECTED', 18]);
    const after = await statusOf(externalId);
    assert.equal(after.lifecycleState, 'needsDocuments');
    assert.deepEqual(after.waitingDocuments, [], 'the rejected file is not held');

    const different = await eca(['provide-docs', externalId, `8002:${otherAddress}`, '-o', 'json']);
    assert.equal(different.code, 0, different.stderr);
    assert.equal((JSON.parse(different.stdout) as ApplicationStateView).lifecycleState, 'submittingDocuments');
    await env.client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, externalId)).terminate('test');
  });

  it('gives up a wait at its --timeout with the TIMEOUT exit code', async function () {
    // An application on a task queue no worker polls: it takes messages but never answers them.
    const lonely = { ECA_TASK_QUEUE: `nobody-${run}` };
    const file = join(dir, 'lonely.xml');
    await writeFile(file, applicationXml(`stalled-lonely-${run}`));
    assert.equal((await eca(['apply', file], lonely)).code, 0);
    const began = Date.now();
    const result = await eca(['abandon', `stalled-lonely-${run}`, '--yes', '--timeout', '2s', '-o', 'json'], lonely);
    assert.equal(result.code, 12, result.stderr);
    const { error } = JSON.parse(result.stderr) as { error: { code: string; message: string } };
    assert.equal(error.code, 'TIMEOUT');
    assert.match(error.message, /abandon: no answer within 2 s \(--timeout\)/);
    assert.ok(Date.now() - began < 60_000, 'gave up long before any server-side limit');
    const waited = await eca(
      [
        'maintain',
        'U1234567',
        'ChangeBaseCurrency',
        '--firm-type',
        'advisor',
        '--request-key',
        `k-${run}`,
        '--wait',
        '--timeout',
        '2s',
      ],
      lonely,
    );
    assert.equal(waited.code, 12, waited.stderr);
    assert.match(
      waited.stderr,
      new RegExp(
        `maintain: no answer within 2 s .*\`eca maintenance status ${maintenanceWorkflowId(engine.sim.csid, 'U1234567', `k-${run}`)}\``,
      ),
    );
    // Where Temporal is, from a profile of a Temporal config file (as the `temporal` CLI reads it).
    const toml = join(dir, 'temporal.toml');
    await writeFile(toml, `[profile.dev]\naddress = "${env.address}"\n`);
    const viaProfile = await eca(['list', '-o', 'json'], {
      TEMPORAL_ADDRESS: '',
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'dev',
    });
    assert.equal(viaProfile.code, 0, viaProfile.stderr);
    const noProfile = await eca(['list'], { TEMPORAL_ADDRESS: '', TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'qa' });
    assert.equal(noProfile.code, 11, noProfile.stderr);
    assert.match(noProfile.stderr, /Temporal profile "qa" from .*temporal\.toml/);

    const usage = await eca(['status', 'x', '--timeout', 'soon']);
    assert.equal(usage.code, 2);
    assert.match(
      usage.stderr,
      /'--timeout <duration>' argument 'soon' is invalid.*not a duration such as 30s, 10m or 2h/,
    );
  });

  it('gives one clear line and a non-zero exit for bad input', async function () {
    const notPdf = join(dir, '8001-passport.pdf');
    await writeFile(notPdf, 'hello');
    const goodPdf = join(dir, 'scan.pdf');
    await writeFile(goodPdf, pdf('scan'));
    const malformed = join(dir, 'bad.xml');
    await writeFile(malformed, '<Applications>');

    assertOneLineError(await eca(['apply', join(dir, 'missing.xml')]), /missing\.xml: cannot read the application XML/);
    assertOneLineError(await eca(['apply', malformed]), /malformed XML/);
    assertOneLineError(await eca(['provide-docs', `stalled-${run}`, notPdf]), /is not a PDF/);
    assertOneLineError(await eca(['provide-docs', `stalled-${run}`, goodPdf]), /give the form number/);
    assertOneLineError(await eca(['status', `nobody-${run}`]), /no application "nobody-/);
    assertOneLineError(await eca(['reset', `stalled-${run}`, '--yes']), /not allowed while the application is/);
    assertOneLineError(await eca(['sso', 'someone', '--ip', '10.0.0.1, 10.0.0.2']), /ip/i);
    assertOneLineError(await eca(['sso', 'someone', '--ip', '203.0.113.7', '--landing', 'nowhere']), /unknown landing/);
    assertOneLineError(
      await eca(['status', 'x'], { TEMPORAL_ADDRESS: '127.0.0.1:9' }),
      /cannot reach Temporal at 127\.0\.0\.1:9/,
    );
    assertOneLineError(await eca(['status', 'x'], { ECA_CODEC_KEYS: '' }), /ECA_CODEC_KEYS/);
    // numbers in options: a usage error (exit 2) naming the option, before anything runs
    for (const [args, pattern] of [
      [['list', '--limit', 'abc'], /'--limit <n>' argument 'abc' is invalid\. expected a whole number from 1 to 10000/],
      [['list', '--limit', '0'], /'--limit <n>' argument '0' is invalid/],
      [
        ['watch', '--interval', 'abc'],
        /'--interval <seconds>' argument 'abc' is invalid\. expected a number of seconds/,
      ],
    ] as const) {
      const result = await eca([...args]);
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, pattern);
    }
    // sizes are checked before a byte is read (a sparse file: nothing is written)
    const huge = join(dir, '8001-huge.pdf');
    await writeFile(huge, '');
    await truncate(huge, 64 * 1024 * 1024);
    assertOneLineError(await eca(['provide-docs', `stalled-${run}`, huge]), /over the 20971520-byte limit/);
    // a batch CSV names files inside its own folder only
    const batchDir = join(dir, 'batch');
    await mkdir(batchDir, { recursive: true });
    await writeFile(join(batchDir, 'batch.csv'), 'application,documents\n../outside.xml,\n');
    assertOneLineError(await eca(['apply-batch', join(batchDir, 'batch.csv')]), /outside the CSV's folder/);
    const usage = await eca(['frobnicate']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown command 'frobnicate'/);
  });
});

/**
 * Security end to end: a worker *process* (`workers/main.ts`, configured through its environment) with
 * the payload codec, a dev server whose UI decodes through the codec server, the simulator as the
 * brokerage. Histories are exported with the official `temporal` CLI and searched for applicants'
 * personal data and for plaintext payloads; the codec server decodes them back; the worker's and the
 * simulator's logs are searched for keys, passphrases and temporary passwords; the worker's Prometheus
 * endpoint shows the SDK's and the engine's metrics.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client, WorkflowFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import * as openpgp from 'openpgp';
import {
  codecDataConverter,
  formatCodecKeys,
  generateCodecKeyEntry,
  parseCodecKeys,
  PLAINTEXT_REFUSED_TYPE,
  startCodecServer,
  uiCodecEndpointArgs,
} from '../../codec/index.js';
import type { RunningCodecServer } from '../../codec/index.js';
import { FileDocumentStore, sha1Of } from '../../runtime/document-store.js';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { devServerExecutable } from '../../scripts/temporal-servers.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import { accountApplication } from '../../workflows/index.js';
import { provideDocumentsUpdate, stateQuery } from '../../workflows/application/messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { storedForms } from '../support/engine.js';
import { applicant, assertPrivateHistory, personalFields, personalXml, strings } from '../support/history-privacy.js';
import type { Applicant } from '../support/history-privacy.js';
import { startDevServerEnv } from '../support/servers.js';
import { logWatch } from '../support/log-watch.js';
import { Child, describeSurvivors } from '../../scripts/processes/child.js';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
/** How long the worker may take to stop on SIGTERM before the test kills it and fails. */
const STOP_GRACE_MS = 20_000;
const FAST: ApplicationInput['settings'] = {
  pollIntervals: { tracking: '1 second' },
};
const SCENARIOS = { happy: 'open', 'docs-required': 'open', 'portal-task': 'open', 'compliance-rejected': 'rejected' };

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

describe('security end to end: encrypted histories, codec server, clean logs, metrics', function () {
  this.timeout(240_000);
  const keys = parseCodecKeys(`${generateCodecKeyEntry('e2e-2')},${generateCodecKeyEntry('e2e-1')}`, 'test');
  const token = randomBytes(24).toString('hex');
  const passphrase = `pass-${randomBytes(12).toString('hex')}`;
  let dir: string;
  let codecServer: RunningCodecServer;
  let env: TestWorkflowEnvironment;
  let uiOrigin: string;
  let sim: RunningSimulator;
  const simLog: string[] = [];
  let worker: Child | undefined;
  let workerLog = '';
  let workerStdout = '';
  let metricsAddress: string;
  let client: Client;
  let temporalCli: string;
  let protectedFirmKey: string;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-security-'));
    const executable = await devServerExecutable();
    assert.equal(executable.type, 'existing-path', 'the CLI export needs the temporal binary');
    temporalCli = executable.type === 'existing-path' ? executable.path : '';
    codecServer = await startCodecServer({ keys, token });
    env = await startDevServerEnv({ ui: true, extraArgs: uiCodecEndpointArgs(codecServer) });
    const [host = '127.0.0.1', port = '7233'] = env.address.split(':');
    uiOrigin = `http://${host}:${Number(port) + 1000}`;
    codecServer.allowOrigin(uiOrigin);

    sim = await startSimulator({
      startTime: await env.currentTimeMs(),
      timeScale: 20_000,
      log: (line) => simLog.push(line),
    });
    // The firm's key as a production firm keeps it: in a file, protected by a passphrase.
    protectedFirmKey = (
      await openpgp.encryptKey({
        privateKey: await openpgp.readPrivateKey({ armoredKey: sim.keys.firmPrivateKey }),
        passphrase,
      })
    ).armor();
    const keyFile = join(dir, 'firm-private.asc');
    await writeFile(keyFile, protectedFirmKey, { mode: 0o600 });
    const passphraseFile = join(dir, 'firm-key-passphrase');
    await writeFile(passphraseFile, `${passphrase}\n`, { mode: 0o600 });

    metricsAddress = `127.0.0.1:${await freePort()}`;
    const taskQueue = `security-${randomUUID()}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A group of its own: a stop that fails kills what the worker started too.
      detached: true,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TEMPORAL_ADDRESS: env.address,
        ECA_TASK_QUEUE: taskQueue,
        ECA_BASE_URL: sim.url,
        ECA_PREFERENCE_URL: sim.preferenceUrl,
        ECA_CSID: sim.csid,
        ECA_FIRM_PRIVATE_KEY: keyFile,
        // As docker-compose hands it over: a secret file.
        ECA_FIRM_KEY_PASSPHRASE_FILE: passphraseFile,
        ECA_BROKERAGE_PUBLIC_KEY: sim.keys.brokeragePublicKey,
        ECA_DOCUMENT_STORE: join(dir, 'documents'),
        ECA_POLL_BATCH_WINDOW_MS: '20',
        ECA_CODEC_KEYS: formatCodecKeys(keys),
        // Everything the worker can say is captured and searched.
        ECA_LOG_LEVEL: 'TRACE',
        ECA_METRICS_ADDRESS: metricsAddress,
        ECA_METRICS_GAUGE_INTERVAL_MS: '300',
      },
    });
    // Its stop is bounded, and what it started is checked gone (scripts/processes/child.ts).
    worker = new Child('eca worker', child);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the worker did not start:\n${workerLog}`)), 90_000);
      const collect = (chunk: Buffer) => {
        workerLog += chunk.toString();
        if (workerLog.includes('eca worker polling')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', (chunk: Buffer) => {
        // Whole lines to the run's log watch as the engine's own: each must be JSON and hold no personal data.
        const lines = (workerStdout.slice(workerStdout.lastIndexOf('\n') + 1) + chunk.toString()).split('\n');
        if (lines.length > 1) logWatch.write(`${lines.slice(0, -1).join('\n')}\n`);
        workerStdout += chunk.toString();
        collect(chunk);
      });
      child.stderr?.on('data', collect);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the worker exited with ${code}:\n${workerLog}`));
      });
    });
    client = new Client({ connection: env.connection, dataConverter: codecDataConverter(keys) });
    (this as unknown as { taskQueue: string }).taskQueue = taskQueue;
  });

  after(async function () {
    // SIGTERM, then SIGKILL to its group past the grace; what the worker started is killed if it outlived it.
    const stopped = await worker?.stop('SIGTERM', STOP_GRACE_MS);
    await env?.teardown();
    await sim?.close();
    await codecServer?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    // Reported once everything else is stopped: nothing is left running behind the failure.
    if (stopped?.wasRunning) {
      assert.equal(
        await worker?.exited,
        0,
        `the worker did not stop within ${STOP_GRACE_MS} ms of SIGTERM:\n${workerLog.slice(-4_000)}`,
      );
      assert.deepEqual(stopped.survivors, [], `outlived the worker:\n${describeSurvivors(stopped)}`);
    }
  });

  it('keeps personal data and secrets out of histories and logs, and ops read them through the codec server', async function () {
    const taskQueue = (this as unknown as { taskQueue?: string }).taskQueue ?? '';
    const runId = randomUUID().slice(0, 6);
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring: keys });
    const handles = new Map<string, WorkflowHandle<typeof accountApplication>>();
    const people = new Map<string, Applicant>();
    // One transient failure of validateXML, so that an activity failure is in a history.
    sim.control.addFault({ operation: 'validateXML', kind: 'http500', count: 1 });

    // Waiting applications wake on the firm's status sweep, run by the worker process like the rest.
    await ensureStatusSweep({ client, csid: sim.csid, taskQueue, settings: FAST });
    for (const scenario of Object.keys(SCENARIOS)) {
      const externalId = `${scenario}-${runId}`;
      const person = applicant(scenario, runId);
      people.set(scenario, person);
      const application = await store.put(new TextEncoder().encode(personalXml(externalId, person)));
      handles.set(
        scenario,
        await client.workflow.start(accountApplication, {
          taskQueue,
          workflowId: applicationWorkflowId(sim.csid, externalId),
          args: [{ csid: sim.csid, externalId, application, settings: FAST }],
          memo: { applicant: `${person.first} ${person.last}` },
          staticSummary: `application of ${person.first} ${person.last}`,
        }),
      );
    }
    const docs = handles.get('docs-required')!;
    for (let i = 0; (await docs.query(stateQuery)).lifecycleState !== 'needsDocuments'; i++) {
      assert.ok(i < 600, 'docs-required never asked for documents');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const documents = await storedForms(store, ['8001', '8002']);
    await docs.executeUpdate(provideDocumentsUpdate, { args: [documents] });

    const accountIds = new Map<string, string>();
    for (const [scenario, expected] of Object.entries(SCENARIOS)) {
      const result = await handles.get(scenario)!.result();
      assert.equal(result.outcome, expected, `${scenario} ended ${result.outcome}`);
      assert.ok(result.accountId, `${scenario} has an account`);
      accountIds.set(scenario, result.accountId);
    }

    // The temporary passwords the brokerage handed out: the engine keeps them in its document store only,
    // readable through the store's keys.
    const temporaryPasswords: string[] = [];
    const contentHashes: string[] = [];
    for (const ref of await store.list()) {
      const data = await store.read(ref);
      contentHashes.push(sha1Of(data));
      const text = new TextDecoder().decode(data);
      if (!text.startsWith('{')) continue;
      const content = JSON.parse(text) as { users?: { temporaryPassword?: string }[] };
      for (const user of content.users ?? [])
        if (user.temporaryPassword) temporaryPasswords.push(user.temporaryPassword);
    }
    assert.ok(temporaryPasswords.length >= Object.keys(SCENARIOS).length, 'temporary passwords were issued');

    const personal = [...people.values()].flatMap(personalFields);
    const secrets = [
      ...temporaryPasswords,
      passphrase,
      token,
      ...keys.keys.map((key) => Buffer.from(key.key).toString('base64')),
    ];

    // 1. Histories as the official CLI exports them: no personal data, no secrets, every payload ciphertext
    // (the documents' SHA-1s, in workflow inputs, included).
    let failuresSeen = 0;
    for (const [scenario, handle] of handles) {
      const { stdout } = await run(
        temporalCli,
        ['workflow', 'show', '--workflow-id', handle.workflowId, '--address', env.address, '--output', 'json'],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      const history = JSON.parse(stdout) as { events: unknown[] };
      assert.ok(history.events.length > 10, `${scenario}: a whole history`);
      const payloads = assertPrivateHistory(scenario, history, [...personal, ...secrets, ...contentHashes], 'e2e-2');
      assert.ok(payloads.length > 10, `${scenario}: payloads found`);
      // Inputs, results, summaries and memos are among them, and their identifiers are not readable.
      const where = payloads.map(({ path }) => path).join('\n');
      for (const part of [
        'workflowExecutionStartedEventAttributes.input',
        'workflowExecutionCompletedEventAttributes.result',
        'userMetadata.summary',
        'memo.fields',
      ]) {
        assert.ok(where.includes(part), `${scenario}: no payload at ${part}`);
      }
      const payloadText = strings(payloads.map(({ payload }) => payload.data)).join('\n');
      for (const id of [handle.workflowId.split(`${sim.csid}-`)[1]!, accountIds.get(scenario)!]) {
        assert.ok(!payloadText.includes(id), `${scenario}: ${id} readable in a payload`);
      }
      // Failure messages and stacks are payloads too: the message left in plaintext is the SDK's placeholder.
      for (const event of history.events) {
        const lastFailure = (event as { activityTaskStartedEventAttributes?: { lastFailure?: { message?: string } } })
          .activityTaskStartedEventAttributes?.lastFailure;
        if (lastFailure) {
          failuresSeen++;
          assert.equal(lastFailure.message, 'Encoded failure');
          assert.ok(!JSON.stringify(lastFailure).includes('validateXML'), 'the failure text is encrypted');
        }
      }

      // 2. The codec server decodes them back for the holder of the token (the CLI's --codec-endpoint).
      const { stdout: decoded } = await run(
        temporalCli,
        [
          'workflow',
          'show',
          '--workflow-id',
          handle.workflowId,
          '--address',
          env.address,
          '--output',
          'json',
          '--codec-endpoint',
          codecServer.url,
          '--codec-auth',
          `Bearer ${token}`,
        ],
        { maxBuffer: 64 * 1024 * 1024 },
      );
      const readable = strings(JSON.parse(decoded)).join('\n');
      assert.ok(readable.includes(accountIds.get(scenario)!), `${scenario}: the decoded result names the account`);
      assert.ok(
        readable.includes(`${people.get(scenario)!.first} ${people.get(scenario)!.last}`),
        'the decoded memo and summary',
      );
      assert.ok(
        readable.includes('validateXML') || readable.includes('getAccountStatus'),
        'decoded activity summaries',
      );
    }
    assert.ok(failuresSeen >= 1, 'an activity failure is in a history');

    // Without the token, the codec server refuses; the UI is wired to it (the dev server hands it to browsers).
    await assert.rejects(
      run(temporalCli, [
        'workflow',
        'show',
        '--workflow-id',
        docs.workflowId,
        '--address',
        env.address,
        '--output',
        'json',
        '--codec-endpoint',
        codecServer.url,
      ]),
    );
    const settings = (await (await fetch(`${uiOrigin}/api/v1/settings`)).json()) as { Codec?: { Endpoint?: string } };
    assert.equal(settings.Codec?.Endpoint, codecServer.uiEndpoint);
    const preflight = await fetch(`${codecServer.url}/decode`, {
      method: 'OPTIONS',
      headers: { origin: uiOrigin, 'access-control-request-method': 'POST' },
    });
    assert.equal(preflight.headers.get('access-control-allow-origin'), uiOrigin);

    // 3. Logs of the worker and the simulator: no keys, passphrases, temporary passwords (nor personal data).
    const keyLines = (armored: string) =>
      armored.split('\n').filter((line) => line.length >= 40 && /^[A-Za-z0-9+/=]+$/.test(line));
    const keyMaterial = [...keyLines(protectedFirmKey), ...keyLines(sim.keys.firmPrivateKey)];
    assert.ok(keyMaterial.length > 0);
    assert.ok(workerLog.includes('lifecycle transition'), 'the worker logged at TRACE level');
    // Its logs are JSON lines (runtime/logger.ts): the SDK's, the workflows' and its own.
    const records = workerStdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { msg?: string; sdkComponent?: string });
    assert.ok(records.some((record) => record.msg?.startsWith('eca worker polling task queue')));
    assert.ok(records.some((record) => record.sdkComponent === 'workflow' && record.msg === 'lifecycle transition'));
    assert.ok(
      records.some((record) => record.msg === 'Activity failed'),
      'an activity failure is logged',
    );
    const logs = { worker: workerLog, simulator: simLog.join('\n') };
    for (const [name, text] of Object.entries(logs)) {
      assert.ok(!text.includes('PRIVATE KEY BLOCK'), `${name} log holds a private key`);
      for (const needle of [...keyMaterial, ...secrets, ...personal]) {
        assert.ok(!text.includes(needle), `${name} log holds "${needle.slice(0, 6)}…"`);
      }
    }

    // 3b. The document store on disk: every document encrypted, none of the applicants' data nor a password in
    // any file, nor a document's SHA-1 in any name; the files that record a document's holders and an owner's
    // documents are empty (names only: hashes of owners, keyed names of documents).
    const files = (await readdir(join(dir, 'documents'), { recursive: true, withFileTypes: true })).filter((file) =>
      file.isFile(),
    );
    assert.ok(files.length >= 8, `the store holds the applications, documents and response files (${files.length})`);
    for (const file of files) {
      const bytes = await readFile(join(file.parentPath, file.name));
      if (/\.holders$|\/owners\/[0-9a-f]{64}$/.test(file.parentPath))
        assert.equal(bytes.length, 0, `${file.name}: a holder record with content`);
      else assert.equal(bytes.subarray(0, 8).toString(), 'ECA-DOC2', `${file.name} is not encrypted`);
      for (const hash of contentHashes) {
        assert.ok(!join(file.parentPath, file.name).includes(hash), `${file.name}: a document's SHA-1 in a name`);
      }
      const raw = bytes.toString('latin1');
      for (const needle of [...personal, ...temporaryPasswords]) {
        assert.ok(!raw.includes(needle), `${file.name} holds "${needle.slice(0, 6)}…" in the clear`);
      }
    }

    // 4. Prometheus: the SDK's metrics and the engine's.
    let metrics = '';
    for (let i = 0; i < 100; i++) {
      metrics = await (await fetch(`http://${metricsAddress}/metrics`)).text();
      if (/eca_applications\{[^}]*lifecycle_state="open"[^}]*\} 3\b/.test(metrics)) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.match(metrics, /eca_applications\{[^}]*lifecycle_state="open"[^}]*\} 3\b/);
    assert.match(metrics, /eca_applications\{[^}]*lifecycle_state="rejected"[^}]*\} 1\b/);
    assert.match(metrics, /eca_brokerage_calls\{[^}]*operation="create"[^}]*outcome="ok"[^}]*\} 4\b/);
    assert.match(metrics, /eca_brokerage_calls\{[^}]*operation="validateXML"[^}]*outcome="http_5xx"[^}]*\} 1\b/);
    assert.match(metrics, /eca_poll_batch_size_bucket\{[^}]*operation="getAccountStatus"/);
    assert.match(metrics, /eca_brokerage_call_duration_ms_bucket\{[^}]*operation="create"/);
    assert.match(metrics, /eca_lifecycle_transitions\{[^}]*to="open"/);
    assert.match(metrics, /temporal_workflow_completed\{/);
  });

  it('refuses what a client without the codec sends (strict codec mode): update, signal, start', async function () {
    const taskQueue = (this as unknown as { taskQueue?: string }).taskQueue ?? '';
    const plain = new Client({ connection: env.connection });
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring: keys });
    await ensureStatusSweep({ client, csid: sim.csid, taskQueue, settings: FAST });
    const externalId = `stalled-${randomUUID().slice(0, 6)}`;
    const application = await store.put(
      new TextEncoder().encode(personalXml(externalId, applicant('stalled', externalId))),
    );
    const handle = await client.workflow.start(accountApplication, {
      taskQueue,
      workflowId: applicationWorkflowId(sim.csid, externalId),
      args: [{ csid: sim.csid, externalId, application, settings: FAST }],
    });
    const stateOf = async () => (await handle.query(stateQuery)).lifecycleState;
    for (let i = 0; (await stateOf()) !== 'awaitingClient'; i++) {
      assert.ok(i < 600, 'the stalled application never waited for the client');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const unencrypted = plain.workflow.getHandle(handle.workflowId);
    const refusedType = (error: unknown) => {
      const cause = (error as { cause?: { type?: string } }).cause;
      return cause?.type === PLAINTEXT_REFUSED_TYPE;
    };

    // An update is refused to its sender, before anything is recorded. The reason is a failure the worker
    // encrypts like any other, so a client without the codec cannot read it: it gets an error either way.
    await assert.rejects(unencrypted.executeUpdate('abandon', { args: [{ reason: 'sent in plaintext' }] }));
    assert.equal(await stateOf(), 'awaitingClient', 'the plaintext abandon update was taken');
    // A signal cannot be refused: it is dropped, with a warning in the worker's log.
    await unencrypted.signal('abandon', { reason: 'sent in plaintext' });
    for (let i = 0; !workerLog.includes('signal abandon dropped'); i++) {
      assert.ok(i < 100, 'no warning of the dropped signal in the worker log');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(await stateOf(), 'awaitingClient', 'the plaintext abandon was taken');
    const events = (await handle.fetchHistory()).events ?? [];
    assert.equal(events.filter((event) => event.workflowTaskFailedEventAttributes).length, 0, 'a workflow task failed');
    // A start fails at once, its input never read.
    const started = await plain.workflow.start('accountApplication', {
      taskQueue,
      workflowId: `plaintext-${externalId}`,
      args: [{ csid: sim.csid, externalId, application }],
    });
    // Read through the codec: the failure names the refusal.
    await assert.rejects(
      client.workflow.getHandle(started.workflowId).result(),
      (error) => error instanceof WorkflowFailedError && refusedType(error),
    );
    await handle.terminate('test finished');
  });
});

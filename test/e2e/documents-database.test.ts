/**
 * Documents without a shared disk: a worker process and the `eca` CLI, each in a working directory of
 * its own as on two hosts, with ECA_DOCUMENT_STORE naming a real PostgreSQL. The CLI puts the
 * application's XML, which the worker reads to create the account; the worker puts the temporary
 * credentials, which the CLI takes. Neither directory receives a document, and the database holds
 * nothing of the applicant in the clear.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { formatCodecKeys, generateCodecKeyring } from '../../codec/index.js';
import { openDatabase } from '../../runtime/database/index.js';
import { engineEnv, SimulatorProcess, start } from '../../scripts/processes.js';
import type { Child } from '../../scripts/processes.js';
import { describeOnPostgres, useDatabaseBackends } from '../support/databases.js';
import { applicant, personalFields, personalXml } from '../support/history-privacy.js';
import { devServerEnv } from '../support/servers.js';

const ECA = fileURLToPath(new URL('../../bin/eca.js', import.meta.url));
const WORKER = fileURLToPath(new URL('../../workers/main.ts', import.meta.url));
/** tsx's loader by its full address: from host A's directory a bare `tsx` would not resolve. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

describeOnPostgres('documents in the database: a worker and a client that share no directory', function () {
  this.timeout(300_000);
  const databases = useDatabaseBackends();
  let dev: TestWorkflowEnvironment;
  let sim: SimulatorProcess;
  let worker: Child | undefined;
  let url: string;
  let hostA: string;
  let hostB: string;
  const taskQueue = `documents-db-${randomUUID().slice(0, 8)}`;
  const codecKeys = formatCodecKeys(generateCodecKeyring('k1'));

  before(async function () {
    dev = await devServerEnv();
    sim = new SimulatorProcess({ timeScale: 20_000 });
    await sim.start();
    url = await databases.postgres.freshUrl();
    hostA = await mkdtemp(join(tmpdir(), 'eca-host-a-'));
    hostB = await mkdtemp(join(tmpdir(), 'eca-host-b-'));
    // The worker as workers/main.ts runs in production, configured by its environment, in host A's directory.
    const env = engineEnv({ temporalAddress: dev.address, taskQueue, simulator: sim, documentStore: url, codecKeys });
    worker = start('worker on host A', process.execPath, ['--import', TSX, WORKER], env, {
      cwd: hostA,
    });
    await worker.waitFor(/eca worker polling task queue/, 120_000);
  });

  after(async function () {
    await worker?.stop();
    await sim?.stop();
    for (const dir of [hostA, hostB]) if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** `eca` on host B: its own directory, the database's URL, no path shared with host A. */
  function eca(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: dev.address,
      ECA_CSID: sim.csid,
      ECA_TASK_QUEUE: taskQueue,
      ECA_DOCUMENT_STORE: url,
      ECA_CODEC_KEYS: codecKeys,
      ECA_POLL_INTERVAL: '1 second',
    };
    return new Promise((resolve) =>
      execFile(process.execPath, [ECA, ...args], { env, cwd: hostB }, (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      ),
    );
  }

  it('opens an account with the XML put by the client, and hands the client the credentials put by the worker', async function () {
    const runId = randomUUID().slice(0, 6);
    const externalId = `db-documents-${runId}`;
    const person = applicant('dbdocuments', runId.replace(/[^0-9a-f]/g, '0'));
    await writeFile(join(hostB, 'application.xml'), personalXml(externalId, person));
    const applied = await eca(['apply', 'application.xml']);
    assert.equal(applied.code, 0, applied.stderr);

    let state = { lifecycleState: '' };
    for (let i = 0; i < 240 && state.lifecycleState !== 'open'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 500));
      const status = await eca(['status', externalId, '-o', 'json']);
      assert.equal(status.code, 0, status.stderr);
      state = JSON.parse(status.stdout) as typeof state;
    }
    assert.equal(state.lifecycleState, 'open', `worker output:\n${worker!.output}`);

    const password = await eca(['password', externalId, '-o', 'json']);
    assert.equal(password.code, 0, password.stderr);
    const taken = JSON.parse(password.stdout) as { users: Array<{ temporaryPassword?: string }> };
    assert.ok(taken.users[0]?.temporaryPassword, password.stdout);
    assert.match((await eca(['password', externalId])).stderr, /already handed out/);

    assert.deepEqual(await readdir(hostA), [], "host A's directory: the worker kept nothing on its disk");
    assert.deepEqual(await readdir(hostB), ['application.xml'], "host B's directory: only the file given to apply");
    const db = await openDatabase(url);
    try {
      const rows = await db.query<{ ref: string; sealed: Uint8Array }>('SELECT ref, sealed FROM documents');
      assert.ok(rows.length >= 1, 'the application XML is in the database');
      const atRest = Buffer.concat(rows.flatMap((row) => [Buffer.from(row.ref), Buffer.from(row.sealed)]));
      for (const field of personalFields(person)) assert.ok(!atRest.includes(field), `"${field}" at rest`);
      for (const row of rows) assert.equal(Buffer.from(row.sealed).subarray(0, 8).toString(), 'ECA-DOC2');
    } finally {
      await db.close();
    }
  });
});

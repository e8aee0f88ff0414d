/**
 * Bad input gets a clear, typed error and changes nothing: no workflow started or moved, no call that
 * changes anything at the brokerage. (test/{unit,e2e}/client covers a malformed XML, a missing file, a non-PDF
 * document and abandon on a finished application; these are the rest.)
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { createSsoUrl } from '../../client/brokerage.js';
import {
  abandon,
  ApplicationFinishedError,
  getState,
  InvalidInputError,
  MAX_DOCUMENT_BYTES,
  pollNow,
  provideDocuments,
  reset,
  resubmit,
  startApplication,
  UnknownApplicationError,
} from '../../client/index.js';
import type { ApplicationHandle, EngineContext } from '../../client/index.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { applicationXml, pdf, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';

const FAST = {
  pollIntervals: { tracking: '1 second' },
};

/** Operations that change something at the brokerage. */
const WRITES = ['validateXML', 'create', 'update', 'submitDocuments', 'sso/create', 'preference/set'];

describe('bad input: a clear error, and nothing changes', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let ctx: EngineContext;
  let running: Promise<void>;
  const run = randomUUID().slice(0, 6);
  let finished: ApplicationHandle;
  let finishedId: string;
  const waitingId = `docs-required-bad-${run}`;
  let refusals = 0;

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 } });
    ctx = {
      client: env.client,
      store: engine.store,
      csid: engine.sim.csid,
      taskQueue: engine.taskQueue,
      settings: FAST,
    };
    running = engine.worker.run();
    finishedId = `happy-bad-${run}`;
    ({ handle: finished } = await startApplication(ctx, { applicationXml: applicationXml(finishedId) }));
    await startApplication(ctx, { applicationXml: applicationXml(waitingId) });
    assert.equal((await finished.result()).outcome, 'open');
    for (let i = 0; (await getState(ctx, waitingId)).lifecycleState !== 'needsDocuments'; i++) {
      assert.ok(i < 300, 'the docs-required application never asked for documents');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async function () {
    console.log(`    bad input: ${refusals} refusals, each with a typed error and nothing changed`);
    engine.worker.shutdown();
    await running;
    await engine.close();
  });

  /** The brokerage's write calls, the finished workflow's history and the waiting one's state. */
  async function world() {
    const calls = engine.sim.control.calls();
    const waiting = await getState(ctx, waitingId);
    return {
      writes: Object.fromEntries(WRITES.map((op) => [op, calls[op] ?? 0])),
      finishedHistory: (await finished.describe()).historyLength,
      waiting: {
        state: waiting.lifecycleState,
        waitingDocuments: waiting.waitingDocuments,
        transitions: waiting.transitions.length,
      },
    };
  }

  /** Each attempt must fail with an error of the type (and message) given, and leave the world as it was. */
  async function refused(attempts: Array<[() => Promise<unknown>, new (...args: never[]) => Error, RegExp]>) {
    const before = await world();
    for (const [attempt, type, message] of attempts) {
      await assert.rejects(attempt(), (error: unknown) => {
        assert.ok(error instanceof type, `expected ${type.name}, got ${String(error)}`);
        assert.match(error.message, message);
        return true;
      });
      refusals++;
    }
    assert.deepEqual(await world(), before);
  }

  it('malformed application XML: refused before anything is stored or started', async function () {
    const noExternalId = applicationXml('x').replace(' external_id="x"', '');
    await refused([
      [() => startApplication(ctx, { applicationXml: '<Applications><Application' }), InvalidInputError, /malformed/],
      [() => startApplication(ctx, { applicationXml: noExternalId }), InvalidInputError, /external_id/],
      [() => startApplication(ctx, { applicationXml: '<NotAnApplication/>' }), InvalidInputError, /application XML/],
      [
        () => startApplication(ctx, { applicationXml: applicationXml(`other-${run}`), externalId: `mine-${run}` }),
        InvalidInputError,
        /differs/,
      ],
      [() => resubmit(ctx, waitingId, '<Applications>'), InvalidInputError, /malformed/],
      [
        () => resubmit(ctx, waitingId, applicationXml(`someone-else-${run}`)),
        InvalidInputError,
        /not this application/,
      ],
    ]);
    for (const externalId of [`other-${run}`, `mine-${run}`]) {
      await assert.rejects(
        env.client.workflow.getHandle(applicationWorkflowId(engine.sim.csid, externalId)).describe(),
      );
    }
  });

  it('oversized, non-PDF and misnamed documents: refused before the workflow sees them', async function () {
    const oversized = new Uint8Array(MAX_DOCUMENT_BYTES + 1);
    oversized.set(new TextEncoder().encode('%PDF-1.4\n'));
    await refused([
      [() => provideDocuments(ctx, waitingId, [{ formNumber: '8001', data: oversized }]), InvalidInputError, /limit/],
      [
        () => provideDocuments(ctx, waitingId, [{ formNumber: '8001', data: new TextEncoder().encode('GIF89a') }]),
        InvalidInputError,
        /not a PDF/,
      ],
      [
        () => provideDocuments(ctx, waitingId, [{ formNumber: '8001', data: new Uint8Array() }]),
        InvalidInputError,
        /not a PDF/,
      ],
      [
        () => provideDocuments(ctx, waitingId, [{ formNumber: 'ID', data: pdf('id') }]),
        InvalidInputError,
        /not numeric/,
      ],
      [
        () =>
          provideDocuments(ctx, waitingId, [{ formNumber: '8001', fileName: '../etc/passwd.pdf', data: pdf('id') }]),
        InvalidInputError,
        /file name/,
      ],
      [() => provideDocuments(ctx, waitingId, []), InvalidInputError, /at least one/],
    ]);
  });

  it('messages to a finished workflow: refused, its history unchanged', async function () {
    await refused([
      [
        () => provideDocuments(ctx, finishedId, [{ formNumber: '8001', data: pdf('late') }]),
        ApplicationFinishedError,
        /finished/,
      ],
      [() => resubmit(ctx, finishedId, applicationXml(finishedId)), ApplicationFinishedError, /finished/],
      [() => reset(ctx, finishedId), ApplicationFinishedError, /finished/],
      [() => abandon(ctx, finishedId), ApplicationFinishedError, /finished/],
      [() => pollNow(ctx, finishedId), ApplicationFinishedError, /finished/],
      [() => pollNow(ctx, `nobody-${run}`), UnknownApplicationError, /no application/],
    ]);
  });

  it('unknown landing pages and invalid IPs: refused before any session is created', async function () {
    const { userName } = await getState(ctx, finishedId);
    assert.ok(userName);
    const sso = (ip: string, landing?: string) => createSsoUrl({ userName, ip, landing }, engine.eca);
    await refused([
      [() => sso('203.0.113.7', 'NoSuchPage'), InvalidInputError, /unknown landing page/],
      [() => sso('203.0.113.7', ''), InvalidInputError, /unknown landing page/],
      [() => sso('999.1.1.1'), InvalidInputError, /IPv4 or IPv6/],
      [() => sso('10.0.0.1, 10.0.0.2'), InvalidInputError, /IPv4 or IPv6/],
      [() => sso(''), InvalidInputError, /IPv4 or IPv6/],
      [() => sso('localhost'), InvalidInputError, /IPv4 or IPv6/],
    ]);
    // The same user and a valid IP get a session: what was refused was the input alone.
    assert.match((await sso('203.0.113.7', 'statements')).url, /SID=/);
  });
});

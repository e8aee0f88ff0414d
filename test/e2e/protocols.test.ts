/**
 * One lifecycle, two protocols, end to end: one worker serves two firms of the simulator, X on the XML service
 * and W on the Web API (OAuth 2.0), both from the engine's database. Each firm's applications of every
 * scenario reach their final states, one staff abandon among them; by the simulator's records each has one
 * account, W's calls all went through the Web API (W holds no OpenPGP keys, as a firm that joined on the Web
 * API, so no XML call of W's can even be made), and X's all through the XML service. Each firm's open account is
 * maintained on its firm's protocol, an account opened on the XML service through the Web API once its firm
 * has moved.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createEngineActivities } from '../../activities/engine.js';
import { ensureStatusSweep } from '../../client/sweep.js';
import { startMaintenance } from '../../client/maintenance.js';
import { attemptSignal } from '../../activities/attempt-signal.js';
import { generateCodecKeyring } from '../../codec/keyring.js';
import { applicationWorkflowId, sweepWorkflowId } from '../../domain/workflow-ids.js';
import type { Database } from '../../runtime/database/index.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { EventLog } from '../../runtime/events.js';
import { FirmBrokerages } from '../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../runtime/firms.js';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import { accountApplication } from '../../workflows/index.js';
import { abandonUpdate, provideDocumentsUpdate, stateQuery } from '../../workflows/application/messages.js';
import type { ApplicationInput } from '../../workflows/application/messages.js';
import { recordFixture } from '../support/replay-fixtures.js';
import { applicationXml, storedForms } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { until } from '../support/until.js';
import { registerWebApiClient } from '../support/webapi-clients.js';
import { openSeededDatabase } from '../support/database-template.js';

const FAST: ApplicationInput['settings'] = {
  safetyPollInterval: '1 second',
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
  // A write whose answer was lost is looked for again after a second (doubling).
  createConfirmInterval: '1 second',
};

/** Each scenario's final state; `stalled` is abandoned by staff once it has its account. */
const SCENARIOS = {
  happy: 'open',
  'docs-required': 'open',
  'portal-task': 'open',
  'compliance-rejected': 'rejected',
  stalled: 'abandoned',
} as const;

describe('two protocols: one worker for a firm on the XML service and a firm on the Web API', function () {
  this.timeout(240_000);
  const run = randomUUID().slice(0, 4).toUpperCase();
  const csids = { X: `X${run}`, W: `W${run}`, M: `M${run}` };
  type Firm = keyof typeof csids;
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let dir: string;
  let db: Database;
  let store: FileDocumentStore;
  let admin: FirmRegistry;
  let mKeys: { firmPrivateKey: string; brokeragePublicKey: string };
  let worker: Worker;
  let running: Promise<void>;
  const taskQueue = `protocols-${run}`;
  const keyring = generateCodecKeyring('k1');

  before(async function () {
    env = await devServerEnv();
    sim = await startSimulator({ startTime: await env.currentTimeMs(), timeScale: 20_000 });
    dir = await mkdtemp(join(tmpdir(), 'eca-protocols-'));
    db = await openSeededDatabase(join(dir, 'database'));
    admin = new FirmRegistry(db, { keyring });
    const settings = { baseUrl: sim.url, preferenceUrl: sim.preferenceUrl, firmTypes: ['advisor'] };

    const x = await sim.control.registerFirm({ name: 'firm-X', csid: csids.X });
    await admin.add({
      csid: csids.X,
      name: 'Firm X',
      settings,
      keys: { firmPrivateKey: x.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
    });

    // W: a Web API client the brokerage registered, and no OpenPGP keys at all (a firm that joined on the Web API).
    await sim.control.registerFirm({ name: 'firm-W', csid: csids.W });
    const w = registerWebApiClient(sim, {
      clientId: `client-${run}`,
      csid: csids.W,
      kid: 'w1',
      scopes: ['accounts.read', 'accounts.write'],
    });
    await admin.add({
      csid: csids.W,
      name: 'Firm W',
      settings: {
        ...settings,
        protocol: 'webapi',
        webApi: {
          baseUrl: sim.url,
          clientId: `client-${run}`,
          keyId: 'w1',
          scopes: ['accounts.read', 'accounts.write'],
        },
      },
      keys: { webApiPrivateKey: w.privateKeyPem },
    });

    // M: on the XML service, with a Web API client registered too, moved to it mid-run (the last case).
    const m = await sim.control.registerFirm({ name: 'firm-M', csid: csids.M });
    mKeys = { firmPrivateKey: m.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey };
    await admin.add({ csid: csids.M, name: 'Firm M', settings, keys: mKeys });

    store = new FileDocumentStore(join(dir, 'documents'), { keyring });
    // A firm's change reaches the worker within a fifth of a second.
    const brokerages = new FirmBrokerages(new FirmRegistry(db, { keyring, cacheMs: 200 }), {
      signal: attemptSignal,
      timeoutMs: 5_000,
      database: db,
    });
    const { activities } = createEngineActivities({
      eca: brokerages.dispatcher(),
      store,
      events: new EventLog(db),
      database: db,
      keyring,
      client: env.client,
      webApi: brokerages.protocols(),
    });
    worker = await createEngineWorker({ connection: env.nativeConnection, taskQueue, activities });
    running = worker.run();
  });

  after(async function () {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await running?.catch(() => undefined);
    await sim?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function started(
    firm: Firm,
    scenario: string,
    suffix = '',
  ): Promise<WorkflowHandle<typeof accountApplication>> {
    const externalId = `${scenario}-${firm}${suffix}-${run}`;
    const application = await store.put(new TextEncoder().encode(applicationXml(externalId)));
    return env.client.workflow.start(accountApplication, {
      taskQueue,
      workflowId: applicationWorkflowId(csids[firm], externalId),
      args: [{ csid: csids[firm], externalId, application, settings: FAST }],
    });
  }

  /** Where an application stands; an abandoned one stays open to a reset, so its state says it. */
  async function finalOf(handle: WorkflowHandle<typeof accountApplication>, expected: string) {
    if (expected !== 'abandoned') return handle.result();
    return until(`${handle.workflowId} abandoned`, async () => {
      const view = await handle.query(stateQuery);
      return view.lifecycleState === 'abandoned' ? { outcome: 'abandoned', accountId: view.accountId } : undefined;
    });
  }

  /** Staff's part: documents for docs-required, an abandon for stalled. */
  async function staffAct(scenario: string, handle: WorkflowHandle<typeof accountApplication>): Promise<void> {
    if (scenario === 'docs-required') {
      await until('asks for documents', async () =>
        (await handle.query(stateQuery)).lifecycleState === 'needsDocuments' ? true : undefined,
      );
      await handle.executeUpdate(provideDocumentsUpdate, { args: [await storedForms(store, ['8001', '8002'])] });
    }
    if (scenario === 'stalled') {
      await until('has its account', async () => ((await handle.query(stateQuery)).accountId ? true : undefined));
      await handle.executeUpdate(abandonUpdate, { args: [{ reason: 'the client withdrew' }] });
    }
  }

  it('drives each firm’s applications of every scenario to their final states, each on its own protocol', async function () {
    const handles: Array<{ firm: Firm; scenario: string; handle: WorkflowHandle<typeof accountApplication> }> = [];
    for (const firm of ['X', 'W'] as const) {
      for (const scenario of Object.keys(SCENARIOS))
        handles.push({ firm, scenario, handle: await started(firm, scenario) });
    }
    await Promise.all(handles.map(({ scenario, handle }) => staffAct(scenario, handle)));

    for (const { firm, scenario, handle } of handles) {
      const expected = SCENARIOS[scenario as keyof typeof SCENARIOS];
      const result = await finalOf(handle, expected);
      assert.equal(result.outcome, expected, `${firm}'s ${scenario} ended ${result.outcome}`);
      const records = sim.control.records({ csid: csids[firm], externalId: `${scenario}-${firm}-${run}` });
      const [created] = records.externalIds;
      assert.equal(created?.accountsCreated, 1, `${firm}'s ${scenario}: one account`);
      assert.equal(created?.accounts[0]?.accountId, result.accountId, `${firm}'s ${scenario}: the workflow's account`);
      if (firm === 'W') await recordFixture(`webapi-application-${scenario}`, () => handle.fetchHistory());
    }

    const calls = sim.control.calls();
    const webApiCreates = calls['webapi POST /gw/api/v1/accounts'] ?? 0;
    assert.equal(
      webApiCreates,
      Object.keys(SCENARIOS).length,
      `W's creates through the Web API: ${JSON.stringify(calls)}`,
    );
    assert.equal(
      calls.create,
      Object.keys(SCENARIOS).length,
      `X's creates through the XML service: ${JSON.stringify(calls)}`,
    );
    // W's documents and abandon went as Web API requests, X's as update requests.
    const requests = (firm: Firm) =>
      sim.control
        .records({ csid: csids[firm] })
        .accounts.flatMap((account) => account.requests.map((r) => r.functionName));
    for (const firm of ['X', 'W'] as const) {
      assert.ok(requests(firm).includes('DocumentSubmission'), `${firm}: ${requests(firm).join(', ')}`);
      assert.ok(requests(firm).includes('AbandonAccount'), `${firm}: ${requests(firm).join(', ')}`);
    }
    assert.ok((calls['webapi PATCH /gw/api/v1/accounts'] ?? 0) >= 2, JSON.stringify(calls));
    assert.ok((calls.update ?? 0) >= 2, JSON.stringify(calls));
  });

  /** One update function for the account, on the firm's protocol, followed to its decision. */
  async function maintained(firm: Firm, accountId: string, protocol: 'xml' | 'webapi') {
    const ctx = { client: env.client, store, csid: csids[firm], taskQueue, pollIntervalMs: 1_000 };
    const started = await startMaintenance(ctx, {
      accountId,
      firmType: 'advisor',
      functionName: 'ChangeBaseCurrency',
      protocol,
      body: protocol === 'webapi' ? '{ "newBaseCurrency": "EUR" }' : '<NewBaseCurrency>EUR</NewBaseCurrency>',
    });
    const result = await started.handle.result();
    await recordFixture(`${protocol === 'webapi' ? 'webapi-' : ''}maintenance-processed`, () =>
      started.handle.fetchHistory(),
    );
    const { requests } = sim.control
      .records({ csid: csids[firm] })
      .accounts.find((account) => account.accountId === accountId)!;
    return { result, requests: requests.filter((request) => request.functionName === 'ChangeBaseCurrency') };
  }

  it('maintains each firm’s open account on its own protocol, followed to PROCESSED there', async function () {
    const accounts = await Promise.all(
      (['X', 'W'] as const).map(async (firm) => (await (await started(firm, 'happy', '-maint')).result()).accountId!),
    );
    sim.control.resetCalls();
    const [x, w] = await Promise.all([maintained('X', accounts[0]!, 'xml'), maintained('W', accounts[1]!, 'webapi')]);
    for (const [firm, { result, requests }, via] of [
      ['X', x, 'xml'],
      ['W', w, 'webapi'],
    ] as const) {
      assert.equal(result.status, 'PROCESSED', `${firm}: ${JSON.stringify(result)}`);
      assert.deepEqual(
        requests.map((request) => request.via),
        [via],
        `${firm}: one request, through ${via}`,
      );
    }
    const calls = sim.control.calls();
    assert.equal(calls['webapi PATCH /gw/api/v1/accounts'], 1, JSON.stringify(calls));
    assert.equal(calls.update, 1, JSON.stringify(calls));
    assert.equal(w.result.responseFile, w.requests[0]!.requestId, "W's request followed by its id");
  });

  it('wakes the Web API firm’s waiting applications from its status sweep, read through the Web API', async function () {
    // Their own reads are a day away: the sweep wakes them.
    const sweptSettings = { ...FAST, safetyPollInterval: '1 day' };
    await ensureStatusSweep({
      client: env.client,
      csid: csids.W,
      taskQueue,
      sweepInterval: 2_000,
      settings: sweptSettings,
    });
    sim.control.resetCalls();
    const handles = await Promise.all(
      ['happy', 'compliance-rejected'].map(async (scenario) => {
        const externalId = `${scenario}-swept-${run}`;
        const application = await store.put(new TextEncoder().encode(applicationXml(externalId)));
        return env.client.workflow.start(accountApplication, {
          taskQueue,
          workflowId: applicationWorkflowId(csids.W, externalId),
          args: [{ csid: csids.W, externalId, application, settings: sweptSettings }],
        });
      }),
    );
    const outcomes = await Promise.all(handles.map(async (handle) => (await handle.result()).outcome));
    assert.deepEqual(outcomes, ['open', 'rejected']);
    // Woken by the sweep: its signals are in the histories, and its reads went through the Web API.
    for (const handle of handles) {
      const events = (await handle.fetchHistory()).events ?? [];
      const woken = events.filter(
        (event) => event.workflowExecutionSignaledEventAttributes?.signalName === 'accountObserved',
      );
      assert.ok(woken.length > 0, `${handle.workflowId}: no accountObserved signal`);
    }
    const calls = sim.control.calls();
    assert.ok((calls['webapi GET /gw/api/v1/accounts/status'] ?? 0) > 0, JSON.stringify(calls));
    assert.equal(calls.getAccountStatus ?? 0, 0, `no XML status read: ${JSON.stringify(calls)}`);
    await recordFixture('webapi-firm-sweep', () =>
      env.client.workflow.getHandle(sweepWorkflowId(csids.W)).fetchHistory(),
    );
  });

  it('moves a firm to the Web API mid-run: its running applications end on the XML service, its new ones start on the Web API', async function () {
    const before = { 'docs-required': 'open', stalled: 'abandoned', happy: 'open', 'compliance-rejected': 'rejected' };
    const after = { happy: 'open', 'docs-required': 'open', 'compliance-rejected': 'rejected' };
    const running = await Promise.all(
      Object.keys(before).map(async (scenario) => ({ scenario, handle: await started('M', scenario, '-before') })),
    );
    // Each running application has its account on the XML service before the firm moves.
    await Promise.all(
      running.map(({ handle }) =>
        until(`${handle.workflowId} has its account`, async () =>
          (await handle.query(stateQuery)).accountId ? true : undefined,
        ),
      ),
    );

    // The move: the firm's Web API client and key, then its protocol.
    const m = registerWebApiClient(sim, { clientId: `m-${run}`, csid: csids.M, kid: 'm1' });
    await admin.rotateKeys(csids.M, { ...mKeys, webApiPrivateKey: m.privateKeyPem });
    await admin.update(csids.M, {
      settings: { protocol: 'webapi', webApi: { baseUrl: sim.url, clientId: `m-${run}`, keyId: 'm1' } },
    });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const fresh = await Promise.all(
      Object.keys(after).map(async (scenario) => ({ scenario, handle: await started('M', scenario, '-after') })),
    );
    // Staff act after the move: documents and an abandon for the running ones, documents for a new one.
    await Promise.all([...running, ...fresh].map(({ scenario, handle }) => staffAct(scenario, handle)));

    const check = async (group: typeof running, expected: Record<string, string>, via: 'xml' | 'webapi') => {
      for (const { scenario, handle } of group) {
        const result = await finalOf(handle, expected[scenario]!);
        assert.equal(result.outcome, expected[scenario], `${handle.workflowId} ended ${result.outcome}`);
        const externalId = handle.workflowId.slice(handle.workflowId.indexOf(scenario));
        const made = sim.control.records({ csid: csids.M, externalId }).externalIds[0];
        assert.equal(made?.accountsCreated, 1, `${externalId}: one account, none lost or made twice`);
        assert.equal(made?.accounts[0]?.via, via, `${externalId}: created through ${via}`);
        const { requests } = sim.control
          .records({ csid: csids.M })
          .accounts.find((account) => account.accountId === result.accountId)!;
        for (const request of requests) assert.equal(request.via, via, `${externalId}: ${request.functionName}`);
      }
    };
    await check(running, before, 'xml');
    await check(fresh, after, 'webapi');

    // An account opened on the XML service is maintained on the firm's protocol of now: the Web API.
    const opened = running.find(({ scenario }) => scenario === 'happy')!;
    const { result, requests } = await maintained('M', (await opened.handle.result()).accountId!, 'webapi');
    assert.equal(result.status, 'PROCESSED', JSON.stringify(result));
    assert.deepEqual(
      requests.map((request) => request.via),
      ['webapi'],
    );
  });

  it('rides out the Web API’s faults: lost answers of creates and requests, failing reads; each write made once', async function () {
    const rules = [
      { operation: 'webapi POST /gw/api/v1/accounts', kind: 'lost-response' as const, count: 3 },
      { operation: 'webapi PATCH /gw/api/v1/accounts', kind: 'lost-response' as const, count: 2 },
      { operation: 'webapi GET /gw/api/v1/accounts/:accountId/status', kind: 'http503' as const, rate: 0.3 },
      { operation: 'webapi GET /gw/api/v1/requests', kind: 'http500' as const, count: 2 },
      { operation: 'webapi GET /gw/api/v1/accounts', kind: 'drop' as const, count: 1 },
    ];
    for (const rule of rules) sim.control.addFault(rule);
    const expected = {
      happy: 'open',
      'docs-required': 'open',
      stalled: 'abandoned',
      'compliance-rejected': 'rejected',
    };
    const group = await Promise.all(
      Object.keys(expected).flatMap((scenario) =>
        ['-faults-1', '-faults-2'].map(async (suffix) => ({ scenario, handle: await started('W', scenario, suffix) })),
      ),
    );
    try {
      await Promise.all(group.map(({ scenario, handle }) => staffAct(scenario, handle)));
      for (const { scenario, handle } of group) {
        const want = expected[scenario as keyof typeof expected];
        const result = await finalOf(handle, want);
        assert.equal(result.outcome, want, `${handle.workflowId} ended ${result.outcome}`);
        const externalId = handle.workflowId.slice(handle.workflowId.indexOf(scenario));
        const [made] = sim.control.records({ csid: csids.W, externalId }).externalIds;
        assert.equal(made?.createsProcessed, 1, `${externalId}: created once, never sent again`);
        assert.equal(made?.accountsCreated, 1, `${externalId}: one account`);
        const { requests } = sim.control
          .records({ csid: csids.W })
          .accounts.find((account) => account.accountId === result.accountId)!;
        const perFunction = new Map<string, number>();
        for (const request of requests)
          perFunction.set(request.functionName, (perFunction.get(request.functionName) ?? 0) + 1);
        assert.ok(
          [...perFunction.values()].every((n) => n === 1),
          `${externalId}: each request once, ${JSON.stringify([...perFunction])}`,
        );
      }
      // Every lost answer and dropped look-up happened (the rules with a count are gone once used up).
      const left = sim.control.faults().filter((rule) => rule.count !== undefined);
      assert.deepEqual(left, [], JSON.stringify(left));
    } finally {
      sim.control.clearFaults();
    }
  });
});

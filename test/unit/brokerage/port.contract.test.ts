/**
 * The brokerage port's contract (brokerage/port.ts), written once and run against each adapter: the XML
 * service's and the Web API's, each through the firm's settings (runtime/firm-brokerages.ts `brokerageFor`,
 * the one place a protocol is picked) against its side of the simulator, on the embedded database. A new
 * protocol is proven by adding its row to `SIDES` and passing.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { BrokerageError } from '../../../domain/brokerage-errors.js';
import type { Protocol } from '../../../domain/protocols.js';
import type { Database } from '../../../runtime/database/index.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { registerWebApiClient } from '../../support/webapi-clients.js';
import { openSeededDatabase } from '../../support/database-template.js';
import { pdf } from '../../support/engine.js';
import { instrumentEcaClient, webApiCallRecorder } from '../../../workers/metrics.js';
import type { BrokerageCallMetrics } from '../../../workers/metrics.js';

/** One adapter's side: how its firm is registered, and the simulator's names of the calls the contract makes. */
interface Side {
  protocol: Protocol;
  /** Registers the firm `csid` on this protocol, its calls made for the simulator's firm. */
  register: (registry: FirmRegistry, sim: RunningSimulator, csid: string) => Promise<void>;
  calls: { status: string; sso: string; dailyDocuments: string };
}

const SIDES: Side[] = [
  {
    protocol: 'xml',
    register: async (registry, sim) => {
      await registry.add({
        csid: sim.csid,
        name: 'on the XML service',
        settings: { baseUrl: sim.url },
        keys: { firmPrivateKey: sim.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
      });
    },
    calls: { status: 'getAccountStatus', sso: 'sso/create', dailyDocuments: 'submitDocuments' },
  },
  {
    protocol: 'webapi',
    register: async (registry, sim, csid) => {
      const { privateKeyPem } = registerWebApiClient(sim, { clientId: `client-${csid}`, csid: sim.csid });
      await registry.add({
        csid,
        name: 'on the Web API',
        settings: { protocol: 'webapi', webApi: { baseUrl: sim.url, clientId: `client-${csid}`, keyId: 'k1' } },
        keys: {
          firmPrivateKey: sim.keys.firmPrivateKey,
          brokeragePublicKey: sim.keys.brokeragePublicKey,
          webApiPrivateKey: privateKeyPem,
        },
      });
    },
    calls: {
      status: 'webapi GET /gw/api/v1/accounts/:accountId/status',
      sso: 'webapi POST /gw/api/v1/sso-browser-sessions',
      dailyDocuments: 'webapi POST /gw/api/v1/accounts/documents',
    },
  },
];

/** The day's agreements and disclosures, as the forms directory holds them. */
const dailyFiles = () =>
  ['3024', '4304'].map((formNumber) => ({ formNumber, fileName: `${formNumber}.pdf`, data: pdf(formNumber) }));

for (const side of SIDES) {
  describe(`the brokerage port on the ${side.protocol} adapter`, function () {
    this.timeout(60_000);
    let dir: string;
    let db: Database;
    let sim: RunningSimulator;
    let registry: FirmRegistry;
    let brokerages: FirmBrokerages;
    let csid: string;
    let own: string | undefined;
    let theirs: string | undefined;
    /** The worker's call metrics as they are told: `<protocol> <operation> <outcome>`. */
    const metered: string[] = [];
    const metrics = {
      record: (protocol: string, operation: string, _ms: number, outcome: string) =>
        metered.push(`${protocol} ${operation} ${outcome}`),
      batchSize: { record: () => undefined },
    } as unknown as BrokerageCallMetrics;

    before(async function () {
      dir = await mkdtemp(join(tmpdir(), `eca-port-${side.protocol}-`));
      db = await openSeededDatabase(join(dir, 'database'));
      sim = await startSimulator();
      registry = new FirmRegistry(db, { keyring: generateCodecKeyring('k1') });
      csid = side.protocol === 'xml' ? sim.csid : 'PORT-WEBAPI';
      await side.register(registry, sim, csid);
      brokerages = new FirmBrokerages(registry, {
        database: db,
        ssoAllowInsecureLoopback: true,
        timeoutMs: 2_000,
        // As the worker counts them (workers/main.ts).
        instrumentEca: (eca) => instrumentEcaClient(eca, metrics),
        onWebApiCall: webApiCallRecorder(metrics),
      });
      [own] = sim.control.seedAccounts({ count: 1, csid: sim.csid });
      const other = await sim.control.registerFirm({ name: 'another-firm' });
      [theirs] = sim.control.seedAccounts({ count: 1, csid: other.csid });
    });
    afterEach(function () {
      sim.control.clearFaults();
    });
    after(async function () {
      await sim?.close();
      await db?.close();
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it('is picked from the firm’s settings', async function () {
      assert.equal((await brokerages.brokerageFor(csid)).protocol, side.protocol);
    });

    it('says an account of the firm is its own, and another firm’s or an unknown one is not', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      sim.control.resetCalls();
      assert.equal(await brokerage.ownsAccount(own!), true);
      assert.equal(await brokerage.ownsAccount(theirs!), false);
      assert.equal(await brokerage.ownsAccount('U9999999'), false);
      assert.ok((sim.control.calls()[side.calls.status] ?? 0) >= 3, 'asked on its own protocol');
    });

    it('counts each call it makes in the brokerage’s call metrics, under its protocol', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      metered.length = 0;
      await brokerage.ownsAccount(own!);
      const reads = await brokerage.sweepReads({ counted: (call) => call, maxAccountsPerCall: 100 });
      await reads.snapshotsOf([own!]);
      assert.ok(metered.length >= 2, metered.join(', '));
      assert.ok(
        metered.every((call) => call.startsWith(`${side.protocol} `) && call.endsWith(' ok')),
        metered.join(', '),
      );
    });

    it('throws a transport failure when the brokerage cannot answer, never "not the firm’s"', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      sim.control.addFault({ operation: side.calls.status, kind: 'http503' });
      await assert.rejects(brokerage.ownsAccount(own!), (error: unknown) => {
        assert.ok(error instanceof BrokerageError, String(error));
        assert.equal(error.protocol, side.protocol);
        assert.equal(error.kind, 'transport');
        assert.equal(error.status, 503);
        return true;
      });
    });

    it('puts a question off before sending it when the firm’s call budget has no slot soon enough', async function () {
      await registry.update(csid, { settings: { callsPerSecond: 1 } });
      try {
        const paced = new FirmBrokerages(registry, { database: db, callWaitMaxMs: 0 });
        const brokerage = await paced.brokerageFor(csid);
        sim.control.resetCalls();
        const results = await Promise.allSettled([1, 2, 3].map(() => brokerage.ownsAccount(own!)));
        const putOff = results.filter(
          (result) =>
            result.status === 'rejected' &&
            result.reason instanceof BrokerageError &&
            result.reason.kind === 'put-off' &&
            result.reason.notProcessed &&
            result.reason.protocol === side.protocol,
        ).length;
        assert.ok(putOff >= 2, `put off: ${putOff} of 3 (${results.map((result) => result.status).join(', ')})`);
        assert.equal(sim.control.calls()[side.calls.status] ?? 0, 3 - putOff, 'a call put off is never sent');
      } finally {
        await registry.update(csid, { settings: { callsPerSecond: undefined } });
      }
    });

    it('submits the day’s documents once: processed, and recorded by the brokerage', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      const before = sim.control.records({ csid: sim.csid }).documentSubmissions.length;
      sim.control.resetCalls();
      const answer = await brokerage.submitDailyDocuments(dailyFiles(), new Date());
      assert.equal(answer.processed, true, JSON.stringify(answer));
      assert.ok('documents' in answer && Array.isArray(answer.documents));
      assert.equal(sim.control.records({ csid: sim.csid }).documentSubmissions.length, before + 1);
      assert.equal(sim.control.calls()[side.calls.dailyDocuments], 1, 'sent once, on its own protocol');
    });

    it('throws a failure that proves nothing when the submission’s answer is lost: it may have been processed', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      const before = sim.control.records({ csid: sim.csid }).documentSubmissions.length;
      sim.control.addFault({ operation: side.calls.dailyDocuments, kind: 'lost-response', count: 1 });
      await assert.rejects(brokerage.submitDailyDocuments(dailyFiles(), new Date()), (error: unknown) => {
        assert.ok(error instanceof BrokerageError, String(error));
        assert.equal(error.notProcessed, false, error.message);
        return true;
      });
      assert.equal(
        sim.control.records({ csid: sim.csid }).documentSubmissions.length,
        before + 1,
        'the brokerage processed it: a second send would be a second submission',
      );
    });

    it('makes an SSO link for the account holder, and says no for a user name the brokerage does not know', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      const userName = sim.control.account(own!)!.userName;
      sim.control.resetCalls();
      const made = await brokerage.ssoCreate({ userName, ip: '127.0.0.1' });
      assert.equal(made.result, true, made.error);
      assert.ok(made.signedUrl?.url.startsWith(sim.portalUrl), made.signedUrl?.url);
      const refused = await brokerage.ssoCreate({ userName: 'nobody', ip: '127.0.0.1' });
      assert.equal(refused.result, false);
      assert.equal(sim.control.calls()[side.calls.sso], 2, 'both asked on its own protocol');
    });

    it('reads the firm’s accounts in progress for a sweep slot in bulk, and the others by id', async function () {
      const brokerage = await brokerages.brokerageFor(csid);
      // One account decided (open) by the time the slot reads, one still in progress (documents to send).
      const [decided] = sim.control.seedAccounts({ count: 1, csid: sim.csid, prefix: 'happy-decided-' });
      sim.control.advanceClock({ days: 10 });
      const [fresh] = sim.control.seedAccounts({ count: 1, csid: sim.csid, prefix: 'docs-required-fresh-' });
      let calls = 0;
      const reads = await brokerage.sweepReads({
        counted: (call) => {
          calls++;
          return call;
        },
        maxAccountsPerCall: 100,
      });
      assert.ok(reads.pending.has(fresh!), 'an account in progress is listed by the bulk reads');
      assert.ok(!reads.pending.has(decided!) && !reads.pending.has(theirs!));
      const bulk = calls;
      const snapshots = await reads.snapshotsOf([fresh!, decided!, theirs!]);
      const mine = snapshots.get(fresh!);
      assert.ok(mine !== undefined && !(mine instanceof Error), JSON.stringify(mine));
      assert.equal(mine.status, 'P');
      assert.ok(mine.tasks.length > 0, 'with the tasks it waits on');
      const gone = snapshots.get(decided!);
      assert.ok(gone !== undefined && !(gone instanceof Error), JSON.stringify(gone));
      assert.equal(gone.status, 'O', 'an account opened, read by id');
      const other = snapshots.get(theirs!);
      assert.ok(other === undefined || other instanceof Error, 'another firm’s account reads as unknown');
      assert.ok(calls > bulk, 'the accounts the bulk reads did not list were read by id, each call counted');
    });
  });
}

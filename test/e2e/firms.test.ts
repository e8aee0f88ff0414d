/**
 * Firms as tenants, end to end: one onboarding API and one worker serve three firms of the simulator, each
 * with its own CSID and keys from the engine's database (two of them `F…` and `F…-X`, one the other's prefix
 * plus `-`), and a fourth firm whose brokerage never answers. Each firm opens applications, sends
 * maintenance, gets SSO links, reads its events and receives its webhooks; by the simulator's records every call carried its own
 * CSID and signature; no answer of one firm names another's application, account or external id. Then one
 * firm's keys are rotated and another is disabled mid-run: the first goes on, the second's application stops
 * in `blocked` with the reason and its new work is refused, the third is untouched.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import type { Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import type { FastifyInstance } from 'fastify';
import { createEngineActivities } from '../../activities/engine.js';
import { attemptSignal } from '../../activities/attempt-signal.js';
import { buildApi } from '../../api/server.js';
import { registeredFirms } from '../../api/firm.js';
import { databaseKeyVerifier } from '../../api/keys.js';
import { generateCodecKeyring } from '../../codec/keyring.js';
import { generateKeyPair } from '../../eca/crypto.js';
import { createApiKey } from '../../runtime/api-keys.js';
import type { Database } from '../../runtime/database/index.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import { EventLog } from '../../runtime/events.js';
import { FirmBrokerages } from '../../runtime/firm-brokerages.js';
import { FirmRegistry } from '../../runtime/firms.js';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator } from '../../simulator/server.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import { applicationXml } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { until } from '../support/until.js';
import { startWebhookReceiver } from '../support/webhook-receiver.js';
import type { WebhookReceiver } from '../support/webhook-receiver.js';
import { openSeededDatabase } from '../support/database-template.js';

const FAST = {
  safetyPollInterval: '1 second',
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};
/** How long a process answers a firm from memory here: rotations and disables reach the worker this fast. */
const CACHE_MS = 500;

interface Answer {
  status: number;
  body: Record<string, unknown> | undefined;
}

describe('firms as tenants: one API and one worker for three firms (dev server, simulator, embedded database)', function () {
  this.timeout(240_000);
  const run = randomUUID().slice(0, 4).toUpperCase();
  /** P and Q: Q's CSID is P's plus `-X`. R: a third firm. T: a firm whose brokerage never answers. */
  const csids = { P: `F${run}`, Q: `F${run}-X`, R: `G${run}`, T: `H${run}` };
  type Firm = 'P' | 'Q' | 'R';
  const firms: Firm[] = ['P', 'Q', 'R'];
  let env: TestWorkflowEnvironment;
  let sim: RunningSimulator;
  let dir: string;
  let db: Database;
  let admin: FirmRegistry;
  let worker: Worker;
  let running: Promise<void>;
  let app: FastifyInstance;
  let base: string;
  let silent: Server;
  const held: Socket[] = [];
  let silentCalls = 0;
  const keys: Record<string, string> = {};
  const receivers: Partial<Record<'P' | 'Q' | 'R', WebhookReceiver>> = {};
  const keyring = generateCodecKeyring('k1');

  async function call(key: string, method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${key}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
  }

  const start = (firm: Firm | 'T', externalId: string) =>
    call(keys[`${firm}:onboarding`]!, 'POST', '/v1/applications', { applicationXml: applicationXml(externalId) });

  async function stateOf(firm: Firm | 'T', externalId: string): Promise<Record<string, unknown>> {
    const answer = await call(keys[`${firm}:onboarding`]!, 'GET', `/v1/applications/${externalId}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body!;
  }

  async function reaches(firm: Firm | 'T', externalId: string, state: string): Promise<Record<string, unknown>> {
    let last: Record<string, unknown> = {};
    return until(
      `${firm}'s ${externalId} in ${state}`,
      async () => {
        // A read a quarter second: well inside the key's rate limit.
        await new Promise((resolve) => setTimeout(resolve, 250));
        last = await stateOf(firm, externalId);
        return last.lifecycleState === state ? last : undefined;
      },
      120_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last seen: ${JSON.stringify(last)}`);
    });
  }

  before(async function () {
    env = await devServerEnv();
    sim = await startSimulator({ startTime: await env.currentTimeMs(), timeScale: 20_000 });
    dir = await mkdtemp(join(tmpdir(), 'eca-firms-'));
    db = await openSeededDatabase(join(dir, 'database'));
    // A brokerage that takes connections and never answers: firm T's calls time out, and only T's.
    silent = createServer((socket) => {
      silentCalls += 1;
      held.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}/`;

    admin = new FirmRegistry(db, { keyring });
    for (const firm of firms) {
      const registered = await sim.control.registerFirm({ name: `firm-${firm}`, csid: csids[firm] });
      await admin.add({
        csid: csids[firm],
        name: `Firm ${firm}`,
        settings: { baseUrl: sim.url, preferenceUrl: sim.preferenceUrl, firmTypes: ['advisor'] },
        keys: { firmPrivateKey: registered.keys.firmPrivateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
      });
    }
    const silentKeys = await generateKeyPair({ name: 'Silent', email: 'silent@example.test' });
    await admin.add({
      csid: csids.T,
      name: 'Firm T',
      settings: { baseUrl: silentUrl, preferenceUrl: silentUrl },
      keys: { firmPrivateKey: silentKeys.privateKey, brokeragePublicKey: sim.keys.brokeragePublicKey },
    });

    // The worker: every activity's brokerage client is the firm's, from the database.
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring });
    const brokerages = new FirmBrokerages(new FirmRegistry(db, { keyring, cacheMs: CACHE_MS }), {
      signal: attemptSignal,
      timeoutMs: 5_000,
      ssoAllowInsecureLoopback: true,
      database: db,
    });
    const taskQueue = `firms-${run}`;
    const { activities } = createEngineActivities({
      eca: brokerages.dispatcher(),
      store,
      events: new EventLog(db),
      database: db,
      keyring,
      client: env.client,
    });
    worker = await createEngineWorker({ connection: env.nativeConnection, taskQueue, activities });
    running = worker.run();

    // The API, with registry and clients of its own, as another process has.
    app = await buildApi({
      engine: { client: env.client, store, taskQueue, settings: FAST },
      verifyKey: databaseKeyVerifier(db, { cacheMs: CACHE_MS }),
      firms: registeredFirms(
        new FirmBrokerages(new FirmRegistry(db, { keyring, cacheMs: CACHE_MS }), {
          timeoutMs: 5_000,
          ssoAllowInsecureLoopback: true,
          database: db,
        }),
      ),
      database: db,
      keyring,
    });
    base = await app.listen({ host: '127.0.0.1', port: 0 });
    for (const firm of [...firms, 'T'] as const) {
      for (const role of ['onboarding', 'staff'] as const) {
        keys[`${firm}:${role}`] = (await createApiKey(db, { csid: csids[firm], role, name: `${firm} ${role}` })).key;
      }
    }
    // Each firm's own webhook receiver, registered with its own key.
    for (const firm of firms) {
      const receiver = await startWebhookReceiver();
      const created = await call(keys[`${firm}:staff`]!, 'POST', '/v1/webhooks', { url: receiver.url });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      receiver.secret = String(created.body?.secret);
      receivers[firm] = receiver;
    }
  });

  after(async function () {
    for (const receiver of Object.values(receivers)) await receiver.close();
    for (const socket of held) socket.destroy();
    silent?.close();
    await app?.close();
    worker?.shutdown();
    await running;
    await sim?.close();
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** Each firm's external ids, and every account the simulator made for them. */
  const own: Record<Firm, Set<string>> = { P: new Set(), Q: new Set(), R: new Set() };
  const accounts: Record<Firm, string[]> = { P: [], Q: [], R: [] };

  it('opens every firm’s applications on its own CSID and keys, the silent firm holding up none of them', async function () {
    // External ids are the brokerage's across firms (the simulator refuses one another firm used), so each
    // firm has its own; P's `X-happy-…` and Q's `happy-…` were one workflow id under 1.0.0's ids.
    const plan: Array<[Firm, string]> = [
      ['Q', `happy-${run}`],
      ['P', `X-happy-${run}`],
      ['P', `happy-P-${run}`],
      ['R', `happy-R-${run}`],
    ];
    const silentStart = await start('T', `happy-T-${run}`);
    assert.equal(silentStart.status, 201, JSON.stringify(silentStart.body));
    for (const [firm, externalId] of plan) {
      const answer = await start(firm, externalId);
      assert.equal(answer.status, 201, `${firm} ${externalId}: ${JSON.stringify(answer.body)}`);
      own[firm].add(externalId);
    }
    for (const [firm, externalId] of plan) {
      const view = await reaches(firm, externalId, 'open');
      accounts[firm].push(String(view.accountId));
    }
    // T's brokerage took its calls and answered none: T is still at its first step.
    assert.ok(silentCalls > 0, 'firm T called its own brokerage');
    assert.equal((await stateOf('T', `happy-T-${run}`)).lifecycleState, 'validating');

    for (const firm of firms) {
      for (const externalId of own[firm]) {
        // By the simulator's records: one account, made for this firm's CSID (its signature checked with its key).
        const records = sim.control.records({ csid: csids[firm], externalId });
        assert.equal(records.externalIds.length, 1, `${firm} ${externalId}`);
        const [record] = records.externalIds;
        assert.equal(record!.accountsCreated, 1);
        assert.deepEqual(
          record!.accounts.map((account) => account.csid),
          [csids[firm]],
        );
      }
    }
    // The four applications made four accounts.
    assert.equal(new Set(Object.values(accounts).flat()).size, 4);
  });

  it('keeps each firm’s maintenance, SSO links and events to its own accounts', async function () {
    const request = { firmType: 'advisor', functionName: 'ChangeBaseCurrency', body: '<Currency>CHF</Currency>' };
    const mine = await call(keys['P:onboarding']!, 'POST', '/v1/maintenance-requests', {
      ...request,
      accountId: accounts.P[0],
    });
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    const updates = sim.control.calls().update ?? 0;
    const theirs = await call(keys['P:onboarding']!, 'POST', '/v1/maintenance-requests', {
      ...request,
      accountId: accounts.Q[0],
    });
    assert.equal(theirs.status, 404, JSON.stringify(theirs.body));
    assert.equal(sim.control.calls().update ?? 0, updates, 'nothing was sent for the other firm’s account');

    for (const firm of firms) {
      const userName = sim.control.account(accounts[firm][0]!)!.userName;
      const link = await call(keys[`${firm}:onboarding`]!, 'POST', '/v1/sso-links', { userName, ip: '203.0.113.7' });
      assert.equal(link.status, 200, `${firm}: ${JSON.stringify(link.body)}`);
    }
    // P's key asks for Q's account holder: the brokerage knows no such user of P's.
    const otherUser = sim.control.account(accounts.Q[0]!)!.userName;
    const refused = await call(keys['P:onboarding']!, 'POST', '/v1/sso-links', {
      userName: otherUser,
      ip: '203.0.113.7',
    });
    // The brokerage's refusal, passed on (RESULT false says only that it refused): no link.
    assert.equal(refused.status, 502, JSON.stringify(refused.body));
    assert.equal(refused.body?.code, 'BROKERAGE_REFUSED');
    assert.equal(refused.body?.url, undefined);

    for (const firm of firms) {
      const page = await call(keys[`${firm}:staff`]!, 'GET', '/v1/events?after=start&limit=500');
      assert.equal(page.status, 200);
      const events = (
        page.body?.events as Array<{ event: { csid: string; externalId: string; accountId?: string } }>
      ).map((entry) => entry.event);
      assert.ok(events.length > 0, `${firm} has events`);
      const others = firms.filter((other) => other !== firm);
      for (const event of events) {
        assert.equal(event.csid, csids[firm]);
        assert.ok(own[firm].has(event.externalId), `${firm} sees ${event.externalId}`);
        for (const other of others)
          assert.ok(!accounts[other].includes(event.accountId ?? ''), `${firm} sees ${other}'s account`);
      }
      // The firm's webhooks: every application's opening, signed with the firm's secret, and nothing else.
      const receiver = receivers[firm]!;
      await until(`${firm}'s webhooks of its applications' opening`, () =>
        [...own[firm]].every((externalId) =>
          receiver
            .acknowledged()
            .some((delivery) => delivery.event.externalId === externalId && delivery.event.to === 'open'),
        ),
      );
      for (const delivery of receiver.deliveries) {
        assert.ok(delivery.verified, `${firm}: a delivery not signed with its endpoint's secret`);
        assert.equal(delivery.event.csid, csids[firm]);
        assert.ok(own[firm].has(delivery.event.externalId), `${firm}'s receiver got ${delivery.event.externalId}`);
      }
      // Every answer of this firm's reads names none of the others' accounts.
      const listed = JSON.stringify((await call(keys[`${firm}:staff`]!, 'GET', '/v1/applications')).body);
      for (const other of others) for (const account of accounts[other]) assert.ok(!listed.includes(account));
    }
  });

  it('goes on for a firm whose keys rotate, blocks a disabled firm’s application and leaves the third alone', async function () {
    // Q waits on a task the client never does: its application keeps reading its account.
    const waiting = `stalled-${run}`;
    assert.equal((await start('Q', waiting)).status, 201);
    await reaches('Q', waiting, 'awaitingClient');

    // Q's event stream, open before Q is disabled.
    const stream = await fetch(`${base}/v1/events`, {
      headers: { authorization: `Bearer ${keys['Q:staff']!}`, accept: 'text/event-stream' },
    });
    assert.equal(stream.status, 200);
    const streamed = (async () => {
      let text = '';
      for await (const chunk of stream.body!) text += Buffer.from(chunk).toString('utf8');
      return text;
    })();

    // P's keys rotate on both sides; Q is disabled.
    const rotated = await generateKeyPair({ name: 'Firm P 2027', email: 'firm-p@example.test' });
    sim.control.setFirmPublicKey(csids.P, rotated.publicKey);
    const record = await admin.rotateKeys(csids.P, {
      firmPrivateKey: rotated.privateKey,
      brokeragePublicKey: sim.keys.brokeragePublicKey,
    });
    assert.equal(record.keys.version, 2);
    await admin.disable(csids.Q, 'contract ended');

    // The stream ends by itself, its last words the reason.
    assert.match(
      await streamed,
      /event: error\ndata: \{"code":"FIRM_DISABLED","detail":"firm [^"]+ is disabled \(contract ended\)/,
    );
    const blocked = await reaches('Q', waiting, 'blocked');
    assert.match(JSON.stringify(blocked.blocked), /contract ended/);
    const refused = await start('Q', `happy-Q-${run}-2`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body?.code, 'FIRM_DISABLED');

    for (const firm of ['P', 'R'] as const) {
      const externalId = `happy-${firm}-${run}-2`;
      assert.equal((await start(firm, externalId)).status, 201);
      await reaches(firm, externalId, 'open');
      assert.equal(sim.control.records({ csid: csids[firm], externalId }).externalIds[0]?.accountsCreated, 1);
    }
    const unknown = await call(keys['P:onboarding']!, 'POST', '/v1/sso-links', { userName: 'x', ip: '203.0.113.7' });
    assert.notEqual(unknown.body?.code, 'FIRM_DISABLED', 'P is untouched by Q');
  });
});

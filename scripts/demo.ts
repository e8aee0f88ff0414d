/**
 * `npm run demo`: the engine on this machine, end to end. Starts the Temporal dev server with its UI
 * (wired to a codec server, payloads are encrypted), the simulated brokerage with compressed time,
 * and a worker for two firms, one on the brokerage's XML service and one on its Web API (OAuth 2.0); starts N
 * applications a firm spread over the simulator's scenarios; plays the staff (provides
 * documents, corrects an invalid application, abandons and resets a stalled one); shows progress until
 * every application is final, then a summary and where to inspect the histories.
 *
 *   --applications N   how many applications a firm (default 25)
 *   --time-scale X     simulated time per real time (default 20000: a business day in about 4 s)
 *   --keep             leave everything running to explore the UI and the API (Ctrl-C to stop); prints the
 *                      API's address, an onboarding key of the demo firm and a curl line to start from
 *
 * With TEMPORAL_ADDRESS set, the demo uses that server instead of starting one.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { NativeConnection, Runtime } from '@temporalio/worker';
import { createLogger, temporalLogger } from '../runtime/logger.js';
import { FileDocumentStore } from '../runtime/document-store.js';
import { openDatabase } from '../runtime/database/index.js';
import type { Database } from '../runtime/database/index.js';
import { EventLog } from '../runtime/events.js';
import { createEngineActivities } from '../activities/engine.js';
import type { SweepReport } from '../workflows/sweep/messages.js';
import { table } from '../client/cli/output.js';
import { setupNamespace } from '../client/setup.js';
import { codecDataConverter, generateCodecKeyring, startCodecServer, uiCodecEndpointArgs } from '../codec/index.js';
import type { CodecKeyring, RunningCodecServer } from '../codec/index.js';
import { startSimulator } from '../simulator/server.js';
import type { RunningSimulator } from '../simulator/server.js';
import { loadWorkerConfig } from '../runtime/config.js';
import { createEngineWorker } from '../workers/engine-worker.js';
import { DEMO_SETTINGS, runDemoFleet } from './demo-fleet.js';
import { startDemoApi } from './demo-systems.js';
import { demoFirms } from './demo-firms.js';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable } from './temporal-servers.js';

class UsageError extends Error {}

/** What the firm's status sweep did over the demo: the reads every waiting application shares. */
class SweepTally {
  private slots = 0;
  private calls = 0;
  private mostCalls = 0;
  private woken = 0;
  private mostWaiting = 0;

  add(report: SweepReport): void {
    this.slots++;
    this.calls += report.brokerageCalls;
    this.mostCalls = Math.max(this.mostCalls, report.brokerageCalls);
    this.woken += report.woken;
    this.mostWaiting = Math.max(this.mostWaiting, report.waiting);
  }

  summary(): string {
    if (this.slots === 0) return 'Status sweep: no slot ran.';
    const perSlot = (this.calls / this.slots).toFixed(1);
    return (
      `Status sweep: ${this.slots} slots, ${this.calls} brokerage calls (${perSlot} per slot, at most ${this.mostCalls}), ` +
      `${this.woken} applications woken, up to ${this.mostWaiting} waiting at once.`
    );
  }
}

const { values } = parseArgs({
  options: {
    applications: { type: 'string', default: '25' },
    'time-scale': { type: 'string', default: '20000' },
    keep: { type: 'boolean', default: false },
  },
});

function positive(name: string, text: string, max: number): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > max) {
    throw new UsageError(`--${name} must be a number between 1 and ${max}, got "${text}"`);
  }
  return value;
}

/** Run last to first when the demo ends, whatever happens. */
type Cleanups = Array<() => Promise<unknown>>;

/**
 * The Temporal server at TEMPORAL_ADDRESS, or a dev server started here with its UI wired to the codec
 * server (then its UI's address); what it opens joins `cleanups`.
 */
async function connectTemporal(
  keys: CodecKeyring,
  codecServer: RunningCodecServer,
  cleanups: Cleanups,
): Promise<{ nativeConnection: NativeConnection; client: Client; uiAddress?: string }> {
  const address = process.env.TEMPORAL_ADDRESS;
  if (address) {
    console.log(`Using the Temporal server at ${address} (TEMPORAL_ADDRESS).`);
    const nativeConnection = await NativeConnection.connect({ address });
    const connection = await Connection.connect({ address });
    const client = new Client({ connection, dataConverter: codecDataConverter(keys) });
    cleanups.unshift(
      () => nativeConnection.close(),
      () => connection.close(),
    );
    await setupNamespace(connection, { namespace: 'default', log: (line) => console.log(line) });
    return { nativeConnection, client };
  }
  console.log('Starting the Temporal dev server with its UI...');
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: await devServerExecutable(),
      ui: true,
      extraArgs: [...DEV_SERVER_EXTRA_ARGS, ...uiCodecEndpointArgs(codecServer)],
    },
    client: { dataConverter: codecDataConverter(keys) },
  });
  cleanups.unshift(() => env.teardown());
  await setupNamespace(env.connection, { namespace: 'default' });
  const [host = '127.0.0.1', port = '7233'] = env.address.split(':');
  const uiAddress = `http://${host === '127.0.0.1' ? 'localhost' : host}:${Number(port) + 1000}`;
  codecServer.allowOrigin(uiAddress);
  codecServer.allowOrigin(uiAddress.replace('localhost', '127.0.0.1'));
  return { nativeConnection: env.nativeConnection, client: env.client, uiAddress };
}

/**
 * The engine's database, embedded: the worker writes the applications' events, the API serves them.
 * Closed after the worker and the API have stopped (they are stopped first), before the directory goes.
 */
async function openDemoDatabase(dir: string, cleanups: Cleanups): Promise<Database> {
  const database = await openDatabase(`pglite:${join(dir, 'database')}`);
  cleanups.unshift(() => database.close());
  return database;
}

/** The brokerage's side: calls per operation, and the accounts made (and made twice), from the simulator's records. */
function brokerageSummary(sim: RunningSimulator): string {
  const calls = Object.entries(sim.control.calls()).filter(([, n]) => n > 0);
  const made = sim.control.records().externalIds;
  const second = made.filter((entry) => entry.accountsCreated > 1).length;
  const accounts = made.reduce((sum, entry) => sum + entry.accountsCreated, 0);
  return (
    `${table(
      ['BROKERAGE OPERATION', 'CALLS'],
      calls.map(([op, n]) => [op, String(n)]),
    )}\n\n` + `Accounts: ${accounts} made, ${second} second accounts for an external id (simulator's records).`
  );
}

/** What the applications told their firm: the events in the log, by type (docs/integrate.md, "Follow your applications"). */
async function eventsSummary(database: Database): Promise<string> {
  const rows = await database.query<{ type: string; count: string }>(
    'SELECT type, count(*) AS count FROM events GROUP BY type ORDER BY count(*) DESC, type',
  );
  const total = rows.reduce((sum, row) => sum + Number(row.count), 0);
  const kinds = rows.map((row) => `${row.type.replace(/^application\./, '')} ${row.count}`).join(', ');
  return `Events: ${total} in the log (${kinds}); follow them with /v1/events or webhooks.`;
}

/**
 * --keep: everything stays up (the API listening) until Ctrl-C. Prints the API's address, the demo firm's
 * onboarding key and a request that works, to explore the API by hand; the key is printed only here, and
 * lives as long as this process and its temporary database.
 */
async function keepRunning(api: { url: string; onboardingKey: string }): Promise<void> {
  console.log(`\nAPI: ${api.url}`);
  console.log(`Onboarding API key: ${api.onboardingKey}`);
  console.log(`curl -H "Authorization: Bearer ${api.onboardingKey}" "${api.url}/v1/applications?pageSize=5"\n`);
  console.log('Leaving everything running (--keep); press Ctrl-C to stop.');
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

async function main(): Promise<number> {
  const count = positive('applications', values.applications, 5000);
  const timeScale = positive('time-scale', values['time-scale'], 1_000_000);
  const started = Date.now();
  Runtime.install({ logger: temporalLogger(createLogger({ name: 'eca-demo', level: 'WARN' })) });

  const keys = generateCodecKeyring('demo');
  const codecServer = await startCodecServer({ keys, token: randomBytes(24).toString('hex') });
  const dir = await mkdtemp(join(tmpdir(), 'eca-demo-'));
  const cleanups: Cleanups = [() => rm(dir, { recursive: true, force: true }), () => codecServer.close()];

  try {
    const { nativeConnection, client, uiAddress } = await connectTemporal(keys, codecServer, cleanups);

    const sim = await startSimulator({ timeScale });
    cleanups.unshift(() => sim.close());
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring: keys });
    const sweeps = new SweepTally();
    const database = await openDemoDatabase(dir, cleanups);
    // Two firms, one on each of the brokerage's protocols, served by the one worker.
    const { firms, brokerages } = await demoFirms(sim, database, keys);
    const { activities } = createEngineActivities({
      eca: brokerages.dispatcher(),
      webApi: brokerages.protocols(),
      store,
      client,
      events: new EventLog(database),
      // Webhook endpoints and deadline policies of the demo's firm, secrets sealed under the demo's keys.
      database,
      keyring: keys,
      onSweep: (report) => sweeps.add(report),
    });
    const taskQueue = `eca-demo-${randomUUID().slice(0, 8)}`;
    // The worker process's defaults (runtime/config.ts): the demo runs the engine as production does.
    const defaults = loadWorkerConfig({});
    const worker = await createEngineWorker({
      connection: nativeConnection,
      taskQueue,
      codec: keys,
      activities,
      tuning: { maxCachedWorkflows: defaults.worker.maxCachedWorkflows },
    });
    const running = worker.run();
    cleanups.unshift(async () => {
      // Ctrl-C already makes the SDK drain the worker (its default shutdown signals).
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    });
    console.log(`Simulated brokerage at ${sim.url} (${timeScale}x time); worker on "${taskQueue}".`);
    console.log(`Firms: ${firms.map((firm) => firm.label).join('; ')}.`);

    // Each firm's onboarding system goes through the onboarding API, as a partner firm's would.
    const engine = { client, store, taskQueue, settings: DEMO_SETTINGS };
    const apis = await Promise.all(firms.map((firm) => startDemoApi(engine, firm.csid, database, keys)));
    for (const api of apis) cleanups.unshift(() => api.close());
    const [api] = apis;
    console.log(`Onboarding API at ${api!.url} (OpenAPI at ${api!.url}/openapi.json, reference at ${api!.url}/docs).`);
    const fleets = await Promise.all(
      firms.map((firm, i) => runDemoFleet(apis[i]!.system, { count, label: firm.label })),
    );
    if (fleets.some((fleet) => !fleet.finished)) {
      console.error('The demo did not finish within 10 minutes.');
      return 1;
    }
    const failed = fleets.flatMap((fleet) => fleet.failed);
    for (const [i, fleet] of fleets.entries()) console.log(`\n${firms[i]!.label}:\n${fleet.summary}`);
    console.log(`\n${brokerageSummary(sim)}`);
    console.log(sweeps.summary());
    console.log(await eventsSummary(database));
    console.log(
      `Elapsed: ${((Date.now() - started) / 1000).toFixed(1)} s for ${count * firms.length} applications (${count} a firm).`,
    );
    if (uiAddress) {
      console.log(
        `Temporal UI: ${uiAddress}/namespaces/default/workflows?query=${encodeURIComponent(`WorkflowType='accountApplication'`)}`,
      );
      console.log('Payloads are encrypted; the UI decodes them through the demo codec server.');
    }
    if (failed.length > 0) console.error(`${failed.length} application(s) did not reach their expected state.`);

    if (values.keep) await keepRunning(api!);
    return failed.length > 0 ? 1 : 0;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => undefined);
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`demo: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);

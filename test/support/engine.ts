/**
 * The engine assembled for tests: a real simulator over HTTP, the eca/ client, a filesystem document
 * store and a worker with the engine's real activities, on a Temporal test environment.
 *
 * On the time-skipping server, workflow time jumps hours in an instant; the simulator's clock follows
 * it: before each activity runs, the simulator is advanced to the time Temporal scheduled it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { Client } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createStatusReader } from '../../activities/status.js';
import type { StatusReader } from '../../activities/status.js';
import { attemptSignal } from '../../activities/attempt-signal.js';
import { FileDocumentStore } from '../../runtime/document-store.js';
import type { DocumentStore } from '../../runtime/document-store.js';
import type { FormDocument } from '../../domain/documents.js';
import { createEngineActivities } from '../../activities/engine.js';
import type { StepFailureBounds } from '../../runtime/defaults.js';
import type { DailyDocumentsLedger } from '../../activities/forms.js';
import { APPLICATION_XML_EXAMPLE } from '../../eca/index.js';
import type { EcaClient, EcaClientOptions } from '../../eca/index.js';
import { ecaClientFor } from '../../simulator/client.js';
import { startSimulator } from '../../simulator/server.js';
import type { RunningSimulator, SimulatorOptions } from '../../simulator/server.js';
import { createEngineWorker } from '../../workers/engine-worker.js';
import type { WorkerDeployment } from '../../workers/engine-worker.js';
import type { CodecKeyring } from '../../codec/keyring.js';
import { codecDataConverter } from '../../codec/data-converter.js';
import { RecordedEvents } from './events.js';
import { endTestWorkflows, timeSkippingEnv } from './servers.js';
import { sharedEmbeddedDatabase } from './databases.js';
import type { Database } from '../../runtime/database/index.js';
import type { EventSink } from '../../activities/events.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { accountApplication } from '../../workflows/index.js';
import { stateQuery } from '../../workflows/application/messages.js';
import type { ApplicationInput, ApplicationStateView } from '../../workflows/application/messages.js';

export interface EngineHarness {
  sim: RunningSimulator;
  eca: EcaClient;
  store: FileDocumentStore;
  /** Records of the daily document submissions (read by the create step). */
  ledger: DailyDocumentsLedger;
  statusReader: StatusReader;
  /** The lifecycle events the applications wrote. */
  events: RecordedEvents;
  worker: Worker;
  taskQueue: string;
  /** The worker's activities, for a second worker on the same task queue (another build, say). */
  activities: object;
  close(): Promise<void>;
}

export interface EngineOptions {
  /** Advance the simulator's clock to Temporal's before every activity (time-skipping tests). */
  followTemporalClock?: boolean;
  simulator?: SimulatorOptions;
  /** Transport for the eca/ client (e.g. one that loses a response). */
  fetch?: typeof fetch;
  batchWindowMs?: number;
  /** Encrypt payloads with these keys (the client reading the results needs them too). */
  codec?: CodecKeyring;
  /** When an application's failing step is blocked (the worker's defaults otherwise). */
  stepFailureBounds?: StepFailureBounds;
  /** The engine's database (its deadline policies, webhook endpoints, sweep snapshot...); the process's shared one by default. */
  database?: Database;
  /** Paces the brokerage calls (EcaClientOptions.pace), e.g. with the firm's call budget; given the simulator's CSID. */
  pace?: (csid: string) => EcaClientOptions['pace'];
  /** Where the applications write their events: `events` of the harness (in memory) by default, or the event log of a database. */
  events?: EventSink;
  /** Worker Versioning: the worker polls as this build of a worker deployment. */
  deployment?: WorkerDeployment;
  /** Activities in place of the engine's (one that fails, or answers as another build's would), by name; under the worker's interceptors as the engine's own. */
  replace?: Partial<Record<keyof ReturnType<typeof createEngineActivities>['activities'], AnyActivity>>;
}

type AnyActivity = (...args: never[]) => Promise<unknown>;

function followClock<T extends Record<string, AnyActivity>>(activities: T, sim: RunningSimulator): T {
  const wrapped: Record<string, AnyActivity> = {};
  for (const [name, activity] of Object.entries(activities)) {
    wrapped[name] = (...args: never[]) => {
      const scheduledAt = Context.current().info.currentAttemptScheduledTimestampMs;
      const simNow = sim.control.clock().epochMs;
      if (scheduledAt > simNow) sim.control.advanceClock({ ms: scheduledAt - simNow });
      return activity(...args);
    };
  }
  return wrapped as T;
}

export async function startEngine(env: TestWorkflowEnvironment, options: EngineOptions = {}): Promise<EngineHarness> {
  const dir = await mkdtemp(join(tmpdir(), 'eca-engine-'));
  const sim = await startSimulator({ startTime: await env.currentTimeMs(), ...options.simulator });
  const eca = ecaClientFor(sim, {
    timeoutMs: 10_000,
    retry: 0,
    fetch: options.fetch,
    signal: attemptSignal,
    ...(options.pace && { pace: options.pace(sim.csid) }),
  });
  const store = new FileDocumentStore(join(dir, 'documents'), { keyring: options.codec });
  // With time skipping, "today" is the simulator's (Temporal's) day, not the wall clock's.
  const now = options.followTemporalClock ? () => new Date(sim.control.clock().epochMs) : undefined;
  const events = new RecordedEvents();
  const { activities, ledger, statusReader } = createEngineActivities({
    eca,
    store,
    statusReader: createStatusReader(eca, { windowMs: options.batchWindowMs ?? 20, maxBatch: 100 }),
    now,
    events: options.events ?? events,
    database: options.database ?? (await sharedEmbeddedDatabase()),
    // The status sweep lists and signals applications as the worker process does (same codec).
    client: new Client({
      connection: env.connection,
      namespace: env.client.options.namespace,
      ...(options.codec ? { dataConverter: codecDataConverter(options.codec) } : {}),
    }),
  });
  const taskQueue = `engine-${randomUUID()}`;
  const chosen = { ...activities, ...options.replace } as typeof activities;
  const workerActivities = options.followTemporalClock
    ? followClock(chosen as unknown as Record<string, AnyActivity>, sim)
    : chosen;
  const worker = await createEngineWorker({
    connection: env.nativeConnection,
    taskQueue,
    codec: options.codec,
    activities: workerActivities,
    ...(options.stepFailureBounds && { stepFailureBounds: options.stepFailureBounds }),
    ...(options.deployment && { deployment: options.deployment }),
  });
  return {
    sim,
    eca,
    store,
    ledger,
    statusReader,
    events,
    worker,
    taskQueue,
    activities: workerActivities,
    async close() {
      if (env.supportsTimeSkipping) await endTestWorkflows(env, taskQueue, worker);
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A describe's engine on the shared time-skipping server: see {@link timeSkippingEngine}. */
export interface TimeSkippingEngine {
  /** The server of the running test. */
  readonly env: TestWorkflowEnvironment;
  /** Starts the test's engine (the simulator following Temporal's clock); closed after the test. */
  setUp(options?: EngineOptions): Promise<EngineHarness>;
}

/**
 * The engine of a describe's tests on the shared time-skipping server. The server is asked for in each test:
 * one whose clock a test left held has been replaced. After each test its engine is closed, ending the
 * workflows a failed test left open and the worker (they would hold the server's time skipping).
 */
export function timeSkippingEngine(): TimeSkippingEngine {
  let env: TestWorkflowEnvironment | undefined;
  let engine: EngineHarness | undefined;
  beforeEach(async function () {
    env = await timeSkippingEnv();
  });
  afterEach(async function () {
    await engine?.close();
    engine = undefined;
  });
  const current = (): TestWorkflowEnvironment => {
    if (!env) throw new Error('the time-skipping server is asked for before each test');
    return env;
  };
  return {
    get env() {
      return current();
    },
    async setUp(options = {}) {
      engine = await startEngine(current(), { followTemporalClock: true, ...options });
      return engine;
    },
  };
}

/**
 * Starts an application of the simulator's `scenario` (its external id's prefix, or `externalId` as given) on the
 * harness's worker, its XML (the example, or `xml` of the external id) stored first. Per-application polls: the lifecycle's own
 * reads, slot by slot (no status sweep runs on the time-skipping server, which has no visibility queries; the
 * sweep has its own tests, test/e2e/sweep.test.ts).
 */
export async function startApplication(
  env: TestWorkflowEnvironment,
  harness: EngineHarness,
  scenario: string,
  options: { input?: Partial<ApplicationInput>; xml?: (externalId: string) => string; externalId?: string } = {},
): Promise<WorkflowHandle<typeof accountApplication>> {
  const externalId = options.externalId ?? `${scenario}-${randomUUID().slice(0, 8)}`;
  const xml = options.xml?.(externalId) ?? applicationXml(externalId);
  const application = await harness.store.put(new TextEncoder().encode(xml));
  const input = options.input ?? {};
  return env.client.workflow.start(accountApplication, {
    taskQueue: harness.taskQueue,
    workflowId: applicationWorkflowId(harness.sim.csid, externalId),
    args: [
      {
        csid: harness.sim.csid,
        externalId,
        application,
        ...input,
        // Documents are kept: a retention workflow left behind would hold the shared server's time skipping.
        settings: { safetyPollInterval: '15 minutes', documentRetention: null, ...input.settings },
      },
    ],
  });
}

/** The example application with another external id (its prefix picks the simulator's scenario). */
export function applicationXml(externalId: string, edit: (xml: string) => string = (xml) => xml): string {
  return edit(APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`));
}

/** A small valid PDF-like file for a form: content differs per `variant`, so its SHA-1 does too. */
export function pdf(variant: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% ${variant}\n%%EOF\n`);
}

/** The documents staff provide for `formNumbers`: one `pdf` each, put in `store`, named `<form>.pdf`. */
export function storedForms(store: Pick<DocumentStore, 'put'>, formNumbers: string[]): Promise<FormDocument[]> {
  return Promise.all(
    formNumbers.map(async (formNumber) => ({
      ...(await store.put(pdf(formNumber))),
      formNumber,
      fileName: `${formNumber}.pdf`,
    })),
  );
}

/** Lets workflow time pass in steps of 20 minutes (200 at most) until the application reaches `state`. */
export async function waitForState(
  env: TestWorkflowEnvironment,
  handle: WorkflowHandle<typeof accountApplication>,
  state: string,
): Promise<ApplicationStateView> {
  for (let step = 0; step < 200; step++) {
    const view = await handle.query(stateQuery);
    if (view.lifecycleState === state) return view;
    if (view.done) break;
    await env.sleep('20 minutes');
  }
  const view = await handle.query(stateQuery);
  throw new Error(`expected state ${state}, application is ${view.lifecycleState}`);
}

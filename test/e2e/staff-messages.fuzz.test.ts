/**
 * Fuzzing what a Temporal client can send to an application: any update or signal name with any
 * arguments. Property: an update is accepted (a valid input the state takes) or refused with a typed
 * failure (InvalidArgument, NotAllowedInState...), a signal is recorded; the workflow never fails a task
 * and stays running, and nothing reaches the brokerage but what an accepted message asks for.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { getState, startApplication } from '../../client/index.js';
import type { EngineContext } from '../../client/index.js';
import { applicationXml, startEngine } from '../support/engine.js';
import type { EngineHarness } from '../support/engine.js';
import { devServerEnv } from '../support/servers.js';
import { fc, fuzzParameters } from '../support/fuzz.js';
import { expectLog } from '../support/hooks.js';

const NAMES = [
  'abandon',
  'reset',
  'retry',
  'resubmit',
  'provideDocuments',
  'pollNow',
  'accountObserved',
  'abandonn',
  '',
];
const REFUSALS = new Set(['InvalidArgument', 'NotAllowedInState', 'PlaintextRefused']);

/** Inputs near the real ones (the marker's shape, document refs with bad fields) and anything JSON. */
const input = fc.oneof(
  fc.constantFrom({}, { reason: 'x' }, { id: 'status-sweep', deprecated: false }, { reason: 5 }, null, [], 'abandon'),
  fc.record(
    {
      sha1: fc.stringMatching(/^[0-9a-f]{0,41}$/),
      length: fc.integer({ min: -1, max: 1e9 }),
      ref: fc.string({ maxLength: 8 }),
    },
    { requiredKeys: [] },
  ),
  fc.array(fc.record({ formNumber: fc.string({ maxLength: 11 }), fileName: fc.string({ maxLength: 12 }) }), {
    maxLength: 2,
  }),
  fc.jsonValue({ maxDepth: 3 }),
);

describe('fuzz: staff messages a Temporal client can send', function () {
  this.timeout(300_000);
  let env: TestWorkflowEnvironment;
  let engine: EngineHarness;
  let running: Promise<void>;
  let handle: WorkflowHandle;
  // Each refused or unknown signal is logged by the workflow as a warning: expected here, by the hundred.
  const signalLines = expectLog(/^staff signal /);
  // So is each malformed wake-up of the status sweep.
  const wakeUpLines = expectLog(/^accountObserved signal ignored: /);

  before(async function () {
    env = await devServerEnv();
    engine = await startEngine(env, { simulator: { timeScale: 20_000 } });
    running = engine.worker.run();
    const ctx: EngineContext = {
      client: env.client,
      store: engine.store,
      csid: engine.sim.csid,
      taskQueue: engine.taskQueue,
    };
    const settings = { pollIntervals: { tracking: '1 second' }, safetyPollInterval: '1 second' };
    const started = await startApplication(ctx, {
      applicationXml: applicationXml(`stalled-fuzz-${randomUUID().slice(0, 6)}`),
      settings,
    });
    handle = started.handle;
    for (let i = 0; i < 300 && (await getState(ctx, started.externalId)).lifecycleState !== 'awaitingClient'; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  after(async function () {
    await handle?.terminate('test done').catch(() => undefined);
    engine.worker.shutdown();
    await running;
    await engine.close();
    // After the worker stopped: its last log lines are out.
    signalLines.done();
    wakeUpLines.done();
  });

  it('any name and arguments: accepted, or refused with a typed failure; the workflow never fails a task', async function () {
    let accepted = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...NAMES),
        fc.array(input, { maxLength: 2 }),
        fc.boolean(),
        async (name, args, asSignal) => {
          try {
            if (asSignal) {
              await handle.signal(name, ...args);
              return;
            }
            await handle.executeUpdate(name, { args } as never);
            accepted++;
          } catch (error) {
            if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
              // An update name the workflow does not have is refused by the SDK before any handler.
              const unknownName = /^No registered handler for update: /.test(error.cause.message);
              assert.ok(
                REFUSALS.has(error.cause.type ?? '') || unknownName,
                `${name}(${JSON.stringify(args)}): ${error.cause.type} ${error.cause.message}`,
              );
              return;
            }
            // The server refuses some before the workflow sees them (an empty name: INVALID_ARGUMENT).
            const serverRefused = (error as { cause?: { code?: number } }).cause?.code === 3;
            assert.ok(serverRefused, `${name}(${JSON.stringify(args)}): ${String(error)}`);
          }
        },
      ),
      fuzzParameters('staff messages: updates and signals on a running application', 60),
    );
    const description = await handle.describe();
    // A valid abandon (or reset after it) may be among the cases: it is the only state change they may make.
    assert.ok(['RUNNING', 'COMPLETED'].includes(description.status.name), description.status.name);
    const history = await handle.fetchHistory();
    const failedTasks = history.events!.filter((event) => event.workflowTaskFailedEventAttributes);
    assert.equal(failedTasks.length, 0, 'a workflow task failed');
    const updates = Object.values(engine.sim.control.records().accounts).flatMap((account) => account.requests);
    assert.ok(updates.every((request) => ['AbandonAccount', 'ResetAbandonedAccount'].includes(request.functionName)));
    console.log(`      ${accepted} update(s) accepted`);
  });
});

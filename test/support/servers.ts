/**
 * One real Temporal server of each kind per test process, started on first use: the Java time-skipping test
 * server for workflow logic, the CLI dev server for end-to-end runs. A file that needs neither starts neither.
 * A run of one process (`npx mocha <file>`) stops them in its root hook; mocha's parallel workers keep them
 * from file to file and kill them as they exit (a worker's root hooks run per file).
 */
import { WorkflowNotFoundError } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { msToTs } from '@temporalio/common/lib/time.js';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable, testServerExecutable } from '../../scripts/temporal-servers.js';
import { setupNamespace } from '../../client/setup.js';
import { ECA_SEARCH_ATTRIBUTES } from '../../domain/search-attributes.js';
import { until } from './until.js';
import { listProcesses, PROC_AVAILABLE } from '../../scripts/processes/proc.js';
// The servers' workers log through the test logger.
import './temporal-runtime.js';

let timeSkipping: Promise<TestWorkflowEnvironment> | undefined;
let dev: Promise<TestWorkflowEnvironment> | undefined;
/** Time-skipping servers a test left with their clock held: out of use, stopped with the others. */
const retired: TestWorkflowEnvironment[] = [];

export function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  timeSkipping ??= testServerExecutable().then(async (executable) => {
    const env = await startedWithin(() => TestWorkflowEnvironment.createTimeSkipping({ server: { executable } }));
    // The test server takes registrations but has no option for them at start.
    await env.connection.operatorService.addSearchAttributes({
      namespace: 'default',
      searchAttributes: Object.fromEntries(
        ECA_SEARCH_ATTRIBUTES.map((key) => [
          key.name,
          key.type === SearchAttributeType.DATETIME
            ? proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_DATETIME
            : proto.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
        ]),
      ),
    });
    return env;
  });
  return timeSkipping;
}

/**
 * The SDK gives a server 5 s to answer after it is spawned, and a JVM (or the dev server) starting beside a
 * loaded suite on two cores can take longer: a start that timed out so is tried again (three tries), any other
 * failure is thrown.
 */
async function startedWithin(start: () => Promise<TestWorkflowEnvironment>): Promise<TestWorkflowEnvironment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start();
    } catch (error) {
      if (attempt >= 3 || !/did not start within/.test((error as Error).message)) throw error;
      console.log(`      (the time-skipping server did not answer in time, try ${attempt}: starting another)`);
    }
  }
}

/**
 * Ends what a test left on its task queue, so that the next test finds the time-skipping server's
 * clock free: every workflow still open there is terminated, a worker still running (a test that timed
 * out inside `runUntil`) is shut down and awaited, and the clock is probed.
 *
 * The server holds its clock while any workflow or activity task is outstanding, and a workflow
 * terminated with a task in flight never releases that hold (the task's completion is refused). A
 * test that terminates a busy workflow, or times out, can thus leave the clock held for every test
 * after it: when the probe finds it held, the shared server is replaced, and `timeSkippingEnv()` in the
 * next test's `beforeEach` starts a new one.
 */
export async function endTestWorkflows(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  worker?: Worker,
): Promise<void> {
  const namespace = env.client.options.namespace;
  let nextPageToken: Uint8Array | undefined;
  do {
    const page = await env.connection.workflowService.listOpenWorkflowExecutions({
      namespace,
      maximumPageSize: 1000,
      nextPageToken,
    });
    // The listing leaves the task queue out: each execution's description has it.
    await Promise.all(
      page.executions.map(async ({ execution }) => {
        const handle = env.client.workflow.getHandle(execution?.workflowId ?? '', execution?.runId ?? undefined);
        try {
          const { raw } = await handle.describe();
          if (raw.executionConfig?.taskQueue?.name === taskQueue) await handle.terminate('test over');
        } catch (error) {
          if (!(error instanceof WorkflowNotFoundError)) throw error; // closed meanwhile
        }
      }),
    );
    nextPageToken = page.nextPageToken?.length ? page.nextPageToken : undefined;
  } while (nextPageToken);
  if (worker) await stopWorker(worker);
  if (env.supportsTimeSkipping && !(await clockSkips(env))) {
    console.warn("    (the time-skipping server's clock was still held after this test: a new server serves the next)");
    await dropTimeSkippingEnv(env);
  }
}

async function stopWorker(worker: Worker): Promise<void> {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await until(
    'the test worker to stop',
    () => !['RUNNING', 'STOPPING', 'DRAINING', 'DRAINED'].includes(worker.getState()),
    30_000,
  );
}

/**
 * Whether an hour of server time passes at once (a free clock) rather than with the wall clock (a held
 * one). The call is bounded (the SDK's withDeadline), so that none is left pending on a server about to be torn down.
 */
async function clockSkips(env: TestWorkflowEnvironment): Promise<boolean> {
  try {
    await env.connection.withDeadline(Date.now() + CLOCK_PROBE_MS, () =>
      env.connection.testService!.unlockTimeSkippingWithSleep({ duration: msToTs('1 hour') }),
    );
    return true;
  } catch {
    return false;
  }
}

/**
 * How long the probe lets an hour of server time take before it calls the clock held: a free clock answers
 * at once, but on a loaded machine (three test files at a time on two cores) a 5-s probe replaced free servers.
 */
const CLOCK_PROBE_MS = 10_000;

/**
 * Takes the server out of use: the next `timeSkippingEnv()` starts another. It keeps running until the
 * file ends (calls a timed-out test left pending on it would otherwise fail on a closed channel).
 */
async function dropTimeSkippingEnv(env: TestWorkflowEnvironment): Promise<void> {
  if (timeSkipping && (await timeSkipping) === env) timeSkipping = undefined;
  retired.push(env);
}

/** The engine's namespace setup (`eca setup`), as every server gets it. */
async function setUp(env: TestWorkflowEnvironment): Promise<TestWorkflowEnvironment> {
  await setupNamespace(env.connection, { namespace: 'default' });
  return env;
}

export function devServerEnv(): Promise<TestWorkflowEnvironment> {
  dev ??= devServerExecutable().then(async (executable) =>
    setUp(
      await startedWithin(() =>
        TestWorkflowEnvironment.createLocal({ server: { executable, extraArgs: DEV_SERVER_EXTRA_ARGS } }),
      ),
    ),
  );
  return dev;
}

/**
 * A dev server of its own (the caller tears it down), e.g. with its UI and `--ui-codec-endpoint`:
 * for tests that need options the shared one does not have.
 */
export async function startDevServerEnv(
  options: { ui?: boolean; extraArgs?: string[] } = {},
): Promise<TestWorkflowEnvironment> {
  const executable = await devServerExecutable();
  return setUp(
    await startedWithin(() =>
      TestWorkflowEnvironment.createLocal({
        server: {
          executable,
          ui: options.ui ?? false,
          extraArgs: [...DEV_SERVER_EXTRA_ARGS, ...(options.extraArgs ?? [])],
        },
      }),
    ),
  );
}

/** Stops the servers taken out of use during the file that ended (a parallel worker keeps the others). */
export async function stopRetiredServers(): Promise<void> {
  await Promise.allSettled(retired.splice(0).map((env) => env.teardown()));
}

export async function stopServers(): Promise<void> {
  const envs = [timeSkipping, dev, ...retired.splice(0).map((env) => Promise.resolve(env))];
  timeSkipping = dev = undefined;
  const results = await Promise.allSettled(envs.map(async (env) => (env ? (await env).teardown() : undefined)));
  for (const result of results) {
    // A test that timed out may leave a worker holding the connection; the server process still stops.
    if (result.status === 'rejected') console.warn(`teardown: ${String(result.reason)}`);
  }
}

/** The environment an `eca` command needs against a dev server, a simulator and a document store (no codec). */
export function cliEnv(target: { address: string; csid: string; taskQueue: string; store: string }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TEMPORAL_ADDRESS: target.address,
    ECA_CSID: target.csid,
    ECA_TASK_QUEUE: target.taskQueue,
    ECA_DOCUMENT_STORE: target.store,
    ECA_POLL_INTERVAL: '1 second',
    ECA_CODEC_DISABLED: 'true',
  };
}

/**
 * The servers this process started, killed as it exits. The SDK stops a server on teardown only, and a mocha
 * worker exits without one: a Java test server and a dev server were both seen outliving their process.
 * Synchronous, for an exit handler.
 */
function killServerProcesses(): void {
  if (!PROC_AVAILABLE) return;
  for (const info of listProcesses()) {
    if (info.ppid !== process.pid || !/TestServer|temporal/.test(info.command)) continue;
    try {
      process.kill(info.pid, 'SIGKILL');
    } catch {
      // Gone meanwhile.
    }
  }
}

process.once('exit', killServerProcesses);

/**
 * One real Temporal server of each kind per test run, started on first use and stopped by the root
 * hook: the Java time-skipping test server for workflow logic, the CLI dev server for end-to-end runs.
 */
import { SearchAttributeType } from '@temporalio/common';
import proto from '@temporalio/proto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable, testServerExecutable } from '../../scripts/temporal-servers.js';
import { setupNamespace } from '../../client/setup.js';
import { ECA_SEARCH_ATTRIBUTES } from '../../domain/search-attributes.js';

let timeSkipping: Promise<TestWorkflowEnvironment> | undefined;
let dev: Promise<TestWorkflowEnvironment> | undefined;

export function timeSkippingEnv(): Promise<TestWorkflowEnvironment> {
  timeSkipping ??= testServerExecutable().then(async (executable) => {
    const env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable } });
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

/** The engine's namespace setup (`eca setup`), as every server gets it. */
async function setUp(env: TestWorkflowEnvironment): Promise<TestWorkflowEnvironment> {
  await setupNamespace(env.connection, { namespace: 'default' });
  return env;
}

export function devServerEnv(): Promise<TestWorkflowEnvironment> {
  dev ??= devServerExecutable().then(async (executable) =>
    setUp(await TestWorkflowEnvironment.createLocal({ server: { executable, extraArgs: DEV_SERVER_EXTRA_ARGS } })),
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
  return setUp(
    await TestWorkflowEnvironment.createLocal({
      server: {
        executable: await devServerExecutable(),
        ui: options.ui ?? false,
        extraArgs: [...DEV_SERVER_EXTRA_ARGS, ...(options.extraArgs ?? [])],
      },
    }),
  );
}

/** Builds or fetches both servers up front, so a first run's long build never counts against a test's timeout. */
export async function provisionServers(): Promise<void> {
  await Promise.all([devServerExecutable(), testServerExecutable()]);
}

export async function stopServers(): Promise<void> {
  const envs = [timeSkipping, dev];
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

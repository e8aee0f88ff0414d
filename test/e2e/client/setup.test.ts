/** `eca setup` and `setupNamespace` on the dev server: created once, idempotent, races, conflicts, verified. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { InvalidInputError } from '../../../client/errors.js';
import { protoDuration, protoDurationMs } from '../../../client/protobuf-duration.js';
import { parseRetention, setupNamespace, SetupError } from '../../../client/setup.js';
import type { SetupResult } from '../../../client/setup.js';
import { durationMs } from '../../../domain/durations.js';
import { ECA_SEARCH_ATTRIBUTES } from '../../../domain/search-attributes.js';
import { devServerEnv } from '../../support/servers.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));
const DAY = 86_400_000;
const { IndexedValueType } = proto.temporal.api.enums.v1;

function eca(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ECA, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('namespace setup (eca setup) on the dev server', function () {
  this.timeout(60_000);
  let env: TestWorkflowEnvironment;
  const fresh = () => `setup-${randomUUID().slice(0, 8)}`;

  before(async function () {
    env = await devServerEnv();
  });

  async function retentionOf(namespace: string): Promise<number> {
    const described = await env.connection.workflowService.describeNamespace({ namespace });
    return protoDurationMs(described.config?.workflowExecutionRetentionTtl);
  }

  it('registers a missing namespace with its retention and every search attribute, then changes nothing', async function () {
    const namespace = fresh();
    const first = await setupNamespace(env.connection, { namespace, retention: '3d' });
    assert.equal(first.namespaceCreated, true);
    assert.equal(first.retentionMs, 3 * DAY);
    assert.deepEqual(first.searchAttributesCreated.sort(), ECA_SEARCH_ATTRIBUTES.map((key) => key.name).sort());
    assert.equal(await retentionOf(namespace), 3 * DAY);
    const { customAttributes } = await env.connection.operatorService.listSearchAttributes({ namespace });
    assert.equal(customAttributes?.EcaReplaceFormsBy, IndexedValueType.INDEXED_VALUE_TYPE_DATETIME);
    assert.equal(customAttributes?.EcaLifecycleState, IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD);

    const again = await setupNamespace(env.connection, { namespace, retention: '3d' });
    assert.equal(again.namespaceCreated, false);
    assert.equal(again.retentionChangedFrom, undefined);
    assert.deepEqual(again.searchAttributesCreated, []);
  });

  it('brings an existing namespace to the retention asked for, and keeps it when none is asked', async function () {
    const namespace = fresh();
    await setupNamespace(env.connection, { namespace, retention: '2d' });
    const changed = await setupNamespace(env.connection, { namespace, retention: '5d' });
    assert.equal(changed.retentionChangedFrom, 2 * DAY);
    assert.equal(await retentionOf(namespace), 5 * DAY);
    const kept = await setupNamespace(env.connection, { namespace });
    assert.equal(kept.retentionMs, 5 * DAY);
    assert.equal(kept.retentionChangedFrom, undefined);
  });

  it('takes "already exists" from a concurrent setup as success', async function () {
    const namespace = fresh();
    const results = await Promise.all(
      Array.from({ length: 3 }, () => setupNamespace(env.connection, { namespace, retention: '4d' })),
    );
    assert.equal(results.filter((result: SetupResult) => result.namespaceCreated).length, 1, 'registered once');
    assert.equal(await retentionOf(namespace), 4 * DAY);
  });

  it('refuses a search attribute registered with another type, naming it', async function () {
    const namespace = fresh();
    await env.connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: protoDuration(durationMs('1 day')),
    });
    await setupNamespace(env.connection, { namespace, searchAttributes: [] });
    await env.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { EcaCsid: IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
    });
    await assert.rejects(
      setupNamespace(env.connection, { namespace }),
      (error: unknown) =>
        error instanceof SetupError &&
        error.code === 'SETUP_FAILED' &&
        /EcaCsid is registered .* as TEXT, the engine needs KEYWORD/.test(error.message),
    );
  });

  it('refuses retentions that are not durations or under a day', function () {
    assert.equal(parseRetention('30d'), 30 * DAY);
    assert.equal(parseRetention('720h'), 30 * DAY);
    assert.throws(() => parseRetention('soon'), InvalidInputError);
    assert.throws(() => parseRetention('1h'), /under the minimum of one day/);
  });

  it('eca setup: the command sets up, answers JSON, and fails clearly without a server', async function () {
    const namespace = fresh();
    const ok = await eca(['--namespace', namespace, 'setup', '--retention', '7d', '--json'], {
      TEMPORAL_ADDRESS: env.address,
    });
    assert.equal(ok.code, 0, ok.stderr);
    const result = JSON.parse(ok.stdout) as SetupResult;
    assert.equal(result.namespace, namespace);
    assert.equal(result.retentionMs, 7 * DAY);
    assert.equal(await retentionOf(namespace), 7 * DAY);

    const text = await eca(['setup', '--retention', '7d'], {
      TEMPORAL_ADDRESS: env.address,
      TEMPORAL_NAMESPACE: namespace,
    });
    assert.equal(text.code, 0, text.stderr);
    assert.match(
      text.stdout,
      new RegExp(`namespace ${namespace} ready: retention 7 day\\(s\\), 10 search attributes \\(0 new\\)`),
    );

    const bad = await eca(['setup', '--retention', 'soon'], { TEMPORAL_ADDRESS: env.address });
    assert.equal(bad.code, 3, 'INVALID_INPUT');
    assert.match(bad.stderr, /^eca: retention: "soon" is not a duration/);

    const down = await eca(['setup'], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    assert.equal(down.code, 7, 'TEMPORAL_UNAVAILABLE');
    assert.match(down.stderr, /cannot reach Temporal at 127\.0\.0\.1:1/);
  });
});

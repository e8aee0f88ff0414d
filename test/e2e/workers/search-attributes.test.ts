/**
 * A worker started on a namespace `eca setup` has not prepared stops at start, with a message naming the
 * missing search attributes and the command (workers/search-attributes.ts): the check on the dev server, on
 * the worker's own connection, and the worker process refusing to start.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { setupNamespace } from '../../../client/setup.js';
import { ECA_SEARCH_ATTRIBUTES } from '../../../domain/search-attributes.js';
import { ConfigurationError } from '../../../runtime/config-error.js';
import { assertSearchAttributes, SearchAttributesMissingError } from '../../../workers/search-attributes.js';
import { devServerEnv } from '../../support/servers.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const { IndexedValueType } = proto.temporal.api.enums.v1;

describe('worker start: the namespace holds the engine’s search attributes (eca setup)', function () {
  this.timeout(120_000);
  let env: TestWorkflowEnvironment;
  /** A namespace registered without any of the engine's search attributes. */
  let bare: string;

  before(async function () {
    env = await devServerEnv();
    bare = `bare-${randomUUID().slice(0, 8)}`;
    // The namespace alone, ready on the server: setup with no search attributes to register.
    await setupNamespace(env.connection, { namespace: bare, searchAttributes: [] });
  });

  const names = ECA_SEARCH_ATTRIBUTES.map((key) => key.name);

  it('passes on a namespace set up, on the worker’s native connection too', async function () {
    await assertSearchAttributes(env.connection, 'default');
    await assertSearchAttributes(env.nativeConnection, 'default');
  });

  it('refuses a namespace without them: a configuration error naming each and `eca setup`', async function () {
    await assert.rejects(assertSearchAttributes(env.nativeConnection, bare), (error: unknown) => {
      assert.ok(error instanceof SearchAttributesMissingError);
      assert.ok(error instanceof ConfigurationError, 'the worker prints it alone and exits 1');
      assert.equal(error.namespace, bare);
      assert.deepEqual(error.missing, names);
      for (const name of names) assert.match(error.message, new RegExp(`\\b${name}\\b`));
      assert.ok(error.message.includes(`eca setup --namespace ${bare}`), error.message);
      assert.ok(error.message.includes(`TEMPORAL_NAMESPACE=${bare}`), error.message);
      return true;
    });
  });

  it('names one registered with another type', async function () {
    const namespace = `mistyped-${randomUUID().slice(0, 8)}`;
    await setupNamespace(env.connection, {
      namespace,
      searchAttributes: ECA_SEARCH_ATTRIBUTES.filter((key) => key.name !== 'EcaCsid'),
    });
    await env.connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: { EcaCsid: IndexedValueType.INDEXED_VALUE_TYPE_TEXT },
    });
    await assert.rejects(
      assertSearchAttributes(env.connection, namespace),
      (error: unknown) =>
        error instanceof SearchAttributesMissingError &&
        error.missing.length === 0 &&
        /holds EcaCsid \(TEXT, needs KEYWORD\): run `eca setup --namespace mistyped-/.test(error.message),
    );
  });

  it('the worker process stops at start with that message, exit 1', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-worker-bare-'));
    try {
      const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          ['--import', 'tsx', 'workers/main.ts'],
          {
            cwd: ROOT,
            timeout: 90_000,
            env: {
              PATH: process.env.PATH,
              HOME: process.env.HOME,
              TEMPORAL_ADDRESS: env.address,
              TEMPORAL_NAMESPACE: bare,
              ECA_DATABASE_URL: `pglite:${join(dir, 'database')}`,
              ECA_DOCUMENT_STORE: join(dir, 'documents'),
              ECA_CODEC_DISABLED: 'true',
              ECA_LOG_LEVEL: 'ERROR',
            },
          },
          (error, _stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stderr }),
        );
      });
      assert.equal(code, 1, stderr);
      assert.match(stderr, new RegExp(`Temporal namespace "${bare}" lacks the search attributes EcaLifecycleState`));
      assert.match(stderr, /run `eca setup --namespace bare-/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

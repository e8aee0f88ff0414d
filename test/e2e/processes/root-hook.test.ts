/**
 * The root hook (test/support/hooks.ts) loads Temporal's worker and the test servers only for a file that
 * uses Temporal: a unit file run alone starts without them, and a file that loads the worker still gets the
 * test logger before its first test. Each file runs in a mocha process of its own, as `npx mocha <file>` does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../../scripts/processes.js';

const MOCHA = join(ROOT, 'node_modules', 'mocha', 'bin', 'mocha.js');

/** Runs `file` alone with the root hook, which then says whether the worker was loaded. */
async function runAlone(file: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [MOCHA, file], {
    cwd: ROOT,
    env: { ...process.env, TEST_TELL_TEMPORAL: '1' },
  });
  return stdout;
}

describe('the root hook loads Temporal only for the files that use it', function () {
  this.timeout(120_000);

  it('runs a unit file without loading @temporalio/worker', async function () {
    const output = await runAlone('test/unit/domain/maintenance-windows.test.ts');
    assert.match(output, /\d+ passing/);
    assert.match(output, /@temporalio\/worker loaded: false/);
  });

  it('installs the test logger before the first test of a file that loads the worker', async function () {
    const output = await runAlone('test/e2e/processes/fixtures/temporal-file.ts');
    assert.match(output, /1 passing/);
    assert.match(output, /@temporalio\/worker loaded: true/);
  });
});

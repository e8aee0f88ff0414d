/**
 * docs/openapi.json is a valid OpenAPI document (openapi-spec-validator, pinned in the contract venv:
 * scripts/contract-tools.ts) and passes Redocly's `recommended` rules (test/e2e/contract/redocly.yaml) without
 * an error; Redocly's warnings are printed.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { contractVenv } from '../../../scripts/contract-tools.js';
import type { ContractVenv } from '../../../scripts/contract-tools.js';
import { REPO, sh, timed, workDir } from './support.js';

describe('contract: docs/openapi.json lints clean', function () {
  this.timeout(60_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let venv: ContractVenv;

  before(async function () {
    // The first run creates the venv (about half a minute); later runs find it cached.
    this.timeout(600_000);
    work = await workDir('lint');
    venv = await timed('provision venv', () => contractVenv());
  });

  after(async function () {
    await work?.remove();
  });

  it('openapi-spec-validator finds no error', async function () {
    const output = await timed('openapi-spec-validator', () =>
      sh(venv.python, ['-m', 'openapi_spec_validator', work.spec]).catch((error: Error) => {
        throw new Error(`openapi-spec-validator: ${error.message.split('\n').slice(1).join('\n')}`);
      }),
    );
    assert.match(output, /: OK\s*$/);
  });

  it('Redocly lint (recommended rules) finds no error', async function () {
    const redocly = join(REPO, 'node_modules', '.bin', 'redocly');
    const args = [
      'lint',
      work.spec,
      '--config',
      join(REPO, 'test', 'e2e', 'contract', 'redocly.yaml'),
      '--format',
      'stylish',
    ];
    let output: string;
    let failed = false;
    try {
      output = await timed('redocly lint', () => sh(redocly, args, { env: { REDOCLY_TELEMETRY: 'off' } }));
    } catch (error) {
      failed = true;
      output = (error as Error).message;
    }
    // Only the findings (stylish: one a line), without the banner Redocly prints on Node 20.
    const findings = output.split('\n').filter((line) => /^\s+\d+:\d+\s+(error|warning)\s/.test(line));
    const errors = findings.filter((line) => /\serror\s/.test(line));
    if (findings.length > errors.length) {
      process.stderr.write(
        `      Redocly warnings:\n${findings.filter((line) => !errors.includes(line)).join('\n')}\n`,
      );
    }
    assert.deepEqual(errors, [], `Redocly found errors:\n${errors.join('\n')}`);
    assert.equal(failed, false, `redocly lint failed:\n${output}`);
  });
});

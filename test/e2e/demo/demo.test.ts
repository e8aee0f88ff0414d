/** `npm run demo` as a newcomer runs it, at a small N: every application must reach its expected final state. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

describe('the demo', function () {
  this.timeout(300_000);

  it('runs applications of every scenario to their expected final states and prints the summary', async function () {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const env = { ...process.env };
      delete env.TEMPORAL_ADDRESS;
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/demo.ts', '--applications', '7'],
        { cwd: ROOT, env },
        (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });
    assert.equal(code, 0, `demo failed:\n${stdout}\n${stderr}`);
    // The demo's onboarding system goes through the onboarding API.
    assert.match(stdout, /Onboarding API at http:\/\/127\.0\.0\.1:\d+ /);
    assert.match(stdout, /Started 7 applications over 7 scenarios/);
    for (const [scenario, expected] of [
      ['happy', 'open'],
      ['docs-required', 'open'],
      ['doc-rejected', 'open'],
      ['portal-task', 'open'],
      ['compliance-rejected', 'rejected'],
      ['stalled', 'open'],
      ['invalid', 'open'],
    ]) {
      assert.match(stdout, new RegExp(`${scenario}\\s+1\\s+${expected} 1\\s+${expected}\\s+yes`), `${scenario} row`);
    }
    // Two firms, one on each protocol, each with its own table.
    assert.match(stdout, /Firms: XML service, firm \S+; Web API, firm \S+\./);
    for (const label of ['XML service', 'Web API']) {
      assert.match(stdout, new RegExp(`\\[${label}, firm \\S+\\] Started 7 applications over 7 scenarios`));
      assert.match(stdout, new RegExp(`\\n${label}, firm \\S+:\\nSCENARIO`), `${label} table`);
    }
    assert.equal(stdout.match(/\s+yes\n/g)?.length, 14, 'every scenario row of both firms is OK');
    assert.match(stdout, /\ncreate\s+7\n/, 'one XML create per application of the XML firm');
    // The Web API firm's invalid application is refused by the brokerage at create, then created once corrected.
    assert.match(stdout, /\nwebapi POST \/gw\/api\/v1\/accounts\s+8\n/, 'Web API creates');
    assert.match(stdout, /Accounts: 14 made, 0 second accounts for an external id/);
    // The firm's status sweep read for the waiting applications and woke those whose account moved.
    const sweep = /Status sweep: (\d+) slots, (\d+) brokerage calls .*, (\d+) applications woken/.exec(stdout);
    assert.ok(sweep, `no status sweep line in:\n${stdout}`);
    assert.ok(Number(sweep[1]) >= 1 && Number(sweep[2]) >= 3 && Number(sweep[3]) >= 1, sweep[0]);
    assert.match(stdout, /Temporal UI: http:\/\/localhost:\d+\/namespaces\/default\/workflows/);
    // The API key is printed only with --keep, when the API stays up to be explored.
    assert.doesNotMatch(stdout, /API key|Bearer/);
  });

  it('refuses a bad --applications value with one line and exit code 2', async function () {
    const result = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'scripts/demo.ts', '--applications', 'many'],
        { cwd: ROOT },
        (error, _out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stderr: err }),
      );
    });
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim(), 'demo: --applications must be a number between 1 and 5000, got "many"');
  });
});

/**
 * docs/operate.md's recipe, "Run the worker, the API and the codec server by hand", as a new user follows it:
 * the variables of its `run-by-hand` block, and nothing else of the engine's, are set (each to a value of this
 * test's: its dev server, the simulator's firm and keys, files in a temporary directory), then the commands of
 * the block after it run as written, each `npx <command>` as the package's `bin/<command>.js`. The worker must
 * poll, the API answer `/readyz`, the codec server `/health`, and the key `eca api-keys create` prints must
 * list the firm's applications.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { generateCodecKeyEntry } from '../../../codec/keyring.js';
import { freePort, ROOT, SimulatorProcess, start } from '../../../scripts/processes.js';
import type { Child } from '../../../scripts/processes.js';
import { devServerEnv } from '../../support/servers.js';

const GUIDE = join(ROOT, 'docs', 'operate.md');
const HEADING = '## Run the worker, the API and the codec server by hand';

/** The recipe: its variables in the order it sets them, and the commands after them. */
async function recipe(): Promise<{ variables: string[]; commands: string[] }> {
  const guide = await readFile(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf(HEADING));
  assert.ok(section.startsWith(HEADING), `docs/operate.md has "${HEADING}"`);
  const block = /<!-- run-by-hand[^>]*-->\s*```sh\n([\s\S]*?)```\s*<!-- \/run-by-hand -->/.exec(section)?.[1];
  assert.ok(block, 'the recipe has its run-by-hand block');
  const variables = [...block.matchAll(/^export ([A-Z0-9_]+)=/gm)].map((match) => match[1]!);
  const after = section.slice(section.indexOf('<!-- /run-by-hand -->'));
  const commands = /```sh\n([\s\S]*?)```/.exec(after)?.[1];
  assert.ok(commands, 'the recipe has its commands block');
  return {
    variables,
    commands: commands
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, '').trim())
      .filter((line) => line !== ''),
  };
}

/** `NAME=value … npx <command> args…` split into its environment, command and arguments (no quoting but "…"). */
function parseCommand(line: string): { env: Record<string, string>; command: string; args: string[] } {
  const words = [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((match) => match[1] ?? match[2]!);
  const env: Record<string, string> = {};
  while (words[0] && /^[A-Z0-9_]+=/.test(words[0])) {
    const [name, ...value] = words.shift()!.split('=');
    env[name!] = value.join('=');
  }
  assert.equal(words.shift(), 'npx', `${line}: a command of the package, run with npx`);
  const command = words.shift()!;
  assert.match(command, /^eca(-api|-worker|-codec-server)?$/, `${line}: one of the package's commands`);
  return { env, command, args: words };
}

describe("docs/operate.md's recipe: the worker, the API and the codec server started by hand", function () {
  this.timeout(240_000);
  let dev: TestWorkflowEnvironment;
  let sim: SimulatorProcess;
  let dir: string;
  const children: Child[] = [];

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-by-hand-'));
    dev = await devServerEnv();
    sim = new SimulatorProcess({ dataDir: join(dir, 'simulator'), timeScale: 20_000 });
    await sim.start();
  });

  after(async function () {
    await Promise.allSettled(children.map((child) => child.stop()));
    await sim?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('sets each variable the three processes need, in one block, and they come up and answer', async function () {
    const { variables, commands } = await recipe();
    await writeFile(join(dir, 'codec-keys'), `${generateCodecKeyEntry('k1')}\n`);
    await writeFile(join(dir, 'codec-server-token'), 'a-token-of-the-recipe-test\n');
    await writeFile(join(dir, 'firm-key-passphrase'), '');
    const apiPort = await freePort();
    const codecPort = await freePort();
    const database = `pglite:${join(dir, 'database')}`;
    // A value for every variable the recipe sets, and only those: one the test does not know fails it.
    const values: Record<string, string> = {
      TEMPORAL_ADDRESS: dev.address,
      TEMPORAL_NAMESPACE: 'default',
      ECA_DATABASE_URL: database,
      ECA_DOCUMENT_STORE: join(dir, 'documents'),
      PGPASSWORD: 'unused-by-an-embedded-database',
      ECA_CODEC_KEYS_FILE: join(dir, 'codec-keys'),
      ECA_CSID: sim.csid,
      ECA_ENVIRONMENT: 'qa',
      ECA_FIRM_PRIVATE_KEY: join(sim.keysDir, 'firm-private.asc'),
      ECA_FIRM_KEY_PASSPHRASE_FILE: join(dir, 'firm-key-passphrase'),
      ECA_BROKERAGE_PUBLIC_KEY: join(sim.keysDir, 'brokerage-public.asc'),
      ECA_LOG_FORMAT: 'json',
      ECA_API_HOST: '127.0.0.1',
      ECA_API_PORT: String(apiPort),
      ECA_CODEC_SERVER_TOKEN_FILE: join(dir, 'codec-server-token'),
      ECA_CODEC_SERVER_HOST: '127.0.0.1',
      ECA_CODEC_SERVER_PORT: String(codecPort),
      ECA_CODEC_UI_ORIGINS: `http://127.0.0.1:${apiPort}`,
    };
    assert.deepEqual(new Set(variables), new Set(Object.keys(values)), 'the recipe sets the variables this test gives');
    // The engine's own variables from this process's environment are left out: the recipe's are the only ones.
    const inherited = Object.fromEntries(
      Object.entries(process.env).filter(([name]) => !/^(ECA_|TEMPORAL_|WORKER_|OTEL_|PG)/.test(name)),
    );
    const env = { ...inherited, ...Object.fromEntries(variables.map((name) => [name, values[name]!])) };

    let key: string | undefined;
    for (const line of commands) {
      const { env: extra, command, args } = parseCommand(line);
      // A metrics address of the recipe's binds every interface: a free loopback port here.
      if (extra.ECA_METRICS_ADDRESS) extra.ECA_METRICS_ADDRESS = `127.0.0.1:${await freePort()}`;
      const child = start(command, process.execPath, [join(ROOT, 'bin', `${command}.js`), ...args], {
        ...env,
        ...extra,
      });
      if (command === 'eca') {
        const code = await child.exited;
        assert.equal(code, 0, `${line}:\n${child.output}`);
        if (args[0] === 'api-keys') key = /\beca_\S+/.exec(child.output)?.[0];
        continue;
      }
      children.push(child);
      if (command === 'eca-worker') await child.waitFor(/eca worker polling task queue/, 120_000);
      if (command === 'eca-api') await child.waitForHttp(`http://127.0.0.1:${apiPort}/readyz`, 120_000);
      if (command === 'eca-codec-server') await child.waitForHttp(`http://127.0.0.1:${codecPort}/health`, 60_000);
    }
    assert.deepEqual(
      children.map((child) => child.name),
      ['eca-worker', 'eca-api', 'eca-codec-server'],
    );
    assert.ok(key, 'eca api-keys create printed a key');
    const listed = await fetch(`http://127.0.0.1:${apiPort}/v1/applications?pageSize=5`, {
      headers: { authorization: `Bearer ${key}` },
    });
    assert.equal(listed.status, 200, await listed.text());
    // The codec server takes the token of its file, and only it.
    const refused = await fetch(`http://127.0.0.1:${codecPort}/decode`, { method: 'POST', body: '{"payloads":[]}' });
    assert.equal(refused.status, 401);
    const decoded = await fetch(`http://127.0.0.1:${codecPort}/decode`, {
      method: 'POST',
      headers: { authorization: 'Bearer a-token-of-the-recipe-test', 'content-type': 'application/json' },
      body: '{"payloads":[]}',
    });
    assert.equal(decoded.status, 200, await decoded.text());
  });
});

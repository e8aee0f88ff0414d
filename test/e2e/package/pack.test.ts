/**
 * The package as an onboarding system installs it: `npm pack` (building it), the tarball installed into
 * an empty project on Node 20 with no engine warning, its entry points imported and typechecked from
 * there, its four commands answering `--help`, and its `eca` command run.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { randomUUID } from 'node:crypto';
import { join, posix } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, SimulatorProcess, startWorkerProcess } from '../../../scripts/processes.js';
import { applicationXml } from '../../support/engine.js';
import { cliEnv, devServerEnv } from '../../support/servers.js';
import { copyRepository, packAndInstall } from '../../../scripts/package-install.js';
import type { InstalledPackage } from '../../../scripts/package-install.js';
import { seedEmbedded } from '../../support/database-template.js';

const run = promisify(execFile);
const NPX = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

/** The onboarding system's own code, typechecked against the installed declarations. */
function consumerSource(name: string): string {
  return `import { connectEngine, startApplication, InvalidInputError } from '${name}/client';
import type { ConnectedEngine } from '${name}/client';
import { createEngineWorker, loadWorkerConfig } from '${name}/worker';
import { startSimulator } from '${name}/simulator';
import { createEcaClient } from '${name}/eca';
import { generateCodecKeyring } from '${name}/codec';

export async function onboard(engine: ConnectedEngine): Promise<string> {
  const started = await startApplication(engine, { applicationXml: '/data/application.xml' });
  const workflowId: string = started.workflowId;
  return workflowId;
}
export const parts = [connectEngine, InvalidInputError, createEngineWorker, loadWorkerConfig, startSimulator, createEcaClient, generateCodecKeyring];
`;
}

async function typecheck(projectDir: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout } = await run(process.execPath, [TSC, '-p', projectDir], { cwd: projectDir });
    return { ok: true, output: stdout };
  } catch (error) {
    return { ok: false, output: String((error as { stdout?: string }).stdout ?? error) };
  }
}

/** The names a block of `source` lists as `NAME:` keys, from the line that opens it to its closing `}`. */
function keysOfBlock(source: string, opening: string): string[] {
  const start = source.indexOf(opening);
  assert.ok(start >= 0, `${opening} is in the source`);
  const block = source.slice(start, source.indexOf('\n}', start));
  return [...block.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)].map((match) => match[1] ?? '');
}

/** The variables each command's `--help` must name: read from the code that reads them. */
async function variablesRead(): Promise<Record<string, string[]>> {
  const source = (path: string) => readFile(join(ROOT, path), 'utf8');
  return {
    // Every setting of runtime/config.ts, the worker's configuration.
    'eca-worker': keysOfBlock(await source('runtime/config.ts'), 'const ENV: Record<string, string> = {'),
    // The API's own settings (api/main.ts).
    'eca-api': keysOfBlock(await source('api/main.ts'), 'const settings = z.object({'),
    // What the codec server's entry reads from its environment (codec/main.ts).
    'eca-codec-server': [
      ...new Set(
        [...(await source('codec/main.ts')).matchAll(/\benv\.(ECA_[A-Z0-9_]+)/g)].map((match) => match[1] ?? ''),
      ),
    ],
  };
}

/** A source map's sources that are neither in the package nor carried in the map itself (`sourcesContent`). */
function missingSources(
  map: { sources?: string[]; sourcesContent?: (string | null)[]; sourceRoot?: string },
  mapDir: string,
  pkg: string,
): string[] {
  return (map.sources ?? []).filter((source, i) => {
    if (typeof map.sourcesContent?.[i] === 'string') return false;
    return !existsSync(join(pkg, mapDir, map.sourceRoot ?? '', source));
  });
}

describe('the package (npm pack, installed into an empty project)', function () {
  this.timeout(600_000);
  let installed: InstalledPackage;
  let projectReadme: string;

  /** The copy of the repository packed: the working tree stays as it is for the tests running beside this one. */
  let source: string;

  before(async function () {
    projectReadme = await readFile(join(ROOT, 'README.md'), 'utf8');
    const base = await mkdtemp(join(tmpdir(), 'eca-package-'));
    source = await copyRepository(join(base, 'source'));
    installed = await packAndInstall(base, source);
    await writeFile(
      join(installed.projectDir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2023',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules', '@types')],
        },
        include: ['*.ts'],
      }),
    );
  });

  after(async function () {
    if (installed) await rm(join(installed.projectDir, '..'), { recursive: true, force: true });
  });

  it('ships compiled code, declarations and the prebuilt workflow bundles, not the TypeScript sources', function () {
    const pkg = join(installed.projectDir, 'node_modules', installed.name);
    for (const file of [
      'dist/client/index.js',
      'dist/client/index.d.ts',
      'dist/workers/index.d.ts',
      'dist/eca/data/landing-pages.json',
      'dist/workflow-bundles/workflows.js',
      'dist/workflow-bundles/workflows-encrypted-failures.js',
      'bin/eca.js',
      'bin/eca-api.js',
      'bin/eca-worker.js',
      'bin/eca-codec-server.js',
      'LICENSE',
    ]) {
      assert.ok(existsSync(join(pkg, file)), `${file} is in the package`);
    }
    for (const source of ['client/cli/index.ts', 'workflows/index.ts', 'test', 'scripts']) {
      assert.ok(!existsSync(join(pkg, source)), `${source} is not in the package`);
    }
  });

  it('installs on Node 20 with no engine warning (npm checks every installed package against its engines)', async function () {
    // npm checks the engines of the whole tree at every install, also one with nothing left to do: this
    // install in the project the tarball went into warns of what the first one did (which packAndInstall
    // keeps quiet with --loglevel=error). Meaningful on Node 20, the package's floor, where CI runs.
    const { stdout, stderr } = await run(
      NPM,
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=warn'],
      {
        cwd: installed.projectDir,
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    assert.doesNotMatch(
      `${stdout}\n${stderr}`,
      /EBADENGINE/,
      `npm on Node ${process.version} warned of engines:\n${stderr}`,
    );
  });

  it("has the npm page's README, the two ways in, with the project's README beside it; the repository's is put back", async function () {
    const pkg = join(installed.projectDir, 'node_modules', installed.name);
    const readme = await readFile(join(pkg, 'README.md'), 'utf8');
    assert.equal(readme, await readFile(join(ROOT, 'npm/README.md'), 'utf8'));
    assert.match(readme, /^### Over HTTP, from any language$/m);
    assert.match(readme, /^### From TypeScript$/m);
    assert.ok(readme.split('\n').length < 120, `a short page (${readme.split('\n').length} lines)`);
    // Every file it points the reader to is in the package.
    for (const [, file] of readme.matchAll(/`((?:docs\/)?[\w.-]+\.(?:md|json))`/g)) {
      assert.ok(existsSync(join(pkg, file ?? '')), `${file} is in the package`);
    }
    assert.equal(await readFile(join(pkg, 'README.project.md'), 'utf8'), projectReadme);
    assert.equal(await readFile(join(source, 'README.md'), 'utf8'), projectReadme);
    assert.ok(!existsSync(join(source, 'README.project.md')), 'the swap is undone after packing');
  });

  it('ships the Apache-2.0 LICENSE, and no source map that points at a file it does not ship', async function () {
    const pkg = join(installed.projectDir, 'node_modules', installed.name);
    const { stdout } = await run('tar', ['-tzf', installed.tarball], { maxBuffer: 64 * 1024 * 1024 });
    const files = stdout
      .split('\n')
      .filter((line) => line.startsWith('package/') && !line.endsWith('/'))
      .map((line) => line.slice('package/'.length));
    assert.ok(files.includes('LICENSE'), 'LICENSE is in the tarball');
    const license = await readFile(join(pkg, 'LICENSE'), 'utf8');
    assert.match(license, /^\s*Apache License\s+Version 2\.0, January 2004/);
    assert.match(license, /END OF TERMS AND CONDITIONS/);
    const { license: declared } = JSON.parse(await readFile(join(pkg, 'package.json'), 'utf8')) as { license: string };
    assert.equal(declared, 'Apache-2.0');

    const problems: string[] = [];
    for (const file of files) {
      if (file.endsWith('.map')) {
        const map = JSON.parse(await readFile(join(pkg, file), 'utf8')) as Parameters<typeof missingSources>[0];
        for (const source of missingSources(map, posix.dirname(file), pkg))
          problems.push(`${file} points at ${source}`);
        continue;
      }
      if (!/\.(c|m)?js$|\.d\.(c|m)?ts$/.test(file)) continue;
      const text = await readFile(join(pkg, file), 'utf8');
      for (const [, url = ''] of text.matchAll(/[#@] sourceMappingURL=(\S+)/g)) {
        const inline = /^data:application\/json;(?:charset=utf-8;)?base64,(.*)$/.exec(url);
        if (inline) {
          const map = JSON.parse(Buffer.from(inline[1] ?? '', 'base64').toString('utf8')) as Parameters<
            typeof missingSources
          >[0];
          for (const source of missingSources(map, posix.dirname(file), pkg))
            problems.push(`${file} (inline map) points at ${source}`);
        } else if (!files.includes(posix.join(posix.dirname(file), url))) {
          problems.push(`${file} points at its map ${url}, not in the package`);
        }
      }
    }
    assert.deepEqual(problems.slice(0, 20), [], `${problems.length} dangling source map reference(s)`);
  });

  for (const command of ['eca', 'eca-worker', 'eca-api', 'eca-codec-server']) {
    it(`\`npx ${command} --help\` prints its usage and exits 0 without connecting; an unknown argument exits 2`, async function () {
      // No Temporal, database or keys here: a command that tried to connect would fail or hang.
      const env = {
        ...process.env,
        TEMPORAL_ADDRESS: '127.0.0.1:1',
        ECA_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      };
      const { stdout } = await run(NPX, ['--no-install', command, '--help'], {
        cwd: installed.projectDir,
        env,
        timeout: 60_000,
      });
      assert.match(stdout, new RegExp(`^Usage: ${command} `, 'm'));
      for (const variable of (await variablesRead())[command] ?? []) {
        assert.match(stdout, new RegExp(`\\b${variable}\\b`), `${command} --help names ${variable}`);
      }
      const refused = await run(NPX, ['--no-install', command, '--no-such-option'], {
        cwd: installed.projectDir,
        env,
        timeout: 60_000,
      }).then(
        () => assert.fail(`${command} --no-such-option succeeded`),
        (error: { code?: number; stderr?: string }) => error,
      );
      assert.equal(refused.code, 2, `${command} --no-such-option exits 2: ${refused.stderr}`);
      assert.match(refused.stderr ?? '', /unknown option '--no-such-option'/);
    });
  }

  it("typechecks an onboarding system's imports of every entry point, and refuses a wrong call", async function () {
    await writeFile(join(installed.projectDir, 'onboard.ts'), consumerSource(installed.name));
    const good = await typecheck(installed.projectDir);
    assert.ok(good.ok, `the consumer typechecks:\n${good.output}`);

    await writeFile(
      join(installed.projectDir, 'wrong.ts'),
      `import { startApplication } from '${installed.name}/client';\n` +
        `import type { ConnectedEngine } from '${installed.name}/client';\n` +
        `export const wrong = (engine: ConnectedEngine) => startApplication(engine, { applicationXml: 42 });\n`,
    );
    const wrong = await typecheck(installed.projectDir);
    await rm(join(installed.projectDir, 'wrong.ts'));
    assert.ok(!wrong.ok, 'a number for applicationXml fails the typecheck: the declarations are real');
    assert.match(wrong.output, /wrong\.ts.*applicationXml|wrong\.ts.*number/s);
  });

  it('runs from the installed JavaScript: the simulator answers the eca library over HTTP', async function () {
    const script = `
      import { startSimulator, ecaClientFor } from '${installed.name}/simulator';
      import { connectEngine } from '${installed.name}/client';
      import { createEngineWorker } from '${installed.name}/worker';
      const sim = await startSimulator({ port: 0 });
      try {
        const eca = ecaClientFor(sim);
        const tasks = await eca.getPendingTasks();
        console.log(JSON.stringify({ ok: typeof connectEngine === 'function' && typeof createEngineWorker === 'function', tasks: typeof tasks === 'object' && tasks !== null }));
      } finally {
        await sim.close();
      }
    `;
    await writeFile(join(installed.projectDir, 'smoke.mjs'), script);
    const { stdout } = await run(process.execPath, ['smoke.mjs'], { cwd: installed.projectDir });
    assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1) ?? ''), { ok: true, tasks: true });
  });

  it('`npx eca --help` and `--version` run the compiled CLI', async function () {
    const { stdout } = await run(NPX, ['--no-install', 'eca', '--help'], { cwd: installed.projectDir });
    assert.match(stdout, /^Usage: eca /m);
    assert.match(stdout, /apply-batch/);
    const version = await run(NPX, ['--no-install', 'eca', '--version'], { cwd: installed.projectDir });
    const { version: expected } = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    assert.equal(version.stdout.trim(), expected);
  });

  it('opens an application on the installed worker (prebuilt bundles), started and followed with the installed `eca`', async function () {
    const dev = await devServerEnv();
    const sim = new SimulatorProcess({ timeScale: 20_000 });
    await sim.start();
    const store = await mkdtemp(join(tmpdir(), 'eca-package-store-'));
    const taskQueue = `package-${randomUUID().slice(0, 8)}`;
    const pkg = join(installed.projectDir, 'node_modules', installed.name);
    await seedEmbedded(join(store, 'database'));
    const worker = await startWorkerProcess('installed worker', {
      temporalAddress: dev.address,
      taskQueue,
      simulator: sim,
      // Its database beside the store (scripts/processes.ts `databaseBeside`): inside this test's directory.
      documentStore: join(store, 'documents'),
      compiledEntry: join(pkg, 'dist', 'workers', 'main.js'),
    });
    const env = cliEnv({ address: dev.address, csid: sim.csid, taskQueue, store: join(store, 'documents') });
    const eca = (...args: string[]) => run(NPX, ['--no-install', 'eca', ...args], { cwd: installed.projectDir, env });
    try {
      const externalId = `happy-package-${randomUUID().slice(0, 6)}`;
      const xml = join(installed.projectDir, 'application.xml');
      await writeFile(xml, applicationXml(externalId));
      const bundles = join(pkg, 'dist', 'workflow-bundles');
      assert.ok(worker.output.includes(`workflows from the prebuilt bundles in ${bundles}`), worker.output);
      await eca('apply', xml);
      let state = { lifecycleState: '', done: false };
      for (let i = 0; i < 120 && !state.done; i++) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        state = JSON.parse((await eca('status', externalId, '--json')).stdout) as typeof state;
      }
      assert.equal(state.lifecycleState, 'open');
      // The simulator's own records: one create for the one application.
      assert.equal((await sim.calls()).create, 1);
    } finally {
      await worker.stop();
      await sim.stop();
      await rm(store, { recursive: true, force: true });
    }
  });
});

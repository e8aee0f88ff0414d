/**
 * Every program docs/integrate.md shows runs here as it is written, against the real API: its Python and Java
 * snippets on the clients generated from docs/openapi.json (the contract tests' generator, venv and Maven
 * dependencies, scripts/contract-tools.ts), its TypeScript snippet on the engine's client API (typechecked,
 * then run), and the event stream readers of examples/ (Python's and Java's standard libraries alone).
 * A snippet is the block between `<!-- snippet: <name> … -->` and `<!-- /snippet -->`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { contractVenv, javaClientDependencies } from '../../../scripts/contract-tools.js';
import type { ContractVenv } from '../../../scripts/contract-tools.js';
import { applicationXml, pdf } from '../../support/engine.js';
import {
  compileJava,
  externalIdOf,
  generateClient,
  REPO,
  sh,
  startedWithEvents,
  startRealApi,
  timed,
  workDir,
} from './support.js';
import type { RealApi } from './support.js';

const GUIDE = join(REPO, 'docs', 'integrate.md');

/** The code of the guide's snippet `name`, in `language`. */
async function snippet(name: string, language: string): Promise<string> {
  const guide = await readFile(GUIDE, 'utf8');
  const pattern = new RegExp(
    `<!-- snippet: ${name}[:\\s][\\s\\S]*?-->\\s*\`\`\`${language}\\n([\\s\\S]*?)\`\`\`\\s*<!-- /snippet -->`,
  );
  const code = pattern.exec(guide)?.[1];
  assert.ok(code, `docs/integrate.md has the ${name} snippet`);
  return code;
}

/**
 * Runs a program that never ends by itself until its output has a line `wanted` matches, then stops it;
 * answers its output. Fails with the output when the program exits first or takes longer than `ms`.
 */
function outputUntil(
  command: string,
  args: string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
  wanted: RegExp,
  ms = 60_000,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO,
      env: { ...process.env, ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${command} ${args.join(' ')} printed no line matching ${wanted} in ${ms} ms:\n${stdout}${stderr}`),
      );
    }, ms);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      // Whole lines only: a chunk may end inside a line the program is still writing when it is stopped.
      const whole = stdout.slice(0, stdout.lastIndexOf('\n') + 1);
      if (whole.split('\n').some((line) => wanted.test(line))) {
        clearTimeout(timer);
        child.kill('SIGTERM');
        resolve(whole);
      }
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited with ${code} first:\n${stdout}${stderr}`));
    });
  });
}

describe("contract: docs/integrate.md's programs and examples/, as they are written", function () {
  this.timeout(180_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let api: RealApi;
  let venv: ContractVenv;
  let javaLib: string;
  const python = () => join(work.dir, 'python');
  const java = () => join(work.dir, 'java');
  const apiEnv = () => ({ ECA_API: api.base, ECA_API_KEY: api.keys.onboarding });

  before(async function () {
    // The first run provisions the generator, the venv and the Java client's dependencies; later runs find them cached.
    this.timeout(900_000);
    work = await workDir('docs');
    [api, venv] = await Promise.all([
      timed('start the real API', () => startRealApi()),
      timed('provision venv', () => contractVenv()),
      generateClient('python', work.spec, python()),
      (async () => {
        await generateClient('java', work.spec, java());
        const pom = await readFile(join(java(), 'pom.xml'), 'utf8');
        javaLib = await timed('java dependencies', () => javaClientDependencies(pom));
      })(),
    ]);
  });

  after(async function () {
    await api?.close();
    await work?.remove();
  });

  /** A directory of its own for one snippet, holding the files the guide's snippets read. */
  async function filesFor(name: string, externalId: string): Promise<string> {
    const dir = join(work.dir, name);
    await sh('mkdir', ['-p', dir]);
    await writeFile(join(dir, 'application.xml'), applicationXml(externalId));
    for (const file of ['w9.pdf', 'w8ben.pdf', 'proof-of-address.pdf']) {
      await writeFile(join(dir, file), pdf(`${externalId} ${file}`));
    }
    return dir;
  }

  it('runs the Python snippet on the generated client: it starts an application with a PDF and reads it', async function () {
    const externalId = externalIdOf('docs-required-snippet-py');
    const cwd = await filesFor('snippet-py', externalId);
    await writeFile(join(cwd, 'snippet.py'), await snippet('python-client', 'python'));
    const output = await timed('python snippet', () =>
      sh(venv.python, ['snippet.py'], {
        cwd,
        env: { ...apiEnv(), PYTHONPATH: python(), PYTHONDONTWRITEBYTECODE: '1' },
      }),
    );
    const [first, ...documents] = output.trim().split('\n');
    assert.match(first ?? '', new RegExp(`^${externalId} \\w+$`), output);
    // Then one line per form it waits for (none yet while it validates): number, name, state.
    for (const line of documents) assert.match(line, /^\d+ .+ (requested|provided|submitted|rejected)$/, output);
  });

  it('compiles the Java snippet with the generated client and runs it: it starts an application and reads it', async function () {
    const externalId = externalIdOf('stalled-snippet-java');
    const cwd = await filesFor('snippet-java', externalId);
    const body = (await snippet('java-client', 'java')).replace(/^/gm, '    ');
    await writeFile(
      join(cwd, 'Snippet.java'),
      [
        'import java.nio.file.Files;',
        'import java.nio.file.Path;',
        'import java.util.UUID;',
        'import org.eca.client.ApiClient;',
        'import org.eca.client.Configuration;',
        'import org.eca.client.api.ApplicationsApi;',
        'import org.eca.client.auth.HttpBearerAuth;',
        'import org.eca.client.model.Application;',
        'import org.eca.client.model.StartApplicationRequest;',
        'import org.eca.client.model.StartedApplication;',
        '',
        'public class Snippet {',
        '  public static void main(String[] args) throws Exception {',
        body,
        '  }',
        '}',
        '',
      ].join('\n'),
    );
    const classes = join(cwd, 'classes');
    await compileJava({
      client: java(),
      programs: [join(cwd, 'Snippet.java')],
      lib: javaLib,
      classes,
      what: 'the Java snippet',
    });
    const output = await timed('java snippet', () =>
      sh('java', ['-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-cp', `${classes}:${javaLib}/*`, 'Snippet'], {
        cwd,
        env: apiEnv(),
      }),
    );
    assert.match(output.trim().split('\n').at(-1) ?? '', new RegExp(`^${externalId} \\w+$`), output);
  });

  it("typechecks the TypeScript snippet against the client API and runs it on the engine's worker", async function () {
    const externalId = externalIdOf('stalled-snippet-ts');
    const cwd = await filesFor('snippet-ts', externalId);
    const code = await snippet('typescript-client', 'ts');
    assert.match(code, /from 'eca-onboarding\/client'/);
    await writeFile(join(cwd, 'snippet.mts'), code);
    // The package's name resolves to the sources its `exports` map compiles (package.json, ./client).
    await writeFile(
      join(cwd, 'tsconfig.json'),
      JSON.stringify({
        extends: join(REPO, 'tsconfig.json'),
        compilerOptions: {
          types: ['node'],
          typeRoots: [join(REPO, 'node_modules', '@types')],
          paths: { 'eca-onboarding/client': [join(REPO, 'client', 'index.ts')] },
        },
        include: [],
        // The sources' own declaration of a package without types of its own.
        files: ['snippet.mts', join(REPO, 'domain', 'ms.d.ts')],
      }),
    );
    await timed('tsc snippet', () =>
      sh(join(REPO, 'node_modules', '.bin', 'tsc'), ['-p', join(cwd, 'tsconfig.json')]).catch((error: Error) => {
        throw new Error(`the TypeScript snippet does not compile:\n${error.message.split('\n').slice(1).join('\n')}`);
      }),
    );
    const output = await timed('typescript snippet', () =>
      sh(join(REPO, 'node_modules', '.bin', 'tsx'), ['--tsconfig', join(cwd, 'tsconfig.json'), 'snippet.mts'], {
        cwd,
        env: api.engineEnv,
      }),
    );
    assert.match(output.trim().split('\n').at(-1) ?? '', new RegExp(`^${externalId} false \\w+$`), output);
  });

  describe('the event stream readers of examples/', function () {
    let externalId: string;
    before(async function () {
      externalId = externalIdOf('stalled-sse-reader');
      await startedWithEvents(api, externalId, applicationXml(externalId));
    });

    /** A reader's line for the application's first event: its cursor, the type and the external id. */
    const firstEvent = () => new RegExp(`^\\d+-\\d+ application\\.validating ${externalId}$`);

    it("examples/sse_reader.py prints the firm's events from the start of the log, each with its cursor", async function () {
      const output = await outputUntil('python3', ['examples/sse_reader.py'], { env: apiEnv() }, firstEvent());
      assert.ok(
        output.split('\n').every((line) => line === '' || /^\d+-\d+ application\.\w+ \S+$/.test(line)),
        output,
      );
    });

    it('examples/SseReader.java prints the same, run from its source', async function () {
      const output = await outputUntil('java', ['examples/SseReader.java'], { env: apiEnv() }, firstEvent());
      assert.ok(
        output.split('\n').every((line) => line === '' || /^\d+-\d+ application\.\w+ \S+$/.test(line)),
        output,
      );
    });

    it('both stop, exit 1, on a key the API refuses', async function () {
      for (const [command, file] of [
        ['python3', 'examples/sse_reader.py'],
        ['java', 'examples/SseReader.java'],
      ] as const) {
        await assert.rejects(
          sh(command, [file], { env: { ECA_API: api.base, ECA_API_KEY: 'not-a-key' } }),
          /exited with 1:[\s\S]*HTTP 401/,
          file,
        );
      }
    });
  });
});

/**
 * The TypeScript client generated from docs/openapi.json (openapi-generator `typescript-fetch`) compiles
 * under `tsc --strict` with a program using it (test/e2e/contract/typescript-client-run.ts), drives a whole
 * application against the real API, and still reads a newer server's answers (an unknown field, a new
 * lifecycle state, a new event type).
 */
import { copyFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generateClient, REPO, sh, startRealApi, timed, webhookReceiver, workDir } from './support.js';
import { clientRunCases } from './client-runs.js';
import type { RealApi } from './support.js';

/** The program and the generated client, compiled together: strict, ES2022, the DOM's fetch types. */
const TSCONFIG = {
  compilerOptions: {
    strict: true,
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    module: 'ES2022',
    moduleResolution: 'bundler',
    noEmit: true,
    skipLibCheck: true,
    typeRoots: [join(REPO, 'node_modules', '@types')],
    types: ['node'],
    paths: { 'eca-onboarding-generated-client': ['./client/index.ts'] },
  },
  files: ['run.ts', 'client/index.ts'],
};

describe('contract: the generated TypeScript client', function () {
  this.timeout(180_000);
  let work: Awaited<ReturnType<typeof workDir>>;
  let api: RealApi;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  const project = () => join(work.dir, 'typescript');

  const runClient = (args: string[]) =>
    timed(`typescript client ${args[0]}`, () =>
      sh(
        join(REPO, 'node_modules', '.bin', 'tsx'),
        ['--tsconfig', join(project(), 'tsconfig.json'), join(project(), 'run.ts'), ...args],
        { cwd: project(), env: { ECA_API_KEY: api.keys.onboarding } },
      ),
    );

  before(async function () {
    // The first run fetches the generator (seconds); later runs find it cached.
    this.timeout(600_000);
    work = await workDir('typescript');
    [api, receiver] = await Promise.all([
      timed('start the real API', () => startRealApi()),
      webhookReceiver(),
      (async () => {
        await generateClient('typescript-fetch', work.spec, join(project(), 'client'));
        await copyFile(join(REPO, 'test', 'e2e', 'contract', 'typescript-client-run.ts'), join(project(), 'run.ts'));
        await writeFile(join(project(), 'tsconfig.json'), JSON.stringify(TSCONFIG, null, 2));
      })(),
    ]);
  });

  after(async function () {
    await receiver?.close();
    await api?.close();
    await work?.remove();
  });

  it('compiles under tsc --strict (ES2022, DOM) with a program using it', async function () {
    const tsc = join(REPO, 'node_modules', '.bin', 'tsc');
    await timed('tsc --strict', () =>
      sh(tsc, ['-p', join(project(), 'tsconfig.json')]).catch((error: Error) => {
        // The compiler's own messages, without the command line.
        throw new Error(`the generated client does not compile:\n${error.message.split('\n').slice(1).join('\n')}`);
      }),
    );
  });

  clientRunCases('ts', () => ({ api, receiver, dir: work.dir, run: runClient }));
});

/**
 * The package as an onboarding system gets it: `npm pack` (which builds it: prepack runs `npm run build`)
 * and `npm install` of the tarball into an empty project. Used by the package test and by
 * scripts/bench-cli.ts, which times the installed `eca` command.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from './processes.js';

const run = promisify(execFile);
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

export interface InstalledPackage {
  /** The empty project the tarball was installed into. */
  projectDir: string;
  tarball: string;
  /** The package's name, as an onboarding system imports it. */
  name: string;
}

/** Packs this repository (building it) into `dir` and installs the tarball into a new project there. */
export async function packAndInstall(dir?: string): Promise<InstalledPackage> {
  const base = dir ?? (await mkdtemp(join(tmpdir(), 'eca-package-')));
  const packDir = join(base, 'pack');
  const projectDir = join(base, 'project');
  await mkdir(packDir, { recursive: true });
  await mkdir(projectDir, { recursive: true });
  const { stdout } = await run(NPM, ['pack', '--json', '--pack-destination', packDir, ...QUIET], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  // prepack's own output (the bundle sizes) comes before npm's JSON.
  const packed = JSON.parse(stdout.slice(Math.max(stdout.search(/^\[/m), 0))) as Array<{
    filename: string;
    name: string;
  }>;
  const entry = packed[0];
  if (!entry) throw new Error(`npm pack printed no file: ${stdout}`);
  const tarball = join(packDir, entry.filename);
  await writeFile(
    join(projectDir, 'package.json'),
    `${JSON.stringify({ name: 'onboarding-system', private: true, type: 'module' }, null, 2)}\n`,
  );
  await run(NPM, ['install', tarball, '--prefer-offline', ...QUIET], { cwd: projectDir, maxBuffer: 64 * 1024 * 1024 });
  return { projectDir, tarball, name: entry.name };
}

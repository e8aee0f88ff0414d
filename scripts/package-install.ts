/**
 * The package as an onboarding system gets it: `npm pack` (which builds it: prepack runs `npm run build`)
 * and `npm install` of the tarball into an empty project. Used by the package test and by
 * scripts/bench-cli.ts, which times the installed `eca` command.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
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

/**
 * A copy of the repository's files (tracked, and new ones git does not ignore) in `dir`, with its
 * node_modules linked: `npm pack` there builds and swaps the READMEs without touching the working tree,
 * which tests running beside it read.
 */
export async function copyRepository(dir: string): Promise<string> {
  const { stdout } = await run('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const files = stdout.split('\0').filter((file) => file && existsSync(join(ROOT, file)));
  for (const file of files) {
    await mkdir(dirname(join(dir, file)), { recursive: true });
    await copyFile(join(ROOT, file), join(dir, file));
  }
  await symlink(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/**
 * Packs the repository at `from` (this one by default; building it) into `dir` and installs the tarball into
 * a new project there.
 */
export async function packAndInstall(dir?: string, from = ROOT): Promise<InstalledPackage> {
  const base = dir ?? (await mkdtemp(join(tmpdir(), 'eca-package-')));
  const packDir = join(base, 'pack');
  const projectDir = join(base, 'project');
  await mkdir(packDir, { recursive: true });
  await mkdir(projectDir, { recursive: true });
  const { stdout } = await run(NPM, ['pack', '--json', '--pack-destination', packDir, ...QUIET], {
    cwd: from,
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

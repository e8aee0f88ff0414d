/**
 * The per-user cache of the tools the project builds or fetches once (the Temporal servers, Prometheus,
 * the browser tests' Chromium) and the helpers every provisioning module shares: where the cache is, how
 * an entry is built without leaving half of it behind, and how a Go module is built into it. Imports no
 * other module of scripts/, so that every provisioning module can import it.
 */
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { runCommand } from './run-command.js';

/** Neither the local toolchain nor the SDK's own download can provide a server (or another tool). */
export class ServerProvisioningError extends Error {
  override readonly name = 'ServerProvisioningError';
}

export function cacheRoot(): string {
  if (process.env.ECA_CACHE_DIR) return process.env.ECA_CACHE_DIR;
  const xdg = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(xdg, 'eca-onboarding');
}

export function log(message: string): void {
  process.stderr.write(`[temporal-servers] ${message}\n`);
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function which(command: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && (await isExecutable(join(dir, command)))) return join(dir, command);
  }
  return undefined;
}

/** A provisioning step run to its end; a failure is a `ServerProvisioningError` with the end of its output. */
export function run(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv },
): Promise<string> {
  return runCommand(command, args, { ...options, fail: (message) => new ServerProvisioningError(message) });
}

/**
 * Builds into a fresh temporary directory and renames it into place, so an interrupted build or two
 * concurrent ones never leave a half-written cache entry behind.
 */
export async function buildAtomically(finalDir: string, build: (tmpDir: string) => Promise<void>): Promise<void> {
  const parent = join(finalDir, '..');
  await mkdir(parent, { recursive: true });
  const tmpDir = await mkdtemp(join(parent, '.building-'));
  try {
    await build(tmpDir);
    await rm(finalDir, { recursive: true, force: true });
    await rename(tmpDir, finalDir);
  } catch (error) {
    await rm(tmpDir, { recursive: true, force: true });
    throw error;
  }
}

export function seconds(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

/** The binary an environment variable points at instead of a built one (an empty value counts, and is refused). */
export async function overridden(variable: string): Promise<string | undefined> {
  const path = process.env[variable];
  if (path === undefined) return undefined;
  if (!(await isExecutable(path))) throw new ServerProvisioningError(`${variable}=${path} is not an executable file`);
  return path;
}

/** Builds Go main packages of one module version into `dir`, each binary renamed as asked. */
export async function goBuild(
  dir: string,
  what: string,
  packages: Array<{ path: string; built: string; name: string }>,
  version: string,
): Promise<void> {
  const go = await which('go');
  if (!go) throw new ServerProvisioningError(`Go is needed to build ${what} (go install from the Go module proxy)`);
  log(`building ${what} with go install, first run only, a few minutes...`);
  const started = Date.now();
  await buildAtomically(dir, async (tmp) => {
    await run(go, ['install', ...packages.map((pkg) => `${pkg.path}@${version}`)], {
      cwd: tmp,
      env: { GOBIN: tmp, CGO_ENABLED: '0' },
    });
    for (const pkg of packages) await rename(join(tmp, pkg.built), join(tmp, pkg.name));
  });
  log(`built ${what} in ${seconds(started)}: ${dir}`);
}

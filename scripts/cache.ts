/**
 * The per-user cache of the tools the project builds or fetches once (the Temporal servers, Prometheus,
 * the browser tests' Chromium) and the helpers every provisioning module shares: where the cache is, how
 * an entry is built once however many processes ask for it at once, without leaving half of it behind,
 * and how a Go module is built into it. Imports no other module of scripts/ but run-command.ts, so that
 * every provisioning module can import it.
 */
import { constants } from 'node:fs';
import { access, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { lockDirectory, ownerOf } from '../runtime/database/directory-lock.js';
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
 * Runs `provide` unless `ready()` already holds, holding the entry's lock meanwhile (the lock of the
 * directory `<entry>.lock`: runtime/database/directory-lock.ts, freed when its process ends however it
 * ends). Another process asking for the same entry waits for the lock, then finds it ready: one build
 * (one Maven fetch into the local repository, one `go install`) per entry, however many processes ask.
 */
export async function provisionOnce(
  entry: string,
  ready: () => Promise<boolean>,
  provide: () => Promise<void>,
): Promise<void> {
  if (await ready()) return;
  const lockDir = `${entry}.lock`;
  await mkdir(lockDir, { recursive: true });
  let lock = await lockDirectory(lockDir);
  if (!lock) {
    const { pid } = await ownerOf(lockDir);
    log(`waiting for ${pid === undefined ? 'another process' : `process ${pid}`} to provide ${entry}...`);
  }
  while (!lock) {
    await delay(500);
    lock = await lockDirectory(lockDir);
  }
  try {
    if (!(await ready())) await provide();
  } finally {
    await lock.release();
  }
}

/**
 * Builds into a fresh temporary directory and renames it into place, so an interrupted build never
 * leaves a half-written cache entry behind (concurrent ones are kept apart by provisionOnce).
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

/** Builds Go main packages of one module version into `dir`, each binary renamed as asked (once: provisionOnce). */
export async function goBuild(
  dir: string,
  what: string,
  packages: Array<{ path: string; built: string; name: string }>,
  version: string,
): Promise<void> {
  const go = await which('go');
  if (!go) throw new ServerProvisioningError(`Go is needed to build ${what} (go install from the Go module proxy)`);
  const ready = async () => {
    for (const pkg of packages) if (!(await isExecutable(join(dir, pkg.name)))) return false;
    return true;
  };
  await provisionOnce(dir, ready, async () => {
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
  });
}

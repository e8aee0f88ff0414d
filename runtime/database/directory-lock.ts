/**
 * Which process owns an embedded database directory: PGlite must never be opened on one directory by
 * two processes at once (each would write its own pages over the other's). Also the lock of a cache
 * entry's build (scripts/cache.ts provisionOnce): one process builds it, the others wait.
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

/**
 * The owner's process id, for the messages of the processes that find the directory taken; and, on a
 * second line, `opening` while the owner opens the database and does not serve it yet (a new directory
 * takes PGlite seconds, on a busy machine half a minute): the others wait for it rather than give up.
 */
export const OWNER_FILE = 'owner.pid';

/** What the lock's holder says it does: opening the database (serving it soon), or nothing said. */
export type OwnerPhase = 'opening' | undefined;

export interface DirectoryLock {
  /** Says that the database is served now (the lock was taken `opening`). */
  serving(): Promise<void>;
  release(): Promise<void>;
}

function ownerText(phase: OwnerPhase): string {
  return `${process.pid}\n${phase ? `${phase}\n` : ''}`;
}

/** Written whole or not at all (a rename): a reader never finds the file half written. */
async function writeOwner(directory: string, phase: OwnerPhase): Promise<void> {
  const file = join(directory, OWNER_FILE);
  const partial = `${file}.${process.pid}`;
  await writeFile(partial, ownerText(phase), { mode: 0o600 });
  await rename(partial, file);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Linux: an abstract unix socket named for the directory. Binding the name is atomic, and the kernel
 * frees it when the process ends, however it ends: no stale lock to judge, no process id to be reused.
 */
async function abstractSocketLock(directory: string, phase: OwnerPhase): Promise<DirectoryLock | undefined> {
  const digest = createHash('sha256')
    .update(await realpath(directory))
    .digest('hex');
  const server = createServer((socket) => socket.destroy());
  const taken = await new Promise<boolean>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(false) : reject(error),
    );
    server.listen(`\0eca-pglite-${digest.slice(0, 40)}`, () => resolve(true));
  });
  if (!taken) return undefined;
  // The lock alone must not keep the process running.
  server.unref();
  await writeOwner(directory, phase);
  return {
    serving: () => writeOwner(directory, undefined),
    release: async () => {
      await rm(join(directory, OWNER_FILE), { force: true });
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/**
 * Elsewhere: a file created only if absent, holding the owner's process id; one whose process has
 * ended is taken over. (Weaker: a process id reused by another program keeps the directory taken.)
 */
export async function pidFileLock(directory: string, phase?: OwnerPhase): Promise<DirectoryLock | undefined> {
  const file = join(directory, OWNER_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, ownerText(phase), { flag: 'wx', mode: 0o600 });
      return { serving: () => writeOwner(directory, undefined), release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const { pid: owner } = await ownerOf(directory);
    if (owner !== undefined && alive(owner)) return undefined;
    await rm(file, { force: true });
  }
  return undefined;
}

/**
 * The directory's lock, or undefined when another live process holds it; `phase` is what the holder
 * says it does with it, in OWNER_FILE, from the moment the lock is taken.
 */
export function lockDirectory(directory: string, phase?: OwnerPhase): Promise<DirectoryLock | undefined> {
  return process.platform === 'linux' ? abstractSocketLock(directory, phase) : pidFileLock(directory, phase);
}

/** The process id the directory's owner wrote, if any, and what it said it does. */
export async function ownerOf(directory: string): Promise<{ pid: number | undefined; phase: OwnerPhase }> {
  const [first = '', second = ''] = (await readFile(join(directory, OWNER_FILE), 'utf8').catch(() => '')).split('\n');
  const pid = Number.parseInt(first, 10);
  return {
    pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
    phase: second === 'opening' ? 'opening' : undefined,
  };
}

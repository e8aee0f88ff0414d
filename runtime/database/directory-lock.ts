/**
 * Which process owns an embedded database directory: PGlite must never be opened on one directory by
 * two processes at once (each would write its own pages over the other's).
 */
import { createHash } from 'node:crypto';
import { readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The owner's process id, for the messages of the processes that find the directory taken. */
export const OWNER_FILE = 'owner.pid';

export interface DirectoryLock {
  release(): Promise<void>;
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
async function abstractSocketLock(directory: string): Promise<DirectoryLock | undefined> {
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
  await writeFile(join(directory, OWNER_FILE), `${process.pid}\n`, { mode: 0o600 });
  return {
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
export async function pidFileLock(directory: string): Promise<DirectoryLock | undefined> {
  const file = join(directory, OWNER_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(file, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      return { release: () => rm(file, { force: true }) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await ownerOf(directory);
    if (owner !== undefined && alive(owner)) return undefined;
    await rm(file, { force: true });
  }
  return undefined;
}

/** The directory's lock, or undefined when another live process holds it. */
export function lockDirectory(directory: string): Promise<DirectoryLock | undefined> {
  return process.platform === 'linux' ? abstractSocketLock(directory) : pidFileLock(directory);
}

/** The process id the directory's owner wrote, if any. */
export async function ownerOf(directory: string): Promise<number | undefined> {
  const text = await readFile(join(directory, OWNER_FILE), 'utf8').catch(() => '');
  const pid = Number.parseInt(text, 10);
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}

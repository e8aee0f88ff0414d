/**
 * Embedded PostgreSQL (PGlite) in a directory. The first process to open the directory owns it: it
 * runs PGlite on `<directory>/pgdata` and serves it to other processes (the `eca api-keys` CLI beside
 * the API server) on the unix socket `<directory>/.s.PGSQL.5432`, which `pg` reaches with the
 * directory as its host. A later opener connects through that socket; it never opens the files itself.
 */
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { PGlite, types } from '@electric-sql/pglite';
import type { Transaction } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';
import { lockDirectory, ownerOf } from './directory-lock.js';
import type { DirectoryLock } from './directory-lock.js';
import { DatabaseError, reasonOf } from './errors.js';
import { followOwner } from './follow-owner.js';
import { openPool } from './postgres.js';
import { SessionQueue } from './session-queue.js';
import type { Database } from './types.js';

/** `pg` finds a server's socket in a directory as `.s.PGSQL.<port>`. */
const SOCKET_PORT = 5432;
export const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;
const DATA_DIRECTORY = 'pgdata';
/** How long an opener waits for an owner that holds the directory, says nothing, and does not serve it. */
const OWNER_WAIT_MS = 20_000;
/**
 * How long an opener waits for an owner that is opening the database: a new directory takes PGlite a few
 * seconds alone, over 25 s beside a worker and an API server starting on 2 busy cores.
 */
const OPENING_WAIT_MS = 600_000;
/** A connection silent this long is closed (its transaction rolled back): it would hold the session. */
const IDLE_CONNECTION_MS = 60_000;

/** The types pg reads differently from PGlite's defaults, read as pg does: the same SQL, the same values. */
const PARSERS = {
  [types.INT8]: (text: string) => text,
  [types.BYTEA]: (text: string) => Buffer.from(text.slice(2), 'hex'),
};

async function connectToOwner(directory: string): Promise<Database | undefined> {
  if (!existsSync(join(directory, SOCKET_NAME))) return undefined;
  try {
    return await openPool({
      config: { host: directory, port: SOCKET_PORT, user: 'postgres', database: 'postgres', max: 4 },
      kind: 'embedded',
      display: join(directory, SOCKET_NAME),
    });
  } catch (error) {
    // A socket left by an owner that ended without closing answers nothing.
    if (error instanceof DatabaseError) return undefined;
    throw error;
  }
}

async function pgliteRows<T>(target: PGlite | Transaction, sql: string, params?: readonly unknown[]): Promise<T[]> {
  if (params && params.length > 0) return (await target.query<T>(sql, [...params])).rows;
  const results = await target.exec(sql);
  return (results.at(-1)?.rows ?? []) as T[];
}

/** Serves `queue`'s PGlite on the unix socket `path`, to this user only. */
async function serve(path: string, queue: SessionQueue): Promise<() => Promise<void>> {
  const handlers = new Set<PGLiteSocketHandler>();
  const server = createServer((socket) => {
    const handler = new PGLiteSocketHandler({
      // It calls enqueue, clearQueueForHandler and clearTransactionIfNeeded, which SessionQueue has.
      queryQueue: queue as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
      idleTimeout: IDLE_CONNECTION_MS,
    });
    const forget = () => handlers.delete(handler);
    handlers.add(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve());
  });
  // PGlite asks no password: the socket (in a 0700 directory) is the only door.
  await chmod(path, 0o600);
  server.unref();
  return async () => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...handlers].map((handler) => handler.detach(true)));
    await closed;
  };
}

/**
 * Makes `path`, a directory of the embedded database, this user's only (0700): `mkdir` leaves a directory
 * that existed before as it was, and PGlite creates its data directory with the process's umask. One this
 * process cannot narrow (another user's) is said at start, as a process warning on stderr.
 */
async function ownerOnly(path: string): Promise<void> {
  const { mode } = await stat(path);
  if ((mode & 0o077) === 0) return;
  try {
    await chmod(path, 0o700);
  } catch (error) {
    process.emitWarning(
      `the embedded database's directory ${path} is open to other users (mode ${(mode & 0o777).toString(8)}) ` +
        `and cannot be made 0700: ${reasonOf(error)}`,
      'EcaDatabaseWarning',
    );
  }
}

async function own(directory: string, lock: DirectoryLock): Promise<Database> {
  const socketPath = join(directory, SOCKET_NAME);
  let pglite: PGlite | undefined;
  try {
    await rm(socketPath, { force: true });
    pglite = await PGlite.create(join(directory, DATA_DIRECTORY), { parsers: PARSERS });
    await ownerOnly(join(directory, DATA_DIRECTORY));
  } catch (error) {
    await lock.release();
    throw new DatabaseError('unreachable', `cannot open the embedded database in ${directory}: ${reasonOf(error)}`);
  }
  const db = pglite;
  const queue = new SessionQueue(db);
  const stopServing = await serve(socketPath, queue).catch(async (error: unknown) => {
    await db.close();
    await lock.release();
    throw new DatabaseError('unreachable', `cannot serve the embedded database on ${socketPath}: ${reasonOf(error)}`);
  });
  await lock.serving();
  return {
    kind: 'embedded',
    query: (sql, params) => queue.run(() => pgliteRows(db, sql, params)),
    transaction: (fn) =>
      queue.run(() => db.transaction((tx) => fn({ query: (sql, params) => pgliteRows(tx, sql, params) }))),
    close: async () => {
      await stopServing();
      await queue.run(() => db.close());
      await rm(socketPath, { force: true });
      await lock.release();
    },
  };
}

export interface OwnerWait {
  /** How long an owner that holds the directory and does not serve it is waited for. */
  ownerWaitMs?: number;
  /** How long an owner that says it is opening the database is waited for, however slowly it opens. */
  openingWaitMs?: number;
}

/** The database in `directory`, through its owner or owned now; `owned` says which. */
async function openDirectory(
  directory: string,
  { ownerWaitMs = OWNER_WAIT_MS, openingWaitMs = OPENING_WAIT_MS }: OwnerWait,
): Promise<{ db: Database; owned: boolean }> {
  await mkdir(directory, { recursive: true, mode: 0o700 });
  await ownerOnly(directory);
  let giveUpAt = Date.now() + ownerWaitMs;
  let openingSince: number | undefined;
  for (;;) {
    const served = await connectToOwner(directory);
    if (served) return { db: served, owned: false };
    const lock = await lockDirectory(directory, 'opening');
    if (lock) return { db: await own(directory, lock), owned: true };
    const owner = await ownerOf(directory);
    const now = Date.now();
    if (owner.phase === 'opening') {
      // An owner that is opening the database (seconds, more on a busy machine) serves it next: waited for,
      // and the wait for its socket starts again once it serves.
      openingSince ??= now;
      giveUpAt = now + ownerWaitMs;
    } else {
      openingSince = undefined;
    }
    const opening = openingSince !== undefined && now - openingSince > openingWaitMs;
    if (opening || now > giveUpAt) {
      const holder = owner.pid === undefined ? 'another process' : `process ${owner.pid}`;
      throw new DatabaseError(
        'busy',
        opening
          ? `the embedded database in ${directory} is held by ${holder}, which has been opening it for over ` +
              `${Math.round(openingWaitMs / 1000)} s and does not serve it yet on ${join(directory, SOCKET_NAME)}`
          : `the embedded database in ${directory} is held by ${holder}, ` +
              `which does not serve it on ${join(directory, SOCKET_NAME)}`,
      );
    }
    await delay(200);
  }
}

/**
 * The embedded database in `directory` (created, 0700): owned by this process, or through its owner,
 * and opened again should that owner end. An owner that is opening the database is waited for until it
 * serves it (`openingWaitMs` at most); one that holds the directory and says nothing, `ownerWaitMs`.
 */
export async function openEmbedded(directory: string, wait: OwnerWait = {}): Promise<Database> {
  // A unix socket's path holds at most 107 bytes (Linux; 103 on macOS).
  if (Buffer.byteLength(join(directory, SOCKET_NAME)) > 103) {
    throw new DatabaseError('url', `the embedded database's directory path is too long for its socket: ${directory}`);
  }
  const { db, owned } = await openDirectory(directory, wait);
  if (owned) return db;
  return followOwner(db, async () => (await openDirectory(directory, wait)).db);
}

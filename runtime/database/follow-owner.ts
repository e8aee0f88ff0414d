/**
 * An embedded database reached through the process that owns it, which may end first: an `eca`
 * command that owned it when the API server started, an owner restarted. Then the database is opened
 * again (through a new owner, or as its owner now). A call that could not reach the owner is made again
 * on the database opened again: nothing of it was sent. A call under way when the owner went fails: its
 * outcome is not known.
 */
import { reasonOf } from './errors.js';
import type { Database } from './types.js';

/** The socket is gone, or nothing listens on it: the call was never sent. */
const NOT_SENT = new Set(['ENOENT', 'ECONNREFUSED']);

function lostOwner(error: unknown): 'before sending' | 'while running' | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && NOT_SENT.has(code)) return 'before sending';
  if (code === 'ECONNRESET' || code === 'EPIPE' || /Connection terminated/i.test(reasonOf(error))) {
    return 'while running';
  }
  return undefined;
}

export function followOwner(first: Database, reopen: () => Promise<Database>): Database {
  let current: Database | undefined = first;
  let opening: Promise<Database> | undefined;
  let closed = false;

  async function database(): Promise<Database> {
    if (current) return current;
    // The first call to find the owner gone opens again; the others wait for it.
    opening ??= reopen()
      .then((db) => (current = db))
      .finally(() => (opening = undefined));
    return opening;
  }

  async function call<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = await database();
    try {
      return await fn(db);
    } catch (error) {
      const lost = lostOwner(error);
      if (lost === undefined || closed) throw error;
      if (current === db) {
        current = undefined;
        void db.close().catch(() => undefined);
      }
      if (lost === 'while running') throw error;
      return fn(await database());
    }
  }

  return {
    kind: first.kind,
    query: (sql, params) => call((db) => db.query(sql, params)),
    transaction: (fn) => call((db) => db.transaction(fn)),
    close: async () => {
      closed = true;
      await opening?.catch(() => undefined);
      await current?.close();
    },
  };
}

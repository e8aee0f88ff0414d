/**
 * A database behind a `pg` pool: a PostgreSQL server, or an embedded database served by the process
 * that owns it (embedded.ts) on a unix socket.
 */
import pg from 'pg';
import { DatabaseError, reasonOf } from './errors.js';
import type { Database, Queryable } from './types.js';

/** How long a connection attempt may take before the database counts as unreachable. */
const CONNECT_TIMEOUT_MS = 10_000;

interface PgQueryable {
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult | pg.QueryResult[]>;
}

async function rowsOf<T>(target: PgQueryable, sql: string, params?: readonly unknown[]): Promise<T[]> {
  const result = await target.query(sql, params && params.length > 0 ? [...params] : undefined);
  // Several statements (simple protocol) answer one result each: the last one's rows are the answer.
  const last = Array.isArray(result) ? result.at(-1) : result;
  return (last?.rows ?? []) as T[];
}

async function inTransaction<T>(pool: pg.Pool, fn: (tx: Queryable) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await fn({ query: (sql, params) => rowsOf(client, sql, params) });
    await client.query('COMMIT');
    return result;
  } catch (error) {
    try {
      await client.query('ROLLBACK');
    } catch (rollbackError) {
      // A connection that cannot roll back is in no state to serve the next caller: it is discarded.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    }
    throw error;
  } finally {
    client.release(broken);
  }
}

export interface PoolTarget {
  config: pg.PoolConfig;
  kind: Database['kind'];
  /** Where the database is, for messages: never with a password. */
  display: string;
  /** Scrubbed from any message, in case a driver ever repeats it. */
  password?: string;
}

/** A pool on `target`, once a first connection works; else a DatabaseError saying why it does not. */
export async function openPool(target: PoolTarget): Promise<Database> {
  const pool = new pg.Pool({ connectionTimeoutMillis: CONNECT_TIMEOUT_MS, ...target.config });
  // An idle connection the server drops is replaced at the next query; unheard, the error would end the process.
  pool.on('error', () => {});
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => {});
    let reason = reasonOf(error);
    if (target.password) reason = reason.replaceAll(target.password, '***');
    throw new DatabaseError('unreachable', `cannot reach the database at ${target.display}: ${reason}`);
  }
  return {
    kind: target.kind,
    query: (sql, params) => rowsOf(pool, sql, params),
    transaction: (fn) => inTransaction(pool, fn),
    close: () => pool.end(),
  };
}

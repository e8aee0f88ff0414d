/** Brings a database's schema up to MIGRATIONS: run by openDatabase, on every open. */
import { DatabaseError, reasonOf } from './errors.js';
import { MIGRATIONS } from './migrations.js';
import type { Migration } from './migrations.js';
import type { Database, Queryable } from './types.js';

/** The advisory lock of migrations (any constant of our own: "ECAm"). */
const MIGRATION_LOCK = 0x4543416d;

const CREATE_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`;

async function appliedVersions(db: Queryable): Promise<Set<number>> {
  const [table] = await db.query<{ exists: boolean }>(`SELECT to_regclass('schema_migrations') IS NOT NULL AS exists`);
  if (!table?.exists) return new Set();
  const rows = await db.query<{ version: number }>('SELECT version FROM schema_migrations');
  return new Set(rows.map((row) => row.version));
}

/** Whether this call applied `migration` (false: another process had, meanwhile). */
async function applyOnce(db: Database, migration: Migration): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      // Processes opening one PostgreSQL together wait here for each other, so that each migration is
      // applied by one of them; the others find it applied. (Embedded: one session, nothing to wait for.)
      if (db.kind === 'postgres') await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await tx.query(CREATE_TABLE);
      const done = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [migration.version]);
      if (done.length > 0) return false;
      await tx.query(migration.sql);
      await tx.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      return true;
    });
  } catch (error) {
    if (error instanceof DatabaseError) throw error;
    throw new DatabaseError(
      'migration',
      `migration ${migration.version} (${migration.name}) failed and was rolled back: ${reasonOf(error)}`,
    );
  }
}

/** Applies the migrations `db` has not had yet; answers the versions applied now. */
export async function migrate(db: Database, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied = await appliedVersions(db);
  const pending = migrations.filter((migration) => !applied.has(migration.version));
  const now: number[] = [];
  for (const migration of pending) if (await applyOnce(db, migration)) now.push(migration.version);
  return now;
}

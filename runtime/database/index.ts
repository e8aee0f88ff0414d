/**
 * The engine's database: one small interface (types.ts) over PostgreSQL (`postgres://…`) and embedded
 * PostgreSQL (PGlite, `pglite:<directory>`, the default), with the same SQL and the same migrations on
 * both. Opening migrates: a database that opens is a database at the current schema.
 */
import { openEmbedded } from './embedded.js';
import { migrate } from './migrate.js';
import { openPool } from './postgres.js';
import { parseDatabaseUrl } from './url.js';
import type { Database } from './types.js';

export type { Database, Queryable } from './types.js';
export { DatabaseError } from './errors.js';
export type { DatabaseProblem } from './errors.js';
export { MIGRATIONS } from './migrations.js';
export type { Migration } from './migrations.js';
export { DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL, databaseUrlFromEnv, redactUrl } from './url.js';

/** Closing twice is harmless (a pool's end is not). */
function closingOnce(db: Database): Database {
  let closing: Promise<void> | undefined;
  return { ...db, close: () => (closing ??= db.close()) };
}

/**
 * Opens the database `url` names and applies its pending migrations. Fails with a DatabaseError: the
 * URL names no backend (`url`), the server or the embedded database's owner cannot be reached
 * (`unreachable`, `busy`), or a migration failed (`migration`).
 */
export async function openDatabase(url: string): Promise<Database> {
  const target = parseDatabaseUrl(url);
  let db: Database;
  if (target.kind === 'postgres') {
    db = await openPool({
      config: { connectionString: target.connectionString, max: 10 },
      kind: 'postgres',
      display: target.display,
      password: target.password,
    });
  } else {
    db = await openEmbedded(target.directory);
  }
  db = closingOnce(db);
  try {
    await migrate(db);
  } catch (error) {
    await db.close();
    throw error;
  }
  return db;
}

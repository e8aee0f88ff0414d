/**
 * The database's one error type (runtime/database): what is wrong and where, never a password. Kept
 * apart from the backends so that the CLI can tell it apart without loading `pg` or PGlite.
 */

/**
 * - `url`: the URL names no backend this engine has (or is malformed);
 * - `unreachable`: the server (or the embedded database's owner) refused or did not answer;
 * - `busy`: another process holds the embedded database and does not serve it;
 * - `migration`: a migration failed (rolled back; the database is as it was before it);
 * - `usage`: the code asked for something that cannot work (a query beside its own transaction).
 */
export type DatabaseProblem = 'url' | 'unreachable' | 'busy' | 'migration' | 'usage';

export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
  constructor(
    readonly problem: DatabaseProblem,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The message of a driver's error, for ours: its text, else its code. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}

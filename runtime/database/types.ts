/** What the engine sees of a database, whichever backend holds it (runtime/database/index.ts opens one). */

/** Rows as objects keyed by column; `T` is the caller's promise of their shape. */
export interface Queryable {
  /**
   * One statement with `$1…` parameters (extended protocol); without parameters, one or more statements
   * (simple protocol), answering the rows of the last. Both backends read the same types the same way:
   * `bigint` as a string, `timestamptz` as a Date, `jsonb` parsed, `bytea` as bytes.
   */
  query<T = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

export interface Database extends Queryable {
  /** `postgres`: a PostgreSQL server; `embedded`: PGlite, in this process or served by another. */
  readonly kind: 'postgres' | 'embedded';
  /**
   * Runs `fn` in a transaction on one connection: committed when it resolves, rolled back when it
   * throws (and the error rethrown). Query through `tx` inside it, never through the database itself.
   */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

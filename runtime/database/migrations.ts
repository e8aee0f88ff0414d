/**
 * The schema, as numbered migrations: each is applied once, in a transaction of its own, in order
 * (migrate.ts), on PostgreSQL and embedded alike. A released migration is never edited: a change is
 * a new one with the next number.
 */

export interface Migration {
  version: number;
  name: string;
  /** One or more statements, without parameters. */
  sql: string;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'api keys',
    // The secret itself is never stored: only its SHA-256 (runtime/api-keys.ts).
    sql: `
      CREATE TABLE api_keys (
        id text PRIMARY KEY,
        csid text NOT NULL,
        role text NOT NULL CHECK (role IN ('onboarding', 'staff', 'ops')),
        name text NOT NULL,
        secret_sha256 bytea NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        revoked_at timestamptz,
        last_used_at timestamptz
      );
      CREATE INDEX api_keys_csid ON api_keys (csid);
    `,
  },
];

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
  {
    version: 2,
    name: 'documents',
    // The document store in the database (runtime/document-store-postgres.ts): each blob sealed as the
    // filesystem store seals its files, under the same reference; holders and records keyed by the
    // SHA-256 of the owner's workflow id, never the id itself. Then the days' records of the daily
    // document submission (activities/daily-ledger.ts), which the filesystem keeps beside its store.
    sql: `
      CREATE TABLE documents (
        ref text PRIMARY KEY,
        sealed bytea NOT NULL,
        stored_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE document_holders (
        ref text NOT NULL REFERENCES documents (ref) ON DELETE CASCADE,
        holder text NOT NULL,
        PRIMARY KEY (ref, holder)
      );
      CREATE INDEX document_holders_holder ON document_holders (holder);
      CREATE TABLE document_closing_owners (
        owner_key text PRIMARY KEY,
        sealed bytea NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE daily_documents (
        csid text NOT NULL,
        day text NOT NULL,
        record jsonb NOT NULL,
        PRIMARY KEY (csid, day)
      );
    `,
  },
  {
    version: 3,
    name: 'events, webhook endpoints, deadline policies',
    // The lifecycle's event log (runtime/events.ts): one row per event, written by the application
    // workflows (idempotent on the event's id), read in (tx, position) order below the oldest open
    // transaction, so that a cursor never skips an event committed late. Then the firms' webhook
    // endpoints (runtime/webhooks.ts: secrets sealed, the cursor of what was delivered), and the
    // firms' deadline policies (domain/deadlines.ts), read by the applications when they wait. An event's
    // body is json, not jsonb: kept as written (its fields in their order, id first), as consumers read it.
    sql: `
      CREATE TABLE events (
        id text PRIMARY KEY,
        position bigserial NOT NULL,
        tx xid8 NOT NULL DEFAULT pg_current_xact_id(),
        csid text NOT NULL,
        external_id text NOT NULL,
        seq integer NOT NULL,
        type text NOT NULL,
        occurred_at timestamptz NOT NULL,
        recorded_at timestamptz NOT NULL DEFAULT now(),
        body json NOT NULL
      );
      CREATE INDEX events_firm_order ON events (csid, tx, position);
      CREATE INDEX events_application_order ON events (csid, external_id, tx, position);
      CREATE TABLE webhook_endpoints (
        id text PRIMARY KEY,
        csid text NOT NULL,
        url text NOT NULL,
        description text NOT NULL DEFAULT '',
        secrets bytea NOT NULL,
        state text NOT NULL CHECK (state IN ('active', 'paused', 'deleted')),
        cursor_tx xid8 NOT NULL,
        cursor_position bigint NOT NULL,
        delivered integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        last_error text,
        last_error_at timestamptz,
        last_delivered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX webhook_endpoints_csid ON webhook_endpoints (csid);
      CREATE TABLE deadline_policies (
        csid text PRIMARY KEY,
        policy jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 4,
    name: 'call budget',
    // The firm's brokerage calls, paced across every worker (runtime/call-budget.ts): per scope (`*` for
    // all calls, or an operation), the earliest time in epoch milliseconds the next call may go out.
    sql: `
      CREATE TABLE call_budget (
        csid text NOT NULL,
        scope text NOT NULL,
        next_at bigint NOT NULL,
        PRIMARY KEY (csid, scope)
      );
    `,
  },
  {
    version: 5,
    name: 'sweep snapshot',
    // The firm's status sweep (activities/sweep.ts, runtime/sweep-snapshot.ts): per account an application
    // waits on, which application (registered by its create) and the fingerprint the sweep last saw or
    // sent it; per firm, when the sweep last listed the waiting applications from Temporal's visibility.
    sql: `
      CREATE TABLE sweep_accounts (
        csid text NOT NULL,
        account_id text NOT NULL,
        workflow_id text NOT NULL,
        fingerprint text,
        PRIMARY KEY (csid, account_id)
      );
      CREATE TABLE sweep_firms (
        csid text PRIMARY KEY,
        listed_at bigint NOT NULL
      );
    `,
  },
  {
    version: 6,
    name: 'firms',
    // The firms the deployment serves (runtime/firms.ts): settings, the firm's private key and passphrase
    // sealed with the codec keys (NULL: held by the environment of the processes that configure it), the
    // brokerage's public key, and a digest that tells a change of keys from a restart with the same ones.
    sql: `
      CREATE TABLE firms (
        csid text PRIMARY KEY,
        name text NOT NULL,
        settings jsonb NOT NULL,
        managed_by text NOT NULL CHECK (managed_by IN ('environment', 'database')),
        sealed_keys bytea,
        brokerage_public_key text,
        keys_digest text,
        keys_version integer NOT NULL DEFAULT 1,
        keys_rotated_at timestamptz NOT NULL DEFAULT now(),
        disabled_at timestamptz,
        disabled_reason text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 7,
    name: 'admin keys',
    // The deployment's operator (api/admin.ts): firms and API keys, no firm of its own (CSID '*').
    sql: `
      ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
      ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check CHECK (role IN ('onboarding', 'staff', 'ops', 'admin'));
    `,
  },
  {
    version: 8,
    name: 'idempotency keys',
    // The API's `Idempotency-Key` header (api/idempotency.ts): per caller's firm (CSID, '*' for admin keys)
    // and key, the request it was first sent with (a SHA-256 of method, path and body) and, once answered,
    // the answer (status, Location and Content-Type, the body; NULL while in flight, and the body NULL where
    // it held a secret). Kept 24 hours from the first request.
    sql: `
      CREATE TABLE idempotency_keys (
        scope text NOT NULL,
        key text NOT NULL,
        fingerprint text NOT NULL,
        -- The claim's own token: only the request that holds it answers or releases the key.
        token text NOT NULL,
        status integer,
        headers jsonb,
        -- The answer's body, sealed with the codec keys where they are configured (runtime/sealing.ts).
        body bytea,
        created_at timestamptz NOT NULL DEFAULT now(),
        claimed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (scope, key)
      );
      CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
    `,
  },
  {
    version: 9,
    name: 'application protocols',
    // The protocol each application started on (runtime/application-protocols.ts): by the firm's CSID and
    // the application's external id (`x:<id>`) or its account's id (`a:<id>`), so that a firm moved to
    // another protocol leaves its running applications on theirs.
    sql: `
      CREATE TABLE application_protocols (
        csid text NOT NULL,
        key text NOT NULL,
        protocol text NOT NULL CHECK (protocol IN ('xml', 'webapi')),
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (csid, key)
      );
    `,
  },
  {
    version: 10,
    name: 'keyed keys digests',
    // A digest written before runtime/firm-keys-digest.ts is an unsalted SHA-256 of the keys, against which a
    // passphrase could be tested offline. A database firm's digest is never compared (only the environment's
    // firm is, at each start, which rewrites it as the HMAC), so its old one is dropped here.
    sql: `
      UPDATE firms SET keys_digest = NULL WHERE managed_by = 'database' AND keys_digest ~ '^[0-9a-f]{64}$';
    `,
  },
];

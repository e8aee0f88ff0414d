/**
 * The two database backends every database test runs on: embedded PGlite in a temporary directory,
 * and a real PostgreSQL from the machine's packages (scripts/cluster/postgres.ts), started once per
 * file. Each test takes a fresh database of its own: a new directory (seeded with today's schema), or a new
 * PostgreSQL database.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { Postgres, postgresInstalled } from '../../scripts/cluster/postgres.js';
import { openSeededDatabase, seededEmbeddedUrl } from './database-template.js';
import type { Database } from '../../runtime/database/index.js';

export interface Backend {
  readonly kind: 'embedded' | 'postgres';
  /** A URL of a new database with today's schema (embedded: from the template, test/support/database-template.ts). */
  freshUrl(): Promise<string>;
  /** A URL of a new database nothing has opened yet: for the tests of a first open. */
  emptyUrl(): Promise<string>;
}

export interface Backends {
  embedded: Backend;
  postgres: Backend & { server(): Postgres };
  all: Backend[];
}

/**
 * PostgreSQL's lane needs its server binaries, as `npm run cluster` does (docs/develop.md, Prerequisites); on a
 * machine without them the embedded lane runs alone and the PostgreSQL lane is reported pending.
 */
export const POSTGRES_INSTALLED = postgresInstalled();
let toldMissing = false;

/** `describe` for suites that need the real PostgreSQL: pending (with the reason) where it is not installed. */
export function describeOnPostgres(title: string, suite: (this: Mocha.Suite) => void): void {
  if (POSTGRES_INSTALLED) describe(title, suite);
  else describe.skip(`${title} (PostgreSQL is not installed here)`, suite);
}

/**
 * Registers the `before` / `after` hooks that start and stop the backends; call it inside a describe.
 * `postgres: false` leaves PostgreSQL unstarted, for a file whose tests run on the embedded lane alone.
 */
export function useDatabaseBackends(options: { postgres?: boolean } = {}): Backends {
  const withPostgres = POSTGRES_INSTALLED && options.postgres !== false;
  let dir = '';
  let postgres: Postgres | undefined;
  let admin: pg.Pool | undefined;
  const name = () => `t${randomBytes(6).toString('hex')}`;

  before(async function () {
    this.timeout(120_000);
    dir = await mkdtemp(join(tmpdir(), 'eca-db-'));
    if (!withPostgres) {
      if (POSTGRES_INSTALLED || toldMissing) return;
      console.log('      PostgreSQL is not installed here: database tests run on the embedded lane only');
      toldMissing = true;
      return;
    }
    // PostgreSQL runs as its own user when the tests run as root: it must be able to pass through.
    await chmod(dir, 0o711);
    postgres = new Postgres({ dataDir: join(dir, 'postgres') });
    await postgres.start();
    admin = new pg.Pool({ connectionString: postgres.url('postgres'), max: 1 });
  });

  after(async function () {
    await admin?.end();
    await postgres?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const embedded: Backend = {
    kind: 'embedded',
    freshUrl: () => seededEmbeddedUrl(join(dir, name())),
    emptyUrl: () => Promise.resolve(`pglite:${join(dir, name())}`),
  };
  const newPostgres = async () => {
    const database = name();
    await admin!.query(`CREATE DATABASE ${database}`);
    return postgres!.url(database);
  };
  const server: Backends['postgres'] = {
    kind: 'postgres',
    server: () => postgres!,
    freshUrl: newPostgres,
    emptyUrl: newPostgres,
  };
  return { embedded, postgres: server, all: withPostgres ? [embedded, server] : [embedded] };
}

let shared: Promise<Database> | undefined;

/**
 * One embedded database for the whole test process, opened on first use (a new PGlite database costs seconds
 * of CPU): the engine's database of harnesses whose tests do not read it themselves. What the engine keeps
 * there is keyed by firm, and each simulator is a firm of its own (a fresh CSID), so tests do not meet.
 * Removed as the process exits.
 */
export function sharedEmbeddedDatabase(): Promise<Database> {
  shared ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'eca-shared-db-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    return openSeededDatabase(join(dir, 'database'));
  })();
  return shared;
}

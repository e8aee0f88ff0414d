/**
 * The engine's database (runtime/database) on both backends: embedded PGlite in a temporary directory
 * and a real PostgreSQL 15 from the machine's packages. Then what one backend alone has: PostgreSQL's
 * concurrent openers, and the embedded database's owner serving other processes.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, stat } from 'node:fs/promises';
import { setTimeout as delay } from 'node:timers/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import pg from 'pg';
import { startTypeScript } from '../../../scripts/processes.js';
import type { Child } from '../../../scripts/processes.js';
import { openEmbedded, SOCKET_NAME } from '../../../runtime/database/embedded.js';
import {
  DatabaseError,
  databaseUrlFromEnv,
  DEFAULT_DATABASE_URL,
  MIGRATIONS,
  openDatabase,
} from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { migrate } from '../../../runtime/database/migrate.js';
import { parseDatabaseUrl } from '../../../runtime/database/url.js';
import { describeOnPostgres, useDatabaseBackends } from '../../support/databases.js';
import { until } from '../../support/until.js';
import { addToCounter, COUNTER_TABLE, counterValue } from './fixtures/counter.js';

const HOLDER = 'test/e2e/runtime/fixtures/hold-database.ts';

async function rejectsWith(promise: Promise<unknown>, problem: string, pattern: RegExp): Promise<DatabaseError> {
  const error = await promise.then(
    () => assert.fail('expected a DatabaseError'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof DatabaseError, `not a DatabaseError: ${String(error)}`);
  assert.equal(error.problem, problem);
  assert.match(error.message, pattern);
  return error;
}

describe('the database (runtime/database)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();
  const opened: Database[] = [];
  const children: Child[] = [];

  async function open(url: string): Promise<Database> {
    const db = await openDatabase(url);
    opened.push(db);
    return db;
  }

  afterEach(async function () {
    await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
    await Promise.all(opened.splice(0).map((db) => db.close()));
  });

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      it('migrates on open, once: opening again applies nothing and changes nothing', async function () {
        const url = await backend.emptyUrl();
        const db = await open(url);
        assert.equal(db.kind, backend.kind);
        const first = await db.query('SELECT version, name, applied_at FROM schema_migrations ORDER BY version');
        assert.deepEqual(
          first.map((row) => row.version),
          MIGRATIONS.map((migration) => migration.version),
        );
        await db.close();
        const again = await open(url);
        assert.deepEqual(
          await again.query('SELECT version, name, applied_at FROM schema_migrations ORDER BY version'),
          first,
        );
        assert.deepEqual(await migrate(again), [], 'nothing left to apply');
      });

      it('reads the same SQL to the same values', async function () {
        const db = await open(await backend.freshUrl());
        const [row] = await db.query(
          `SELECT 9007199254740993::int8 AS big, 7::int4 AS small, 1.5::numeric AS exact, true AS yes,
                  '2030-01-02T03:04:05Z'::timestamptz AS at, '{"a":[1]}'::jsonb AS doc, '\\x0102'::bytea AS bytes`,
        );
        assert.deepEqual(
          { ...row, bytes: [...(row!.bytes as Uint8Array)] },
          {
            big: '9007199254740993',
            small: 7,
            exact: '1.5',
            yes: true,
            at: new Date('2030-01-02T03:04:05Z'),
            doc: { a: [1] },
            bytes: [1, 2],
          },
        );
        const [echo] = await db.query('SELECT $1::int8 + 1 AS next, $2::jsonb AS doc, $3::bytea AS bytes', [
          41,
          { b: 2 },
          Buffer.from([3]),
        ]);
        assert.deepEqual(
          { ...echo, bytes: [...(echo!.bytes as Uint8Array)] },
          { next: '42', doc: { b: 2 }, bytes: [3] },
        );
        // Without parameters, several statements: the rows of the last.
        assert.deepEqual(await db.query('CREATE TABLE t (a int); INSERT INTO t VALUES (1), (2); SELECT a FROM t'), [
          { a: 1 },
          { a: 2 },
        ]);
      });

      it('commits a transaction, rolls back one that throws (rethrowing), and goes on working', async function () {
        const db = await open(await backend.freshUrl());
        await db.query('CREATE TABLE notes (text text NOT NULL)');
        assert.equal(
          await db.transaction(async (tx) => {
            await tx.query('INSERT INTO notes VALUES ($1)', ['kept']);
            return 'done';
          }),
          'done',
        );
        const failure = new Error('changed my mind');
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query('INSERT INTO notes VALUES ($1)', ['dropped']);
            throw failure;
          }),
          (error) => error === failure,
        );
        // A statement that fails inside: the transaction is aborted, then rolled back.
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query('INSERT INTO notes VALUES ($1)', ['dropped too']);
            await tx.query('INSERT INTO notes VALUES (NULL)');
          }),
          /null value/,
        );
        assert.deepEqual(await db.query('SELECT text FROM notes'), [{ text: 'kept' }]);
      });

      it('rolls back a failed migration whole, with a DatabaseError naming it', async function () {
        const db = await open(await backend.freshUrl());
        const broken = { version: 999, name: 'broken', sql: 'CREATE TABLE half (a int); SELECT nothing FROM half' };
        await rejectsWith(
          migrate(db, [...MIGRATIONS, broken]),
          'migration',
          /^migration 999 \(broken\) failed.*nothing/,
        );
        assert.deepEqual(await db.query(`SELECT to_regclass('half') IS NULL AS gone`), [{ gone: true }]);
        assert.deepEqual(await db.query('SELECT 1 AS one FROM schema_migrations WHERE version = 999'), []);
      });

      it('keeps concurrent transactions apart', async function () {
        const db = await open(await backend.freshUrl());
        await db.query(COUNTER_TABLE);
        await Promise.all(Array.from({ length: 40 }, () => addToCounter(db)));
        assert.equal(await counterValue(db), 40);
      });
    });
  }

  describeOnPostgres('on PostgreSQL', function () {
    it('lets openers that start together apply each migration once', async function () {
      const url = await backends.postgres.freshUrl();
      const dbs = await Promise.all(Array.from({ length: 6 }, () => open(url)));
      const rows = await dbs[0]!.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
      assert.deepEqual(
        rows.map((row) => row.version),
        MIGRATIONS.map((migration) => migration.version),
      );
    });

    it('says why it cannot connect, never with the password', async function () {
      const server = backends.postgres.server();
      const wrong = 'wrong-password-4711';
      const refused = await rejectsWith(
        openDatabase(`postgres://${server.user}:${wrong}@${server.host}:${server.port}/postgres`),
        'unreachable',
        /cannot reach the database at postgres:\/\/temporal:\*\*\*@127\.0\.0\.1:\d+\/postgres: password authentication failed/,
      );
      const closed = await rejectsWith(
        openDatabase(`postgresql://${server.user}:${server.password}@127.0.0.1:9/postgres`),
        'unreachable',
        /ECONNREFUSED 127\.0\.0\.1:9/,
      );
      for (const [error, password] of [
        [refused, wrong],
        [closed, server.password],
      ] as const) {
        assert.ok(!inspect(error).includes(password), inspect(error));
        assert.ok(!String(error.stack).includes(password));
      }
    });
  });

  describe('URLs', function () {
    it('refuses a scheme it has no backend for, naming the scheme and never the password', function () {
      assert.throws(
        () => parseDatabaseUrl('mysql://root:hunter2@db/eca'),
        (error: unknown) =>
          error instanceof DatabaseError &&
          error.problem === 'url' &&
          /"mysql:"/.test(error.message) &&
          !error.message.includes('hunter2'),
      );
      assert.throws(() => parseDatabaseUrl('pglite:'), /names no directory/);
      assert.throws(() => parseDatabaseUrl('postgres://'), /not a valid|names no host/);
    });

    it('reads pglite:<dir> and bare paths as embedded directories, by default .data/database', function () {
      assert.deepEqual(parseDatabaseUrl('pglite:/srv/eca/db'), { kind: 'embedded', directory: '/srv/eca/db' });
      assert.deepEqual(parseDatabaseUrl('rel/db'), { kind: 'embedded', directory: join(process.cwd(), 'rel/db') });
      assert.equal(databaseUrlFromEnv({}), DEFAULT_DATABASE_URL);
      assert.equal(DEFAULT_DATABASE_URL, 'pglite:.data/database');
      assert.equal(databaseUrlFromEnv({ ECA_DATABASE_URL: 'postgres://h/db' }), 'postgres://h/db');
      assert.equal(parseDatabaseUrl('postgres://u:p%40ss@h/db').kind, 'postgres');
    });
  });

  describe('embedded', function () {
    async function holder(url: string, mode = '0'): Promise<Child> {
      const child = startTypeScript('database holder', HOLDER, [url, mode]);
      children.push(child);
      await child.waitFor(/holding \d+/, 60_000);
      return child;
    }

    it('makes its directory 0700 and its socket 0600', async function () {
      const url = await backends.embedded.emptyUrl();
      await open(url);
      const directory = parseDatabaseUrl(url);
      assert.equal(directory.kind, 'embedded');
      if (directory.kind !== 'embedded') return;
      assert.equal((await stat(directory.directory)).mode & 0o777, 0o700);
      assert.equal((await stat(join(directory.directory, SOCKET_NAME))).mode & 0o777, 0o600);
      assert.equal((await stat(join(directory.directory, 'pgdata'))).mode & 0o777, 0o700);
    });

    it('makes a directory that existed before, and a data directory left open, 0700 too', async function () {
      const url = await backends.embedded.emptyUrl();
      const directory = parseDatabaseUrl(url);
      assert.equal(directory.kind, 'embedded');
      if (directory.kind !== 'embedded') return;
      // Made by someone else first, open to every user, as a data directory a run under another umask leaves.
      await mkdir(join(directory.directory, 'pgdata'), { recursive: true });
      await chmod(directory.directory, 0o755);
      await chmod(join(directory.directory, 'pgdata'), 0o777);
      const db = await open(url);
      assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
      assert.equal((await stat(directory.directory)).mode & 0o777, 0o700);
      assert.equal((await stat(join(directory.directory, 'pgdata'))).mode & 0o777, 0o700);
      assert.equal((await stat(join(directory.directory, SOCKET_NAME))).mode & 0o777, 0o600);
    });

    it('refuses a query beside its own transaction rather than wait for ever', async function () {
      const db = await open(await backends.embedded.freshUrl());
      await rejectsWith(
        db.transaction(() => db.query('SELECT 1')),
        'usage',
        /inside one of its transactions/,
      );
      assert.deepEqual(await db.query('SELECT 1 AS one'), [{ one: 1 }]);
    });

    it('serves a second process through its owner, the same data, transactions kept apart', async function () {
      const url = await backends.embedded.freshUrl();
      const child = await holder(url, '100');
      const db = await open(url);
      const target = parseDatabaseUrl(url) as { directory: string };
      assert.equal((await readFile(join(target.directory, 'owner.pid'), 'utf8')).trim(), String(child.pid));
      // Both count at once: the holder in its own process, this one through the socket.
      process.kill(child.pid!, 'SIGUSR1');
      await Promise.all([...Array.from({ length: 100 }, () => addToCounter(db)), child.waitFor(/counted/, 60_000)]);
      assert.equal(await counterValue(db), 200);
      await db.close();
      await child.stop('SIGTERM');
      // Its owner gone, the directory is this process's: the same data.
      const owned = await open(url);
      assert.equal(await counterValue(owned), 200);
      assert.equal((await readFile(join(target.directory, 'owner.pid'), 'utf8')).trim(), String(process.pid));
    });

    it('opens again when the owner it goes through ends, owning it now', async function () {
      const url = await backends.embedded.freshUrl();
      const child = await holder(url, '3');
      const db = await open(url);
      process.kill(child.pid!, 'SIGUSR1');
      await child.waitFor(/counted/, 60_000);
      await child.stop('SIGTERM');
      // Its socket is gone: the call finds no owner, opens the directory itself, and is made there.
      assert.equal(await counterValue(db), 3);
      await addToCounter(db);
      assert.equal(await counterValue(db), 4);
      const { directory } = parseDatabaseUrl(url) as { directory: string };
      assert.equal((await readFile(join(directory, 'owner.pid'), 'utf8')).trim(), String(process.pid));
    });

    it('is taken over, with what was committed, after its owner is killed', async function () {
      const url = await backends.embedded.freshUrl();
      const child = await holder(url, '5');
      process.kill(child.pid!, 'SIGUSR1');
      await child.waitFor(/counted/, 60_000);
      await child.stop('SIGKILL');
      const db = await open(url);
      assert.equal(await counterValue(db), 5);
    });

    it("never lets the owner's calls into a connection's open transaction", async function () {
      const url = await backends.embedded.freshUrl();
      const db = await open(url);
      await db.query('CREATE TABLE notes (text text)');
      const { directory } = parseDatabaseUrl(url) as { directory: string };
      const client = new pg.Client({ host: directory, port: 5432, user: 'postgres', database: 'postgres' });
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query(`INSERT INTO notes VALUES ('uncommitted')`);
        let seen: unknown;
        const owners = db.query('SELECT count(*)::int AS n FROM notes').then((rows) => (seen = rows));
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal(seen, undefined, 'the owner waits for the transaction');
        await client.query('ROLLBACK');
        await owners;
        assert.deepEqual(seen, [{ n: 0 }]);
        // A connection that goes away inside a transaction: rolled back, and the session free again.
        await client.query('BEGIN');
        await client.query(`INSERT INTO notes VALUES ('abandoned')`);
      } finally {
        await client.end();
      }
      assert.deepEqual(await db.query('SELECT count(*)::int AS n FROM notes'), [{ n: 0 }]);
    });

    it('waits for an owner still opening a new database, however long that takes, and goes through it', async function () {
      const url = await backends.embedded.emptyUrl();
      const { directory } = parseDatabaseUrl(url) as { directory: string };
      const child = startTypeScript('database holder', HOLDER, [url, '2']);
      children.push(child);
      // The holder has the directory's lock: it is creating the database now (seconds of PGlite's initdb).
      await until('the holder to take the directory', async () => {
        const text = await readFile(join(directory, 'owner.pid'), 'utf8').catch(() => '');
        return text.split('\n')[0] === String(child.pid);
      });
      // Stopped there, its opening lasts as long as this test wants: longer than a waiter's wait for a silent holder.
      process.kill(child.pid!, 'SIGSTOP');
      assert.equal(existsSync(join(directory, SOCKET_NAME)), false, 'the holder was stopped before serving');
      let settled: unknown;
      const opening = openEmbedded(directory, { ownerWaitMs: 300 }).then(
        (db) => {
          opened.push(db);
          return (settled = db);
        },
        (error: unknown) => (settled = error),
      );
      await delay(1_500);
      assert.equal(settled, undefined, `still waiting for the holder, not given up: ${inspect(settled)}`);
      process.kill(child.pid!, 'SIGCONT');
      const db = await opening;
      assert.ok(!(db instanceof Error), `opened through the holder: ${inspect(db)}`);
      await child.waitFor(/holding \d+/, 60_000);
      process.kill(child.pid!, 'SIGUSR1');
      await child.waitFor(/counted/, 60_000);
      assert.equal(await counterValue(db as Database), 2);
      assert.equal((await readFile(join(directory, 'owner.pid'), 'utf8')).trim(), String(child.pid));
    });

    it('lets two processes started together on a new directory both open it, one serving the other', async function () {
      const url = await backends.embedded.emptyUrl();
      const pair = [0, 1].map((i) => startTypeScript(`database holder ${i}`, HOLDER, [url, '25']));
      children.push(...pair);
      await Promise.all(pair.map((child) => child.waitFor(/holding \d+/, 120_000)));
      for (const child of pair) process.kill(child.pid!, 'SIGUSR1');
      await Promise.all(pair.map((child) => child.waitFor(/counted/, 60_000)));
      const { directory } = parseDatabaseUrl(url) as { directory: string };
      const owner = (await readFile(join(directory, 'owner.pid'), 'utf8')).trim();
      assert.ok(
        pair.some((child) => String(child.pid) === owner),
        `one of them owns it (owner.pid: ${owner})`,
      );
      assert.equal(await counterValue(await open(url)), 50);
    });

    it('refuses, naming the directory and the process, when its holder does not serve it', async function () {
      const url = await backends.embedded.freshUrl();
      const child = await holder(url, '--lock-only');
      const { directory } = parseDatabaseUrl(url) as { directory: string };
      await rejectsWith(
        openEmbedded(directory, { ownerWaitMs: 500 }),
        'busy',
        new RegExp(`in ${directory} is held by process ${child.pid}, which does not serve it`),
      );
    });
  });
});

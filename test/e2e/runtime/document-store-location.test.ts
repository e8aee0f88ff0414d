/**
 * Which store ECA_DOCUMENT_STORE names (runtime/document-store-location.ts), references and sealed
 * bytes that mean the same in either store, and the days' records kept beside each (activities/daily-ledger.ts).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { generateCodecKeyring } from '../../../codec/index.js';
import { dailyLedgerBeside } from '../../../activities/daily-ledger.js';
import type { DailyDocumentsRecord } from '../../../activities/forms.js';
import { ConfigurationError, loadWorkerConfig } from '../../../runtime/config.js';
import { openDatabase } from '../../../runtime/database/index.js';
import { openDocumentStore, parseDocumentStoreLocation } from '../../../runtime/document-store-location.js';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import type { MaintainedDocumentStore } from '../../../runtime/document-store.js';
import { PostgresDocumentStore } from '../../../runtime/document-store-postgres.js';
import { POSTGRES_INSTALLED, useDatabaseBackends } from '../../support/databases.js';

function record(day: string, formNumber: string): DailyDocumentsRecord {
  return {
    result: { csid: 'C1', day, timeZone: 'America/New_York', forms: [{ formNumber, accepted: true }] },
    catalogue: [],
    recordedAt: `${day}T12:00:00.000Z`,
  } as unknown as DailyDocumentsRecord;
}

describe('the document store a location names', function () {
  this.timeout(120_000);
  const databases = useDatabaseBackends();
  let dir: string;
  const stores: MaintainedDocumentStore[] = [];

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-location-'));
  });

  afterEach(async function () {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await rm(dir, { recursive: true, force: true });
  });

  async function open(location: string, options: Parameters<typeof openDocumentStore>[1] = {}) {
    const store = await openDocumentStore(location, options);
    stores.push(store);
    return store;
  }

  it('reads a path as a directory and postgres://, postgresql:// and pglite: as the database; refuses other schemes', async function () {
    assert.deepEqual(parseDocumentStoreLocation('.data/documents'), { kind: 'files', root: '.data/documents' });
    assert.deepEqual(parseDocumentStoreLocation('/var/lib/eca'), { kind: 'files', root: '/var/lib/eca' });
    for (const url of ['postgres://u:p@db/eca', 'postgresql://db/eca', 'pglite:.data/database']) {
      assert.deepEqual(parseDocumentStoreLocation(url), { kind: 'database', url });
    }
    const s3 = parseDocumentStoreLocation('s3://user:secret@bucket/docs');
    assert.ok('problem' in s3 && /"s3:"/.test(s3.problem) && !s3.problem.includes('secret'));
    assert.ok('problem' in parseDocumentStoreLocation('pglite:'));
    assert.throws(
      () => loadWorkerConfig({ ECA_DOCUMENT_STORE: 'mysql://u:secret@db/eca' }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /ECA_DOCUMENT_STORE \(documentStore\.path\): the scheme "mysql:"/.test(error.message) &&
        !error.message.includes('secret'),
    );
    assert.equal(loadWorkerConfig({ ECA_DOCUMENT_STORE: 'pglite:/tmp/x' }).documentStore.path, 'pglite:/tmp/x');
    assert.equal(loadWorkerConfig({}).documentStore.path, '.data/documents');
    await assert.rejects(open('ftp://host/x'), ConfigurationError);
  });

  it('opens the filesystem store on a path and the database store on a URL, on PostgreSQL and PGlite', async function () {
    const keyring = generateCodecKeyring('k1');
    const files = await open(join(dir, 'documents'), { keyring });
    assert.ok(files instanceof FileDocumentStore);
    for (const backend of databases.all) {
      const url = await backend.freshUrl();
      const store = await open(url, { keyring });
      assert.ok(store instanceof PostgresDocumentStore);
      const ref = await store.put(new TextEncoder().encode('%PDF- across hosts'));
      // Another opener of the same URL (another host) reads it.
      const other = await open(url, { keyring });
      assert.equal(Buffer.from(await other.get(ref)).toString(), '%PDF- across hosts');
    }
  });

  it('opens a database at first use when asked to, and tries again after a failure', async function () {
    if (!POSTGRES_INSTALLED) this.skip();
    const server = databases.postgres.server();
    const name = `late_${Date.now()}`;
    const url = `postgres://${server.user}:${server.password}@${server.host}:${server.port}/${name}`;
    const store = await open(url, { lazy: true });
    // By name: the database's modules are loaded apart (a dynamic import), so their classes are other objects here.
    const unreachable = { name: 'DatabaseError', problem: 'unreachable' };
    await assert.rejects(store.list(), unreachable, 'the database is opened at first use');
    await assert.rejects(open(url), unreachable, 'opened now by default');
    const { host, port, user, password } = server;
    const admin = new pg.Client({ host, port, user, password, database: 'postgres' });
    await admin.connect();
    try {
      await admin.query(`CREATE DATABASE ${name}`);
    } finally {
      await admin.end();
    }
    assert.deepEqual(await store.list(), [], 'opened at the next use, once the database is there');
  });

  it('gives the same reference and sealed bytes in either store: a document moves between them as it is', async function () {
    const keyring = generateCodecKeyring('k1');
    const data = new TextEncoder().encode('<Applications tax_id="123-45-6789"/>');
    const files = await open(join(dir, 'documents'), { keyring });
    const url = await databases.all.at(-1)!.freshUrl();
    const database = await open(url, { keyring });
    const ref = await files.put(data, { owner: 'application-C-A' });
    assert.deepEqual(await database.put(data), ref, 'the same reference');
    // The file's bytes, put in the database's row, read there: both stores seal alike, bound to the reference.
    const db = await openDatabase(url);
    try {
      await db.query('UPDATE documents SET sealed = $2 WHERE ref = $1', [
        ref.ref,
        await readFile(join(dir, 'documents', ref.ref)),
      ]);
      assert.deepEqual(Buffer.from(await database.get(ref)), Buffer.from(data));
    } finally {
      await db.close();
    }
  });

  it('keeps the days’ records of the daily documents beside the store: in its directory, or its database', async function () {
    const urls = await Promise.all(databases.all.map((backend) => backend.freshUrl()));
    for (const location of [join(dir, 'documents'), ...urls]) {
      const ledger = dailyLedgerBeside(await open(location));
      assert.equal(await ledger.latest('C1'), undefined);
      await ledger.write(record('2025-03-03', '3230'));
      await ledger.write(record('2025-03-04', '3024'));
      await ledger.write(record('2025-03-04', '3230'));
      assert.deepEqual(await ledger.latest('C1'), record('2025-03-04', '3230'), location);
      assert.deepEqual(await ledger.latest('C1', '2025-03-04'), record('2025-03-03', '3230'));
      assert.deepEqual(await ledger.read('C1', '2025-03-03'), record('2025-03-03', '3230'));
      assert.equal(await ledger.read('C1', '2025-03-05'), undefined);
      assert.equal(await ledger.latest('C2'), undefined);
    }
  });
});

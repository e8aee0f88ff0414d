/**
 * `eca api-keys` (the real executable) on both database backends, and on an embedded database that
 * another process holds open, as the API server does.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyApiKey } from '../../../runtime/api-keys.js';
import type { ApiKeyRecord } from '../../../runtime/api-keys.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { parseDatabaseUrl } from '../../../runtime/database/url.js';
import { startTypeScript } from '../../../scripts/processes.js';
import { useDatabaseBackends } from '../../support/databases.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));
const KEY = /eca_[a-z2-7]{12}_[A-Za-z0-9_-]{43}/;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function eca(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const { ECA_DATABASE_URL: _url, ECA_CSID: _csid, ECA_OUTPUT: _output, ...inherited } = process.env;
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ECA, ...args],
      { env: { ...inherited, NO_COLOR: '1', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** `eca api-keys <words> --database <url>`: the words split at spaces. */
function apiKeys(url: string, words: string, env: Record<string, string> = {}): Promise<Run> {
  return eca(['api-keys', ...words.split(' '), '--database', url], env);
}

function directoryOf(url: string): string {
  const target = parseDatabaseUrl(url);
  assert.equal(target.kind, 'embedded');
  return (target as { directory: string }).directory;
}

describe('eca api-keys (real executable)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let url: string;
      let db: Database;

      before(async function () {
        url = await backend.freshUrl();
        // Held open by the test all along: on embedded, the commands reach it through this process.
        db = await openDatabase(url);
      });

      after(async function () {
        await db?.close();
      });

      it('creates a key that verifies, lists it without its secret, and revokes it', async function () {
        const created = await apiKeys(url, 'create --csid FIRM1 --role onboarding --name intake --json');
        assert.equal(created.code, 0, created.stderr);
        const { key, ...record } = JSON.parse(created.stdout) as ApiKeyRecord & { key: string };
        assert.match(key, KEY);
        assert.deepEqual(
          { csid: record.csid, role: record.role, name: record.name },
          { csid: 'FIRM1', role: 'onboarding', name: 'intake' },
        );
        assert.deepEqual((await verifyApiKey(db, key))?.id, record.id);

        // ECA_DATABASE_URL and ECA_CSID in place of the options; text for people.
        const env = { ECA_DATABASE_URL: url, ECA_CSID: 'FIRM1' };
        const text = await eca(['api-keys', 'create', '--role', 'ops', '--name', 'dashboards'], env);
        assert.equal(text.code, 0, text.stderr);
        const textKey = KEY.exec(text.stdout)?.[0];
        assert.ok(textKey, text.stdout);
        assert.match(
          text.stdout,
          new RegExp(`^API key ${textKey.slice(4, 16)} for CSID FIRM1, role ops \\(dashboards\\):\n${textKey}\n`),
        );
        assert.equal((await verifyApiKey(db, textKey))?.role, 'ops');

        const listed = await eca(['api-keys', 'list', '--json'], env);
        assert.equal(listed.code, 0, listed.stderr);
        const ids = (JSON.parse(listed.stdout) as ApiKeyRecord[]).map((entry) => entry.id);
        assert.deepEqual(ids.sort(), [record.id, textKey.slice(4, 16)].sort());
        const table = await eca(['api-keys', 'list'], env);
        assert.match(table.stdout, new RegExp(`^${record.id}\\s+FIRM1\\s+onboarding\\s+intake\\s`, 'm'));
        for (const output of [listed.stdout, table.stdout]) {
          assert.ok(!output.includes(key.slice(17)) && !output.includes(textKey.slice(17)), 'a secret is listed');
        }

        const unconfirmed = await eca(['api-keys', 'revoke', record.id], env);
        assert.equal(unconfirmed.code, 13, unconfirmed.stderr);
        assert.ok(await verifyApiKey(db, key), 'not confirmed: not revoked');
        const revoked = await eca(['api-keys', 'revoke', record.id, '--yes'], env);
        assert.equal(revoked.code, 0, revoked.stderr);
        assert.equal(revoked.stdout, `revoked API key ${record.id}\n`);
        assert.equal(await verifyApiKey(db, key), undefined);
        const after = JSON.parse((await eca(['api-keys', 'list', '-o', 'json'], env)).stdout) as ApiKeyRecord[];
        assert.ok(after.find((entry) => entry.id === record.id)?.revokedAt);

        const unknown = await eca(['api-keys', 'revoke', 'nosuchkey234', '--yes', '-o', 'json'], env);
        assert.equal(unknown.code, 3, unknown.stderr);
        assert.match(unknown.stderr, /"code":"INVALID_INPUT".*no API key nosuchkey234/);
      });

      it('refuses bad input with the invalid-input code, naming the option, before opening anything', async function () {
        const untouched = await backend.emptyUrl();
        const role = await apiKeys(untouched, 'create --csid FIRM1 --role superuser --name x');
        assert.equal(role.code, 3, role.stderr);
        assert.equal(role.stderr, 'eca: --role: "superuser" is not one of onboarding, staff, ops, admin\n');
        const json = await apiKeys(untouched, 'create --csid FIRM1 --role root --name x -o json');
        assert.deepEqual(JSON.parse(json.stderr), {
          error: {
            code: 'INVALID_INPUT',
            exitCode: 3,
            message: '--role: "root" is not one of onboarding, staff, ops, admin',
          },
        });
        const csid = await apiKeys(untouched, 'create --role ops --name x');
        assert.equal(csid.code, 3, csid.stderr);
        assert.match(csid.stderr, /--csid: give the firm/);
        const name = await eca([
          ...'api-keys create --csid FIRM1 --role ops --name'.split(' '),
          ' ',
          '--database',
          untouched,
        ]);
        assert.equal(name.code, 3, name.stderr);
        assert.match(name.stderr, /^eca: --name: /);
        if (backend.kind === 'embedded') assert.ok(!existsSync(directoryOf(untouched)), 'the database was opened');
      });
    });
  }

  it('says what is wrong with the database, never its password', async function () {
    const scheme = await eca(['api-keys', 'list', '--database', 'mysql://root:hunter2@db/eca']);
    assert.equal(scheme.code, 11, scheme.stderr);
    assert.match(scheme.stderr, /scheme "mysql:"/);
    const closed = await eca(['api-keys', 'list', '-o', 'json'], {
      ECA_DATABASE_URL: 'postgres://eca:hunter2@127.0.0.1:9/eca',
    });
    assert.equal(closed.code, 1, closed.stderr);
    assert.match(closed.stderr, /cannot reach the database at postgres:\/\/eca:\*\*\*@127\.0\.0\.1:9\/eca/);
    for (const run of [scheme, closed]) assert.ok(!`${run.stdout}${run.stderr}`.includes('hunter2'));
  });

  describe('on an embedded database another process holds', function () {
    it('works through the holder, on the same data', async function () {
      const url = await backends.embedded.freshUrl();
      const holder = startTypeScript('database holder', 'test/e2e/runtime/fixtures/hold-database.ts', [url]);
      try {
        await holder.waitFor(/holding \d+/, 60_000);
        const created = await apiKeys(url, 'create --csid FIRM9 --role staff --name desk -o json');
        assert.equal(created.code, 0, created.stderr);
        const { key, id } = JSON.parse(created.stdout) as { key: string; id: string };
        assert.equal((await readFile(join(directoryOf(url), 'owner.pid'), 'utf8')).trim(), String(holder.pid));
        // A third process, through the holder too, sees what the CLI wrote.
        const db = await openDatabase(url);
        try {
          assert.equal((await verifyApiKey(db, key))?.csid, 'FIRM9');
        } finally {
          await db.close();
        }
        await holder.stop('SIGTERM');
        const owned = await openDatabase(url);
        try {
          assert.equal((await verifyApiKey(owned, key))?.id, id, 'the holder wrote it into its files');
        } finally {
          await owned.close();
        }
      } finally {
        await holder.stop('SIGKILL');
      }
    });
  });
});

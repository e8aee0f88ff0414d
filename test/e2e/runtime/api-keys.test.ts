/** API keys (runtime/api-keys.ts) on both database backends: embedded PGlite and a real PostgreSQL. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { ApiKeyInputError, createApiKey, listApiKeys, revokeApiKey, verifyApiKey } from '../../../runtime/api-keys.js';
import type { ApiKeyRecord } from '../../../runtime/api-keys.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { useDatabaseBackends } from '../../support/databases.js';

const KEY = /^eca_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;

function secretOf(key: string): string {
  return KEY.exec(key)![2]!;
}

describe('API keys (runtime/api-keys)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
      });

      after(async function () {
        await db?.close();
      });

      it('creates a key, shown once, that verifies to its firm and role', async function () {
        const { key, record } = await createApiKey(db, { csid: 'FIRM1', role: 'onboarding', name: ' intake system ' });
        assert.match(key, KEY);
        assert.equal(KEY.exec(key)![1], record.id);
        const { createdAt, ...rest } = record;
        assert.deepEqual(rest, { id: record.id, csid: 'FIRM1', role: 'onboarding', name: 'intake system' });
        assert.ok(createdAt instanceof Date);
        const verified = await verifyApiKey(db, key);
        assert.ok(verified);
        assert.deepEqual(
          { id: verified.id, csid: verified.csid, role: verified.role, createdAt: verified.createdAt },
          { id: record.id, csid: 'FIRM1', role: 'onboarding', createdAt: record.createdAt },
        );
        const other = await createApiKey(db, { csid: 'FIRM2', role: 'ops', name: 'dashboards' });
        assert.notEqual(other.record.id, record.id);
        assert.equal((await verifyApiKey(db, other.key))?.role, 'ops');
      });

      it('verifies nothing else: a wrong secret, malformed, unknown or revoked key', async function () {
        const { key, record } = await createApiKey(db, { csid: 'FIRM1', role: 'staff', name: 'back office' });
        const secret = secretOf(key);
        const wrongSecret = `eca_${record.id}_${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
        const unknownId = `eca_${record.id.endsWith('a') ? `${record.id.slice(0, -1)}b` : `${record.id.slice(0, -1)}a`}_${secret}`;
        for (const presented of [wrongSecret, unknownId, '', 'eca_', key.slice(0, -1), `${key}x`, ` ${key}`, secret]) {
          assert.equal(await verifyApiKey(db, presented), undefined, JSON.stringify(presented));
        }
        assert.ok(await verifyApiKey(db, key));
        assert.equal(await revokeApiKey(db, record.id), true);
        assert.equal(await verifyApiKey(db, key), undefined, 'revoked');
        const [revoked] = (await listApiKeys(db, { csid: 'FIRM1' })).filter((entry) => entry.id === record.id);
        assert.ok(revoked?.revokedAt instanceof Date);
        assert.equal(await revokeApiKey(db, record.id), true, 'revoking again is harmless');
        assert.deepEqual(
          (await listApiKeys(db, { csid: 'FIRM1' })).find((entry) => entry.id === record.id)?.revokedAt,
          revoked.revokedAt,
          'revoked from the first time',
        );
        assert.equal(await revokeApiKey(db, 'nosuchkey234'), false);
      });

      it('lists records only, never a secret or its hash, by firm or all', async function () {
        const created = await Promise.all(
          ['FIRM3', 'FIRM3', 'FIRM4'].map((csid, i) => createApiKey(db, { csid, role: 'ops', name: `reader ${i}` })),
        );
        const firm3 = await listApiKeys(db, { csid: 'FIRM3' });
        assert.deepEqual(
          firm3.map((entry) => entry.id).sort(),
          created
            .slice(0, 2)
            .map((c) => c.record.id)
            .sort(),
        );
        const all = await listApiKeys(db);
        for (const { record } of created) assert.ok(all.some((entry) => entry.id === record.id));
        const allowed: Array<keyof ApiKeyRecord> = [
          'id',
          'csid',
          'role',
          'name',
          'createdAt',
          'revokedAt',
          'lastUsedAt',
        ];
        for (const entry of all)
          for (const field of Object.keys(entry)) assert.ok(allowed.includes(field as never), field);
        const serialized = JSON.stringify(all);
        for (const { key } of created) {
          const hash = createHash('sha256').update(secretOf(key)).digest();
          for (const secretForm of [
            secretOf(key),
            hash.toString('hex'),
            hash.toString('base64'),
            hash.toString('base64url'),
          ])
            assert.ok(!serialized.includes(secretForm), 'the list shows a secret or its hash');
        }
      });

      it('stores the secret as its SHA-256 only', async function () {
        const { key, record } = await createApiKey(db, { csid: 'FIRM5', role: 'onboarding', name: 'stored' });
        const [row] = await db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [record.id]);
        const secret = secretOf(key);
        const hash = Buffer.from(row!.secret_sha256 as Uint8Array);
        assert.deepEqual(hash, createHash('sha256').update(secret).digest());
        const everything = JSON.stringify(
          Object.values(row!).map((value) => (value instanceof Uint8Array ? '' : value)),
        );
        assert.ok(!everything.includes(secret) && !hash.toString('latin1').includes(secret), 'the secret is stored');
      });

      it('records the last use at most once a minute', async function () {
        const { key, record } = await createApiKey(db, { csid: 'FIRM6', role: 'staff', name: 'used' });
        const lastUsed = async () =>
          (
            await db.query<{ at: Date | null }>('SELECT last_used_at AS at FROM api_keys WHERE id = $1', [record.id])
          )[0]!.at;
        assert.equal(await lastUsed(), null);
        const first = await verifyApiKey(db, key);
        const stored = await lastUsed();
        assert.ok(stored instanceof Date);
        assert.deepEqual(first?.lastUsedAt, stored);
        await verifyApiKey(db, key);
        assert.deepEqual(await lastUsed(), stored, 'written again within the minute');
        await db.query(`UPDATE api_keys SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [record.id]);
        const later = await verifyApiKey(db, key);
        // Two minutes old: written again (not written, it would read two minutes before `stored`).
        assert.ok(later?.lastUsedAt && later.lastUsedAt.getTime() >= stored.getTime());
        assert.deepEqual(await lastUsed(), later.lastUsedAt);
      });

      it('refuses a key it cannot make, naming the field, and stores nothing', async function () {
        const before = (await listApiKeys(db)).length;
        for (const [input, field] of [
          [{ csid: '', role: 'ops', name: 'x' }, 'csid'],
          [{ csid: 'FIRM 1', role: 'ops', name: 'x' }, 'csid'],
          [{ csid: 'FIRM1', role: 'root', name: 'x' }, 'role'],
          // An admin key belongs to no firm.
          [{ csid: 'FIRM1', role: 'admin', name: 'x' }, 'csid'],
          [{ csid: 'FIRM1', role: 'ops', name: '  ' }, 'name'],
          [{ csid: 'FIRM1', role: 'ops', name: 'line\nbreak' }, 'name'],
          [{ csid: 'FIRM1', role: 'ops', name: 'n'.repeat(201) }, 'name'],
        ] as const) {
          await assert.rejects(
            createApiKey(db, input),
            (error: unknown) =>
              error instanceof ApiKeyInputError && error.field === field && error.message.startsWith(`${field}: `),
            JSON.stringify(input),
          );
        }
        assert.equal((await listApiKeys(db)).length, before);
      });
    });
  }
});

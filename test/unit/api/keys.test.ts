import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { databaseKeyVerifier } from '../../../api/keys.js';
import { createApiKey, revokeApiKey } from '../../../runtime/api-keys.js';
import type { Database } from '../../../runtime/database/index.js';
import { openSeededDatabase } from '../../support/database-template.js';

describe('onboarding API: key checks (embedded database)', function () {
  let dir: string;
  let db: Database;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-keys-'));
    db = await openSeededDatabase(join(dir, 'database'));
  });

  after(async function () {
    await db?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('trusts a valid key for the cache period only: a revocation applies within it, a new key at once', async function () {
    const verify = databaseKeyVerifier(db, { cacheMs: 1_500 });
    const { key, record } = await createApiKey(db, { csid: 'FIRM-A', role: 'onboarding', name: 'cached' });
    assert.deepEqual(await verify(key), { keyId: record.id, csid: 'FIRM-A', role: 'onboarding' });
    await revokeApiKey(db, record.id);
    assert.equal((await verify(key))?.keyId, record.id, 'still trusted within the cache period');
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    assert.equal(await verify(key), undefined, 'refused once the period is over');
    // A key created while the verifier runs works at once.
    const fresh = await createApiKey(db, { csid: 'FIRM-A', role: 'staff', name: 'fresh' });
    assert.equal((await verify(fresh.key))?.role, 'staff');
  });

  it('asks the database on every request without a cache period', async function () {
    const verify = databaseKeyVerifier(db);
    const { key, record } = await createApiKey(db, { csid: 'FIRM-B', role: 'ops', name: 'uncached' });
    assert.equal((await verify(key))?.csid, 'FIRM-B');
    await revokeApiKey(db, record.id);
    assert.equal(await verify(key), undefined);
  });
});

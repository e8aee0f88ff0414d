/**
 * The create's response file (temporary passwords) in the document store: its reference's SHA-1, shown in
 * history and `eca status -o json`, is salted, so that it cannot be matched against guessed passwords.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApplicationActivities } from '../../../activities/application.js';
import { FileDocumentStore, sha1Of } from '../../../runtime/document-store.js';
import { generateCodecKeyring } from '../../../codec/index.js';
import { ecaClientFor } from '../../../simulator/client.js';
import { startSimulator } from '../../../simulator/server.js';
import type { RunningSimulator } from '../../../simulator/server.js';
import { applicationXml } from '../../support/engine.js';
import { inActivity } from '../../support/activity-context.js';

describe('the kept response file of a create', function () {
  let sim: RunningSimulator;
  let dir: string;

  beforeEach(async function () {
    sim = await startSimulator({ startTime: Date.UTC(2025, 0, 8, 10) });
    dir = await mkdtemp(join(tmpdir(), 'eca-salt-'));
  });
  afterEach(async function () {
    await sim.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('carries a random salt: the SHA-1 of its reference is not the hash of the fields it keeps', async function () {
    const store = new FileDocumentStore(join(dir, 'documents'), { keyring: generateCodecKeyring() });
    const engine = inActivity(createApplicationActivities({ eca: ecaClientFor(sim, { retry: 0 }), store }));
    const application = await store.put(new TextEncoder().encode(applicationXml('happy-salt')));
    const created = await engine.createAccount({
      csid: sim.csid,
      externalId: 'happy-salt',
      application,
      documents: [],
    });
    assert.ok(created.created && created.responseRef, JSON.stringify(created));
    const kept = JSON.parse(Buffer.from(await store.get(created.responseRef)).toString()) as Record<string, unknown>;
    assert.ok(Array.isArray(kept.users) && kept.users.length > 0, 'the users were kept');
    assert.ok(typeof kept.salt === 'string' && Buffer.from(kept.salt, 'base64url').length >= 16, 'no salt');
    const { salt: _salt, ...fields } = kept;
    assert.notEqual(sha1Of(new TextEncoder().encode(JSON.stringify(fields))), created.responseRef.sha1);
  });
});

/** The firms of a deployment (runtime/firms.ts, runtime/firm-brokerages.ts) on the embedded database. */
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync } from 'node:crypto';
import { generateKeyPair } from '../../../eca/crypto.js';
import { generateCodecKeyring } from '../../../codec/keyring.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { FirmRegistry } from '../../../runtime/firms.js';
import type { FirmKeys } from '../../../runtime/firms.js';
import {
  FirmDisabledError,
  FirmInputError,
  FirmLookupError,
  FirmNotConfiguredError,
} from '../../../runtime/firm-errors.js';
import { WriteAttempt } from '../../../activities/write-attempt.js';
import { updateCall, updateInDoubt } from '../../../activities/update-sender.js';
import { FirmBrokerages } from '../../../runtime/firm-brokerages.js';
import { useDatabaseBackends } from '../../support/databases.js';
import { watchedActivityEnvironment } from '../../support/log-watch.js';

const PASSPHRASE = 'firm passphrase';

async function keysOf(name: string): Promise<FirmKeys> {
  const firm = await generateKeyPair({
    name,
    email: `${name.replace(/ /g, '-').toLowerCase()}@example.test`,
    passphrase: PASSPHRASE,
  });
  const brokerage = await generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' });
  return { firmPrivateKey: firm.privateKey, passphrase: PASSPHRASE, brokeragePublicKey: brokerage.publicKey };
}

describe('firms (runtime/firms)', function () {
  this.timeout(60_000);
  const backends = useDatabaseBackends();
  let db: Database;
  let clock: number;
  let keys: FirmKeys;
  let newKeys: FirmKeys;
  const keyring = generateCodecKeyring('k1');

  before(async function () {
    db = await openDatabase(await backends.embedded.freshUrl());
    [keys, newKeys] = await Promise.all([keysOf('Firm'), keysOf('Firm rotated')]);
  });

  after(async function () {
    await db?.close();
  });

  beforeEach(async function () {
    await db.query('DELETE FROM firms');
    clock = 1_000_000;
  });

  const registry = (options: ConstructorParameters<typeof FirmRegistry>[1] = {}) =>
    new FirmRegistry(db, { keyring, now: () => clock, cacheMs: 5_000, ...options });

  it('adds a firm whose reads never carry its keys, and whose private key is sealed at rest', async function () {
    const firms = registry();
    const added = await firms.add({ csid: 'F-1', name: 'Firm one', settings: { firmTypes: ['advisor'] }, keys });
    assert.equal(added.keys.version, 1);
    assert.equal(added.managedBy, 'database');
    assert.deepEqual(added.settings.firmTypes, ['advisor']);
    for (const read of [added, await firms.get('F-1'), await firms.list()]) {
      const text = JSON.stringify(read);
      assert.doesNotMatch(text, /PRIVATE KEY|PUBLIC KEY/);
      assert.ok(!text.includes(PASSPHRASE));
    }
    const [row] = await db.query<{ sealed_keys: Uint8Array }>('SELECT sealed_keys FROM firms');
    const stored = Buffer.from(row!.sealed_keys).toString('latin1');
    assert.ok(!stored.includes('PRIVATE KEY') && !stored.includes(PASSPHRASE), 'the key is not stored in the clear');
    const active = await firms.active('F-1');
    assert.equal(active.keys.firmPrivateKey, keys.firmPrivateKey);
    assert.equal(active.keys.passphrase, PASSPHRASE);
  });

  it('refuses a firm it cannot seal, a key that does not open, and a CSID twice, naming the field', async function () {
    await assert.rejects(
      registry({ keyring: undefined }).add({ csid: 'F', name: 'F', keys }),
      (error: unknown) =>
        error instanceof FirmInputError && error.field === 'keys' && /ECA_CODEC_KEYS/.test(error.message),
    );
    await assert.rejects(
      registry().add({ csid: 'F', name: 'F', keys: { ...keys, passphrase: 'wrong' } }),
      (error: unknown) => error instanceof FirmInputError && error.field === 'firmPrivateKey',
    );
    await assert.rejects(
      registry().add({ csid: 'F', name: 'F', settings: { maintenanceTimeZone: 'Mars/Olympus' }, keys }),
      (error: unknown) => error instanceof FirmInputError && error.field === 'maintenanceTimeZone',
    );
    await assert.rejects(
      registry().add({ csid: 'F', name: 'F', settings: { baseUrl: 'not a url' }, keys }),
      (error: unknown) => error instanceof FirmInputError && error.field === 'baseUrl',
    );
    await registry().add({ csid: 'F', name: 'F', keys });
    await assert.rejects(
      registry().add({ csid: 'F', name: 'again', keys }),
      (error: unknown) => error instanceof FirmInputError && error.field === 'csid',
    );
  });

  it('holds a firm on the Web API alone with its Web API key and no OpenPGP keys, and never calls the XML service for it', async function () {
    const webApiPrivateKey = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const webApi = { baseUrl: 'https://api.example.test', clientId: 'w', keyId: 'k1' };
    const firms = registry();
    await firms.add({
      csid: 'W-1',
      name: 'Web only',
      settings: { protocol: 'webapi', webApi },
      keys: { webApiPrivateKey },
    });
    const active = await firms.active('W-1');
    assert.deepEqual(Object.keys(active.keys), ['webApiPrivateKey']);
    const brokerages = new FirmBrokerages(firms, { database: db });
    assert.ok(await brokerages.webApiClientFor('W-1'));
    await assert.rejects(
      brokerages.clientFor('W-1'),
      (error: unknown) => error instanceof FirmNotConfiguredError && /no OpenPGP keys/.test(error.message),
    );
    // The XML service needs the OpenPGP keys: refused by field, on every way a firm could reach it without them.
    const refusedKeys = (error: unknown) => error instanceof FirmInputError && error.field === 'keys';
    await assert.rejects(firms.update('W-1', { settings: { protocol: 'xml' } }), refusedKeys);
    await assert.rejects(firms.add({ csid: 'X-1', name: 'x', keys: { webApiPrivateKey } }), refusedKeys);
    await assert.rejects(firms.add({ csid: 'X-2', name: 'x', keys: {} }), refusedKeys);
    await assert.rejects(
      firms.add({ csid: 'X-3', name: 'x', keys: { firmPrivateKey: keys.firmPrivateKey, passphrase: PASSPHRASE } }),
      (error: unknown) => error instanceof FirmInputError && error.field === 'brokeragePublicKey',
    );
    // Given OpenPGP keys, it may move to the XML service.
    await firms.rotateKeys('W-1', { ...keys, webApiPrivateKey });
    assert.equal((await firms.update('W-1', { settings: { protocol: 'xml' } })).settings.protocol, 'xml');
    await assert.rejects(firms.rotateKeys('W-1', { webApiPrivateKey }), refusedKeys);
    // Back on the Web API, its OpenPGP keys are dropped only when asked.
    assert.equal((await firms.update('W-1', { settings: { protocol: 'webapi' } })).keys.openPgp, true);
    await assert.rejects(firms.rotateKeys('W-1', { webApiPrivateKey }), refusedKeys);
    const dropped = await firms.rotateKeys('W-1', { webApiPrivateKey }, { dropOpenPgpKeys: true });
    assert.equal(dropped.keys.openPgp, false);
  });

  it('serves a rotation and a disable to another process within its cache time, with no restart', async function () {
    await registry().add({ csid: 'F', name: 'F', keys });
    const worker = registry();
    const brokerages = new FirmBrokerages(worker, { database: db });
    const before = await brokerages.clientFor('F');
    assert.equal(await brokerages.clientFor('F'), before, 'the client is kept while the firm is unchanged');

    const rotated = await registry().rotateKeys('F', newKeys);
    assert.equal(rotated.keys.version, 2);
    assert.equal((await worker.active('F')).keys.firmPrivateKey, keys.firmPrivateKey, 'cached');
    clock += 5_000;
    assert.equal((await worker.active('F')).keys.firmPrivateKey, newKeys.firmPrivateKey);
    assert.notEqual(await brokerages.clientFor('F'), before, 'a new client on the new keys');

    await registry().disable('F', 'contract ended');
    clock += 5_000;
    await assert.rejects(
      brokerages.clientFor('F'),
      (error: unknown) => error instanceof FirmDisabledError && /contract ended/.test(error.message),
    );
    await registry().enable('F');
    clock += 5_000;
    await worker.require('F');
    await assert.rejects(worker.require('G'), FirmNotConfiguredError);
  });

  it('sends no write for a firm that may not call, and says so rather than leaving it in doubt', async function () {
    await registry().add({ csid: 'F', name: 'F', keys });
    await registry().disable('F', 'contract ended');
    const dispatcher = new FirmBrokerages(registry(), { database: db }).dispatcher();
    // Each a first attempt in an activity context, as a worker runs it.
    const update = (csid: string) =>
      watchedActivityEnvironment().run(() =>
        WriteAttempt.run(
          (attempt) => updateCall(dispatcher, { CSID: csid, xml: '<AccountManagement/>', attachments: [] }, attempt),
          updateInDoubt(false),
        ),
      );
    await assert.rejects(update('F'), FirmDisabledError);
    await assert.rejects(update('NOPE'), FirmNotConfiguredError);
    // The database does not answer: no client, no call, and the write may be sent by the next attempt.
    const broken = new FirmRegistry({
      ...db,
      query: () => Promise.reject(new Error('connection refused')),
    } as Database);
    await assert.rejects(
      update.call(null, 'F').then(() => undefined),
      FirmDisabledError,
    );
    await assert.rejects(
      watchedActivityEnvironment().run(() =>
        WriteAttempt.run(
          (attempt) =>
            updateCall(
              new FirmBrokerages(broken, { database: db }).dispatcher(),
              { CSID: 'F', xml: '<x/>', attachments: [] },
              attempt,
            ),
          updateInDoubt(false),
        ),
      ),
      (error: unknown) => error instanceof FirmLookupError && /connection refused/.test(error.message),
    );
  });

  it('opens no sealed keys copied to another firm', async function () {
    await registry().add({ csid: 'A', name: 'A', keys });
    await registry().add({ csid: 'B', name: 'B', keys: newKeys });
    await db.query("UPDATE firms SET sealed_keys = (SELECT sealed_keys FROM firms WHERE csid = 'A') WHERE csid = 'B'");
    await assert.rejects(registry().active('B'), (error: unknown) => {
      assert.ok(error instanceof FirmNotConfiguredError);
      assert.match(error.message, /do not authenticate/);
      return true;
    });
    await assert.rejects(registry({ keyring: generateCodecKeyring('k2') }).active('A'), /codec key id "k1"/);
  });

  it('seeds the firm of the environment, follows its variables, and keeps it out of eca firms', async function () {
    const environmentFirm = {
      csid: 'ENV',
      settings: { environment: 'qa' as const, protocol: 'xml' as const, firmTypes: [], maintenanceTimeZone: 'UTC' },
      keys,
    };
    // Workers starting together: one adds the firm, the others find it.
    const seeded = await Promise.all([1, 2, 3].map(() => registry({ environmentFirm }).seedEnvironment()));
    assert.deepEqual(seeded.sort(), ['added', 'unchanged', 'unchanged']);
    const moved = { ...environmentFirm, settings: { ...environmentFirm.settings, baseUrl: 'http://127.0.0.1:9/' } };
    assert.equal(await registry({ environmentFirm: moved }).seedEnvironment(), 'updated');
    assert.equal((await registry().get('ENV'))?.keys.version, 1, 'a change of settings is no new key version');
    assert.equal(await registry({ environmentFirm: { ...moved, keys: newKeys } }).seedEnvironment(), 'updated');
    const record = (await registry().get('ENV'))!;
    assert.equal(record.keys.version, 2);
    assert.equal(record.settings.baseUrl, 'http://127.0.0.1:9/');
    assert.equal(record.managedBy, 'environment');
    await assert.rejects(registry().rotateKeys('ENV', keys), /configured by the environment/);
    await assert.rejects(registry().update('ENV', { name: 'x' }), /configured by the environment/);
    // Disabling is the firm's, not the variables': a restart does not undo it.
    await registry().disable('ENV', 'paused');
    await registry({ environmentFirm }).seedEnvironment();
    await assert.rejects(registry().require('ENV'), FirmDisabledError);
  });

  it('lets the API add the firm of its environment but never change it, and never unseals keys', async function () {
    const settings = {
      environment: 'qa' as const,
      protocol: 'xml' as const,
      firmTypes: [],
      maintenanceTimeZone: 'UTC',
    };
    const worker = { csid: 'ENV', settings: { ...settings, callsPerSecond: 5 }, keys };
    await registry({ environmentFirm: worker }).seedEnvironment();
    // An API configured for SSO only, without the worker's budget: the firm keeps the workers' settings.
    const api = { csid: 'ENV', settings, keys };
    assert.equal(await registry({ environmentFirm: api }).seedEnvironment({ addOnly: true }), 'unchanged');
    assert.equal((await registry().get('ENV'))?.settings.callsPerSecond, 5);
    // A process without codec keys keeps the sealed keys, and uses its own for the firm.
    await registry({ keyring: undefined, environmentFirm: { ...worker, keys: newKeys } }).seedEnvironment();
    assert.equal((await registry().active('ENV')).keys.firmPrivateKey, keys.firmPrivateKey);
    const unsealed = await registry({ keyring: undefined, environmentFirm: { ...worker, keys: newKeys } }).active(
      'ENV',
    );
    assert.equal(unsealed.keys.firmPrivateKey, newKeys.firmPrivateKey);
    // The same key read with other line ends is no new version.
    const crlf = { ...keys, firmPrivateKey: keys.firmPrivateKey!.replace(/\n/g, '\r\n') };
    await registry({ environmentFirm: { ...worker, keys: crlf } }).seedEnvironment();
    assert.equal((await registry().get('ENV'))?.keys.version, 1);
  });

  it('stores a digest of the keys keyed by the codec keys, rewritten under a new codec key', async function () {
    const digestOf = async (csid: string) =>
      (await db.query<{ keys_digest: string | null }>('SELECT keys_digest FROM firms WHERE csid = $1', [csid]))[0]!
        .keys_digest;
    // An unsalted SHA-256 of the keys' text, against which a passphrase could be tested offline.
    const sha256Of = (firmKeys: FirmKeys) =>
      createHash('sha256')
        .update(
          JSON.stringify([
            firmKeys.firmPrivateKey!.trim(),
            firmKeys.passphrase ?? '',
            firmKeys.brokeragePublicKey!.trim(),
          ]),
        )
        .digest('hex');
    await registry().add({ csid: 'F-D', name: 'D', keys });
    const stored = (await digestOf('F-D')) ?? assert.fail('a digest stored');
    for (const secret of [sha256Of(keys), createHash('sha256').update(PASSPHRASE).digest('hex')]) {
      assert.ok(!stored.includes(secret), 'no SHA-256 of the secrets');
    }
    // The same firm and keys under another codec key (of the same id): another digest, so the row alone tests nothing.
    await db.query("DELETE FROM firms WHERE csid = 'F-D'");
    await registry({ keyring: generateCodecKeyring('k1') }).add({ csid: 'F-D', name: 'D', keys });
    assert.notEqual(await digestOf('F-D'), stored);

    const environmentFirm = {
      csid: 'ENV',
      settings: { environment: 'qa' as const, protocol: 'xml' as const, firmTypes: [], maintenanceTimeZone: 'UTC' },
      keys,
    };
    await registry({ environmentFirm }).seedEnvironment();
    assert.match((await digestOf('ENV')) ?? '', /^hmac:k1:/);
    assert.equal(await registry({ environmentFirm }).seedEnvironment(), 'unchanged');
    assert.equal((await registry().get('ENV'))?.keys.version, 1, 'the same keys: no new version');
    // A codec key added in front: the same keys are no change, their digest is rewritten under it.
    const rotated = { keys: [...generateCodecKeyring('k2').keys, ...keyring.keys] };
    assert.equal(await registry({ keyring: rotated, environmentFirm }).seedEnvironment(), 'unchanged');
    assert.equal((await registry().get('ENV'))?.keys.version, 1);
    assert.match((await digestOf('ENV')) ?? '', /^hmac:k2:/);
    // A process still on the keyring before (without k2) restarts: it can tell nothing, so it records no change.
    assert.equal(await registry({ environmentFirm }).seedEnvironment(), 'unchanged');
    assert.equal((await registry().get('ENV'))?.keys.version, 1, 'no new version for a digest under a key it lacks');
    assert.match((await digestOf('ENV')) ?? '', /^hmac:k2:/);
    // Other keys, told by a process with the digest's codec key: a change, a new version.
    assert.equal(
      await registry({ keyring: rotated, environmentFirm: { ...environmentFirm, keys: newKeys } }).seedEnvironment(),
      'updated',
    );
    assert.equal((await registry().get('ENV'))?.keys.version, 2);
    assert.equal((await registry({ keyring: rotated }).active('ENV')).keys.firmPrivateKey, newKeys.firmPrivateKey);
    // A digest of no form the engine writes (64 hex digits, say) tells nothing: the keys are written again under an HMAC.
    await db.query('UPDATE firms SET keys_digest = $2 WHERE csid = $1', ['ENV', 'ab'.repeat(32)]);
    assert.equal(await registry({ keyring: rotated, environmentFirm }).seedEnvironment(), 'updated');
    assert.equal((await registry({ keyring: rotated }).active('ENV')).keys.firmPrivateKey, keys.firmPrivateKey);
    assert.match((await digestOf('ENV')) ?? '', /^hmac:k2:/);
  });

  it('keeps the keys of the environment out of the database without codec keys', async function () {
    const environmentFirm = {
      csid: 'ENV',
      settings: { environment: 'qa' as const, protocol: 'xml' as const, firmTypes: [], maintenanceTimeZone: 'UTC' },
      keys,
    };
    await registry({ keyring: undefined, environmentFirm }).seedEnvironment();
    const [row] = await db.query<{ sealed_keys: Uint8Array | null; keys_digest: string | null }>(
      'SELECT sealed_keys, keys_digest FROM firms',
    );
    assert.equal(row!.sealed_keys, null);
    assert.equal(row!.keys_digest, null, 'nothing derived from the keys either');
    assert.equal((await registry({ keyring: undefined, environmentFirm }).active('ENV')).keys, keys);
    await assert.rejects(registry({ keyring: undefined }).active('ENV'), /held only by the environment/);
    // Another process without the variables still knows the firm works: new work is not refused.
    await registry({ keyring: undefined }).require('ENV');
  });
});

/**
 * One behavioural suite, three stores: the filesystem store, and the database store on a real
 * PostgreSQL 15 and on embedded PGlite. What the engine relies on must hold on each: content-addressed
 * references checked on read, `take` once under concurrency, retention by owners, nothing personal at
 * rest, rotation under a new key.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { generateCodecKeyEntry, generateCodecKeyring, parseCodecKeys } from '../../../codec/index.js';
import type { DocumentRef } from '../../../domain/documents.js';
import { reencryptStore } from '../../../runtime/document-rotation.js';
import { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable, sha1Of } from '../../../runtime/document-store.js';
import { useStoreBackends } from '../../support/document-stores.js';
import type { StorePlace } from '../../support/document-stores.js';

const text = (value: string) => new TextEncoder().encode(value);
const keys = (...entries: string[]) => parseCodecKeys(entries.join(','), 'test');
const SECRET = text('<Applications><Customer first_name="Ada" tax_id="123-45-6789"/></Applications>');

describe('document stores: the same behaviour on files, PostgreSQL and embedded PGlite', function () {
  this.timeout(120_000);
  const backends = useStoreBackends();
  let place: StorePlace | undefined;

  afterEach(async function () {
    await place?.close();
    place = undefined;
  });

  for (const backend of backends) {
    describe(`on ${backend.kind}`, function () {
      beforeEach(async function () {
        place = await backend.fresh();
      });

      it('stores by content and reads back: keyed references with keys, SHA-1 references without', async function () {
        const store = place!.open(generateCodecKeyring('k1'));
        const ref = await store.put(SECRET);
        assert.equal(ref.sha1, sha1Of(SECRET));
        assert.equal(ref.length, SECRET.byteLength);
        assert.match(ref.ref, /^hmac\/([0-9a-f]{2})\/\1[0-9a-f]{62}$/);
        assert.deepEqual(Buffer.from(await store.get(ref)), Buffer.from(SECRET));
        assert.deepEqual(await store.put(SECRET, { owner: 'application-C-A' }), ref, 'the same bytes, the same ref');
        assert.deepEqual(await store.list(), [ref.ref], 'stored once');
        assert.equal(place!.open(generateCodecKeyring('k1')).encrypts, true);

        const clear = place!.open();
        const plain = await clear.put(text('%PDF- no keys'));
        assert.match(plain.ref, /^sha1\/([0-9a-f]{2})\/\1[0-9a-f]{38}$/);
        assert.equal(plain.ref.slice(8), plain.sha1);
        assert.equal(Buffer.from(await store.get(plain)).toString(), '%PDF- no keys', 'read by a store with keys');
        assert.deepEqual((await store.list()).sort(), [ref.ref, plain.ref].sort());
      });

      it('checks the SHA-1 and length, tells a corrupted document from a missing one, and deletes idempotently', async function () {
        const store = place!.open(generateCodecKeyring());
        const ref = await store.put(SECRET);
        await assert.rejects(store.get({ ...ref, length: ref.length + 1 }), DocumentCorrupted);
        await assert.rejects(store.get({ ...ref, sha1: '0'.repeat(40) }), DocumentCorrupted);
        await assert.rejects(store.get({ ...ref, ref: `hmac/00/${'0'.repeat(64)}` }), DocumentNotFound);
        await assert.rejects(store.get({ ...ref, ref: '../etc/passwd' }), DocumentNotFound);
        // Altered at rest: a sealed blob no longer authenticates; one in the clear no longer matches its SHA-1.
        const sealed = (await place!.stored(ref.ref))!;
        sealed[sealed.length - 20] = sealed[sealed.length - 20]! ^ 1;
        await place!.overwrite(ref.ref, sealed);
        await assert.rejects(store.get(ref), DocumentUndecryptable);
        const clear = place!.open();
        const plain = await clear.put(text('in the clear'));
        await place!.overwrite(plain.ref, Buffer.from('in the clean'));
        await assert.rejects(clear.get(plain), DocumentCorrupted);
        // The same sealed bytes under another reference do not authenticate there.
        const other = await store.put(text('other'));
        await place!.overwrite(other.ref, (await place!.stored((await store.put(text('third'))).ref))!);
        await assert.rejects(store.get(other), DocumentUndecryptable);

        await store.delete(ref);
        await assert.rejects(store.get(ref), DocumentNotFound);
        assert.equal(await place!.stored(ref.ref), undefined);
        await store.delete(ref);
        await store.delete({ ref: `hmac/00/${'0'.repeat(64)}` });
      });

      it('hands a document out once to 10 concurrent takers, and keeps one it cannot decrypt', async function () {
        const keyring = generateCodecKeyring('k1');
        const store = place!.open(keyring);
        const ref = await store.put(text('{"temporaryPassword":"Tmp-4821"}'), { owner: 'application-C-A' });
        const takers = await Promise.allSettled(Array.from({ length: 10 }, () => place!.open(keyring).take(ref)));
        const taken = takers.filter((result) => result.status === 'fulfilled');
        assert.equal(taken.length, 1, 'exactly one taker gets the bytes');
        assert.equal(Buffer.from(taken[0]!.value).toString(), '{"temporaryPassword":"Tmp-4821"}');
        for (const result of takers.filter((r) => r.status === 'rejected')) {
          assert.ok(result.reason instanceof DocumentNotFound, String(result.reason));
        }
        await assert.rejects(store.get(ref), DocumentNotFound);
        await assert.rejects(store.take(ref), DocumentNotFound);

        const kept = await store.put(text('under k1'));
        await assert.rejects(place!.open(generateCodecKeyring('k1')).take(kept), DocumentUndecryptable);
        await assert.rejects(store.take({ ...kept, sha1: '0'.repeat(40) }), DocumentCorrupted);
        assert.equal(Buffer.from(await store.take(kept)).toString(), 'under k1', 'still there for the right keys');
      });

      it('releases what an owner stored once no other owner holds it, never what was stored without one', async function () {
        const store = place!.open(generateCodecKeyring('k1'));
        const mine = await store.put(text('only A'), { owner: 'application-C-A' });
        const shared = await store.put(text('A and B'), { owner: 'application-C-A' });
        await store.put(text('A and B'), { owner: 'application-C-B' });
        const daily = await store.put(text('A and the daily documents'), { owner: 'application-C-A' });
        await store.put(text('A and the daily documents'));
        assert.deepEqual(await store.release('application-C-A'), { deleted: 1, kept: 2 });
        assert.deepEqual((await store.list()).sort(), [shared.ref, daily.ref].sort());
        await assert.rejects(store.get(mine), DocumentNotFound);
        assert.deepEqual(await store.release('application-C-B'), { deleted: 1, kept: 0 });
        assert.deepEqual(await store.release('application-C-A'), { deleted: 0, kept: 0 });
        assert.deepEqual(await store.list(), [daily.ref]);
        const again = await store.put(text('only A'), { owner: 'application-C-A' });
        assert.deepEqual(
          await store.release('application-C-A'),
          { deleted: 1, kept: 0 },
          'held again once stored again',
        );
        await assert.rejects(store.get(again), DocumentNotFound);
      });

      it('records owners released once closed, until their release; a record under a missing key is counted', async function () {
        const store = place!.open(keys(generateCodecKeyEntry('k1')));
        const body = await store.put(text('maintenance body'), { owner: 'maintenance-C-U1-k1' });
        await store.releaseWhenClosed('maintenance-C-U1-k1');
        await store.releaseWhenClosed('maintenance-C-U1-k1');
        const { owners, unreadable } = await store.closingOwners();
        assert.deepEqual(
          owners.map((record) => record.owner),
          ['maintenance-C-U1-k1'],
        );
        assert.equal(unreadable, 0);
        assert.ok(Math.abs(owners[0]!.since - Date.now()) < 60_000);
        assert.deepEqual((await place!.open(generateCodecKeyring('k2')).closingOwners()).unreadable, 1);
        assert.deepEqual(await store.release('maintenance-C-U1-k1'), { deleted: 1, kept: 0 });
        assert.deepEqual(await store.closingOwners(), { owners: [], unreadable: 0 });
        await assert.rejects(store.get(body), DocumentNotFound);
      });

      it('keeps nothing personal at rest: no content, owner or hash of either in the clear', async function () {
        const store = place!.open(generateCodecKeyring('k1'));
        const owner = 'application-C-ada-lovelace-1815';
        await store.put(SECRET, { owner });
        await store.releaseWhenClosed(owner);
        const atRest = await place!.atRest();
        assert.ok(atRest.length > SECRET.length, 'nothing read at rest');
        const hex = (algorithm: string, data: Uint8Array) => createHash(algorithm).update(data).digest('hex');
        for (const needle of ['123-45-6789', 'Ada', owner, hex('sha1', SECRET), hex('sha256', SECRET)]) {
          assert.ok(!atRest.includes(needle), `"${needle}" is at rest in the clear`);
        }
      });

      it('refuses to read under a keyring without the key, naming the key it needs', async function () {
        const ref = await place!.open(keys(generateCodecKeyEntry('old'))).put(SECRET);
        await assert.rejects(
          place!.open(generateCodecKeyring('new')).get(ref),
          (error: unknown) => error instanceof DocumentUndecryptable && /"old"/.test(String(error)),
        );
        await assert.rejects(place!.open(generateCodecKeyring('old')).get(ref), DocumentUndecryptable);
      });

      it('re-encrypts every record under the newest key in place, once, leaving what it cannot read', async function () {
        const [oldKey, newKey] = [generateCodecKeyEntry('old'), generateCodecKeyEntry('new')];
        const before = place!.open(keys(oldKey));
        const refs: DocumentRef[] = [
          await before.put(SECRET, { owner: 'application-C-A' }),
          await before.put(text('%PDF- w9')),
          await place!.open().put(text('written in the clear')),
        ];
        await before.releaseWhenClosed('maintenance-C-U1-k1');
        const lost = await place!.open(generateCodecKeyring('lost')).put(text('under a lost key'));
        const lostBytes = await place!.stored(lost.ref);
        const rotated = place!.open(keys(newKey, oldKey));

        const dry = await reencryptStore(rotated, { dryRun: true });
        assert.deepEqual([dry.total, dry.reencrypted, dry.current, dry.failed], [5, 4, 0, 1]);
        await assert.rejects(place!.open(keys(newKey)).get(refs[0]!), /"old"/, 'a dry run wrote');

        const report = await reencryptStore(rotated);
        assert.deepEqual([report.keyId, report.total, report.reencrypted, report.failed], ['new', 5, 4, 1]);
        assert.deepEqual(
          report.failures.map((failure) => [failure.ref, failure.error]),
          [[lost.ref, 'DocumentUndecryptable']],
        );
        assert.deepEqual(await place!.stored(lost.ref), lostBytes, 'left as it was');
        const newOnly = place!.open(keys(newKey));
        for (const ref of refs) assert.equal((await newOnly.get(ref)).byteLength, ref.length);
        assert.ok(!(await place!.atRest()).includes('written in the clear'));
        assert.deepEqual(
          (await newOnly.closingOwners()).owners.map((record) => record.owner),
          ['maintenance-C-U1-k1'],
        );
        assert.deepEqual(await newOnly.release('application-C-A'), { deleted: 1, kept: 0 }, 'holders kept');
        const again = await reencryptStore(rotated);
        assert.deepEqual([again.reencrypted, again.current, again.failed], [0, 3, 1]);
      });

      it('never loses a document stored by one owner while another releases it', async function () {
        const keyring = generateCodecKeyring('k1');
        const [a, b] = [place!.open(keyring), place!.open(keyring)];
        for (let i = 0; i < 20; i++) {
          const data = text(`shared document ${i}`);
          const ref = await a.put(data, { owner: 'application-C-A' });
          await Promise.all([a.release('application-C-A'), b.put(data, { owner: 'application-C-B' })]);
          assert.equal(Buffer.from(await a.get(ref)).toString(), `shared document ${i}`, `lost at round ${i}`);
          assert.deepEqual(await b.release('application-C-B'), { deleted: 1, kept: 0 });
        }
      });
    });
  }
});

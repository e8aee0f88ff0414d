import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DocumentCorrupted,
  DocumentNotFound,
  DocumentUndecryptable,
  FileDocumentStore,
  sha1Of,
} from '../../../runtime/document-store.js';
import { generateCodecKeyring, parseCodecKeys, generateCodecKeyEntry } from '../../../codec/index.js';

describe('document store: content-addressed, encrypted at rest with the codec keys', function () {
  let dir: string;
  const secret = new TextEncoder().encode(
    '<Applications><Customer first_name="Ada" tax_id="123-45-6789"/></Applications>',
  );

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-store-'));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('stores a blob encrypted under the newest key, bound to its reference, and reads it back', async function () {
    const store = new FileDocumentStore(dir, { keyring: generateCodecKeyring('k1') });
    const ref = await store.put(secret);
    assert.equal(ref.sha1, sha1Of(secret));
    const onDisk = await readFile(join(dir, ref.ref));
    assert.equal(onDisk.subarray(0, 8).toString(), 'ECA-DOC2');
    assert.ok(!onDisk.toString('latin1').includes('123-45-6789'), 'the tax id is on disk in the clear');
    assert.deepEqual(Buffer.from(await store.get(ref)), Buffer.from(secret));
    // the same content again: stored once
    assert.deepEqual(await store.put(secret), ref);
    assert.deepEqual(await store.list(), [ref.ref]);
    // a blob copied under another name does not authenticate there
    const other = new TextEncoder().encode('other');
    const otherRef = await store.put(other);
    await writeFile(join(dir, otherRef.ref), onDisk);
    await assert.rejects(store.get(otherRef), DocumentUndecryptable);
  });

  it('reads older blobs after a rotation, names a missing key, and refuses an altered blob', async function () {
    const old = generateCodecKeyEntry('old');
    const before = new FileDocumentStore(dir, { keyring: parseCodecKeys(old, 'test') });
    const ref = await before.put(secret);
    const rotated = new FileDocumentStore(dir, {
      keyring: parseCodecKeys(`${generateCodecKeyEntry('new')},${old}`, 'test'),
    });
    assert.deepEqual(Buffer.from(await rotated.get(ref)), Buffer.from(secret));
    const withoutOld = new FileDocumentStore(dir, { keyring: generateCodecKeyring('new') });
    await assert.rejects(
      withoutOld.get(ref),
      (error: unknown) => error instanceof DocumentUndecryptable && /"old"/.test(String(error)),
    );
    const path = join(dir, ref.ref);
    const bytes = await readFile(path);
    bytes[bytes.length - 20] = bytes[bytes.length - 20]! ^ 1;
    await writeFile(path, bytes);
    await assert.rejects(rotated.get(ref), DocumentUndecryptable);
  });

  it('reads a blob written in the clear before encryption, and stores it encrypted when put again', async function () {
    const clear = new FileDocumentStore(dir);
    const ref = await clear.put(secret);
    assert.ok((await readFile(join(dir, ref.ref))).toString().includes('123-45-6789'));
    const store = new FileDocumentStore(dir, { keyring: generateCodecKeyring() });
    assert.deepEqual(Buffer.from(await store.get(ref)), Buffer.from(secret));
    const encrypted = await store.put(secret);
    assert.equal((await readFile(join(dir, encrypted.ref))).subarray(0, 8).toString(), 'ECA-DOC2');
    assert.deepEqual(Buffer.from(await store.get(encrypted)), Buffer.from(secret));
    assert.deepEqual(Buffer.from(await store.get(ref)), Buffer.from(secret));
  });

  it('tells a missing document from a corrupted one, and deletes', async function () {
    const store = new FileDocumentStore(dir, { keyring: generateCodecKeyring() });
    const ref = await store.put(secret);
    await assert.rejects(store.get({ ...ref, length: ref.length + 1 }), DocumentCorrupted);
    await assert.rejects(store.get({ ...ref, sha1: '0'.repeat(40) }), DocumentCorrupted);
    await assert.rejects(store.get({ ...ref, ref: `hmac/00/${'0'.repeat(64)}` }), DocumentNotFound);
    await assert.rejects(store.get({ ...ref, ref: `sha1/00/${'0'.repeat(40)}` }), DocumentNotFound);
    await assert.rejects(store.get({ ...ref, ref: '../etc/passwd' }), DocumentNotFound);
    await store.delete(ref);
    await assert.rejects(store.get(ref), DocumentNotFound);
    await store.delete(ref); // already gone: nothing happens
  });
  it('releases what an owner stored: deleted once no other owner holds it, never when stored without one', async function () {
    const store = new FileDocumentStore(dir, { keyring: generateCodecKeyring('k1') });
    const mine = await store.put(new TextEncoder().encode('only A'), { owner: 'application-C-A' });
    const shared = await store.put(new TextEncoder().encode('A and B'), { owner: 'application-C-A' });
    await store.put(new TextEncoder().encode('A and B'), { owner: 'application-C-B' });
    const daily = await store.put(new TextEncoder().encode('A and the daily documents'), { owner: 'application-C-A' });
    await store.put(new TextEncoder().encode('A and the daily documents'));
    assert.deepEqual(await store.release('application-C-A'), { deleted: 1, kept: 2 });
    assert.deepEqual((await store.list()).sort(), [shared.ref, daily.ref].sort());
    await assert.rejects(store.get(mine), DocumentNotFound);
    // B's retention deletes what it held last; a second release finds nothing more to do.
    assert.deepEqual(await store.release('application-C-B'), { deleted: 1, kept: 0 });
    assert.deepEqual(await store.release('application-C-A'), { deleted: 0, kept: 0 });
    assert.deepEqual(await store.list(), [daily.ref]);
    // Stored again by its owner after a release, a document is held again.
    const again = await store.put(new TextEncoder().encode('only A'), { owner: 'application-C-A' });
    assert.equal(Buffer.from(await store.get(again)).toString(), 'only A');
  });
});

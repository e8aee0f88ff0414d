/** The document store's blob names: a keyed hash of the content, so that a name on disk reveals nothing of it. */
import assert from 'node:assert/strict';
import { createCipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DocumentNotFound, FileDocumentStore, sha1Of } from '../../runtime/document-store.js';
import type { DocumentRef } from '../../domain/documents.js';
import { generateCodecKeyring } from '../../codec/index.js';
import type { CodecKeyring } from '../../codec/index.js';

/** A short password and guessable fields: what the create's response file kept. */
const credentials = new TextEncoder().encode(
  JSON.stringify({ externalId: 'client-42', users: [{ userName: 'jdoe42', temporaryPassword: 'Tmp-4821' }] }),
);

function hex(algorithm: 'sha1' | 'sha256', data: Uint8Array): string {
  return createHash(algorithm).update(data).digest('hex');
}

/** A blob as the store wrote it before keyed names: at `sha1/<2>/<sha1>`, sealed and bound to its SHA-1. */
async function writeLegacyBlob(root: string, keyring: CodecKeyring, data: Uint8Array): Promise<DocumentRef> {
  const sha1 = sha1Of(data);
  const { id, key } = keyring.keys[0]!;
  const storeKey = Buffer.from(hkdfSync('sha256', key, new Uint8Array(), 'eca-document-store-v1', 32));
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', storeKey, iv, { authTagLength: 16 });
  cipher.setAAD(Buffer.from(`eca-document-v1:${id}:${sha1}`));
  const sealed = Buffer.concat([
    Buffer.from('ECA-DOC1'),
    Buffer.from([id.length]),
    Buffer.from(id),
    iv,
    cipher.update(data),
    cipher.final(),
    cipher.getAuthTag(),
  ]);
  const ref = `sha1/${sha1.slice(0, 2)}/${sha1}`;
  await mkdir(dirname(join(root, ref)), { recursive: true });
  await writeFile(join(root, ref), sealed);
  return { sha1, length: data.byteLength, ref };
}

describe('document store: keyed blob names', function () {
  let dir: string;

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-names-'));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('names a blob by HMAC-SHA-256 under a key of the keyring: no name on disk holds a hash of the content', async function () {
    const keyring = generateCodecKeyring('k1');
    const store = new FileDocumentStore(dir, { keyring });
    const ref = await store.put(credentials, { owner: 'application-C-client-42' });
    // The SHA-1 stays in the reference: the brokerage's request XML carries it.
    assert.equal(ref.sha1, hex('sha1', credentials));
    assert.match(ref.ref, /^hmac\/[0-9a-f]{2}\/[0-9a-f]{64}$/);
    const names = await readdir(dir, { recursive: true });
    assert.ok(names.length > 0);
    for (const hash of [hex('sha1', credentials), hex('sha256', credentials)]) {
      for (const name of names) assert.ok(!name.includes(hash), `${name} names the content's hash`);
      assert.ok(!ref.ref.includes(hash), 'the reference holds a hash of the content');
    }
    // The same content is stored once under the same keys; another keyring names it otherwise.
    assert.deepEqual(await store.put(credentials), ref);
    const other = await new FileDocumentStore(dir, { keyring: generateCodecKeyring('k1') }).put(credentials);
    assert.notEqual(other.ref, ref.ref);
    assert.equal(Buffer.from(await store.get(ref)).toString(), new TextDecoder().decode(credentials));
  });

  it('still reads, releases and deletes documents stored under their SHA-1 before keyed names', async function () {
    const keyring = generateCodecKeyring('k1');
    const legacy = await writeLegacyBlob(dir, keyring, credentials);
    const owned = await writeLegacyBlob(dir, keyring, new TextEncoder().encode('<Applications/>'));
    const owner = 'application-C-client-42';
    const index = join(dir, 'owners', hex('sha256', new TextEncoder().encode(owner)));
    await mkdir(index, { recursive: true });
    await writeFile(join(index, owned.sha1), '');
    const store = new FileDocumentStore(dir, { keyring });
    assert.deepEqual((await store.list()).sort(), [legacy.ref, owned.ref].sort());
    assert.equal(Buffer.from(await store.get(owned)).toString(), '<Applications/>');
    assert.deepEqual(await store.release(owner), { deleted: 1, kept: 0 });
    assert.equal(Buffer.from(await store.get(legacy)).toString(), new TextDecoder().decode(credentials));
    await store.delete(legacy);
    await assert.rejects(store.get(legacy), DocumentNotFound);
    assert.deepEqual(await store.list(), []);
  });
});

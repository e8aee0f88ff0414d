/** The document store's blob names: a keyed hash of the content, so that a name on disk reveals nothing of it. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { generateCodecKeyring } from '../../../codec/index.js';

/** A short password and guessable fields: what the create's response file kept. */
const credentials = new TextEncoder().encode(
  JSON.stringify({ externalId: 'client-42', users: [{ userName: 'jdoe42', temporaryPassword: 'Tmp-4821' }] }),
);

function hex(algorithm: 'sha1' | 'sha256', data: Uint8Array): string {
  return createHash(algorithm).update(data).digest('hex');
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
});

/** Re-encryption of the document store after a key rotation (runtime/document-rotation.ts, `eca keys rotate`). */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { reencryptStore } from '../../../runtime/document-rotation.js';
import type { DocumentRef } from '../../../domain/documents.js';
import { generateCodecKeyEntry, parseCodecKeys } from '../../../codec/index.js';

const text = (value: string) => new TextEncoder().encode(value);

describe('document store: re-encryption under the newest key', function () {
  let dir: string;
  const oldKey = generateCodecKeyEntry('old');
  const newKey = generateCodecKeyEntry('new');
  const lostKey = generateCodecKeyEntry('lost');
  const keys = (...entries: string[]) => ({ keyring: parseCodecKeys(entries.join(','), 'test') });

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-rotation-'));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  /** Documents under the old key (one owned), one written in the clear, one under a key nobody has any more. */
  async function storeBeforeRotation() {
    const before = new FileDocumentStore(dir, keys(oldKey));
    const refs: DocumentRef[] = [
      await before.put(text('<Applications tax_id="123-45-6789"/>'), { owner: 'application-C-A' }),
      await before.put(text('%PDF- w9')),
      await before.put(text('{"users":[]}')),
      await new FileDocumentStore(dir).put(text('written in the clear')),
    ];
    // The store's record of a maintenance request, released once its workflow closed, is sealed too.
    await before.releaseWhenClosed('maintenance-C-U1-k1');
    const lost = await new FileDocumentStore(dir, keys(lostKey)).put(text('under a lost key'));
    return { refs, lost };
  }

  it('re-encrypts every blob not under the first key in place, so that the old key can be dropped', async function () {
    const { refs, lost } = await storeBeforeRotation();
    const lostBytes = await readFile(join(dir, lost.ref));
    const rotated = new FileDocumentStore(dir, keys(newKey, oldKey));

    const dry = await reencryptStore(rotated, { dryRun: true });
    assert.deepEqual([dry.dryRun, dry.total, dry.reencrypted, dry.current, dry.failed], [true, 6, 5, 0, 1]);
    await assert.rejects(new FileDocumentStore(dir, keys(newKey)).get(refs[0]!), /"old"/, 'a dry run wrote');

    const seen: string[] = [];
    const report = await reencryptStore(rotated, { onProgress: (_ref, outcome) => seen.push(outcome) });
    assert.deepEqual(
      [report.keyId, report.total, report.reencrypted, report.current, report.failed],
      ['new', 6, 5, 0, 1],
    );
    assert.equal(seen.length, 6);
    assert.deepEqual(
      report.failures.map((failure) => [failure.ref, failure.error]),
      [[lost.ref, 'DocumentUndecryptable']],
    );
    assert.match(report.failures[0]!.message, /"lost"/);
    // Reported, never deleted: the blob is as it was.
    assert.ok((await readFile(join(dir, lost.ref))).equals(lostBytes));

    // Without the old key, every document is read under its own reference, and none is in the clear any more.
    const newOnly = new FileDocumentStore(dir, keys(newKey));
    for (const ref of refs) assert.ok((await newOnly.get(ref)).byteLength === ref.length);
    assert.ok(!(await readFile(join(dir, refs[3]!.ref))).toString().includes('written in the clear'));
    assert.deepEqual(
      (await newOnly.closingOwners()).owners.map((record) => record.owner),
      ['maintenance-C-U1-k1'],
    );
    // Holders are kept: the owner's retention still deletes its document.
    assert.deepEqual(await newOnly.release('application-C-A'), { deleted: 1, kept: 0 });

    // Idempotent: a second run (or one resumed after an interruption) finds them current.
    const again = await reencryptStore(rotated);
    assert.deepEqual([again.reencrypted, again.current, again.failed], [0, 4, 1]);
  });

  it('leaves a run with nothing to do alone: every blob under the current key', async function () {
    const store = new FileDocumentStore(dir, keys(newKey));
    await store.put(text('one'));
    const before = await readFile(join(dir, (await store.list())[0]!));
    const report = await reencryptStore(store);
    assert.deepEqual([report.reencrypted, report.current, report.failed], [0, 1, 0]);
    assert.ok((await readFile(join(dir, (await store.list())[0]!))).equals(before));
  });
});

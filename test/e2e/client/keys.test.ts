/** `eca keys rotate`, the real executable: no engine needed, only the document store and the codec keys. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileDocumentStore } from '../../../runtime/document-store.js';
import { generateCodecKeyEntry, parseCodecKeys } from '../../../codec/index.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

function eca(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ECA, ...args],
      { env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9', NO_COLOR: '', ...env } },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('eca keys rotate', function () {
  this.timeout(60_000);
  let dir: string;
  const oldKey = generateCodecKeyEntry('old');
  const newKey = generateCodecKeyEntry('new');

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-keys-'));
  });

  afterEach(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('re-encrypts the store under the first key, with --dry-run first, and sums up', async function () {
    const before = new FileDocumentStore(dir, { keyring: parseCodecKeys(oldKey, 'test') });
    const refs = [await before.put(new TextEncoder().encode('one')), await before.put(new TextEncoder().encode('two'))];
    const env = { ECA_DOCUMENT_STORE: dir, ECA_CODEC_KEYS: `${newKey},${oldKey}` };

    const dry = await eca(['keys', 'rotate', '--dry-run'], env);
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^would re-encrypt 2 of 2 blobs under key new \(.*\); 0 already current, 0 failed\n/);
    assert.equal((await readFile(join(dir, refs[0]!.ref))).subarray(9, 12).toString(), 'old', 'a dry run wrote');

    const run = await eca(['keys', 'rotate', '-o', 'json'], env);
    assert.equal(run.code, 0, run.stderr);
    const report = JSON.parse(run.stdout) as Record<string, unknown>;
    assert.deepEqual(
      [report.dryRun, report.keyId, report.total, report.reencrypted, report.current, report.failed],
      [false, 'new', 2, 2, 0, 0],
    );
    const newOnly = new FileDocumentStore(dir, { keyring: parseCodecKeys(newKey, 'test') });
    for (const ref of refs) assert.equal((await newOnly.get(ref)).byteLength, 3);

    const again = await eca(['keys', 'rotate'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /^re-encrypted 0 of 2 blobs under key new .*; 2 already current, 0 failed\n/);
  });

  it('reports a blob whose key is missing, leaves it, and ends with the FAILED exit code', async function () {
    const ref = await new FileDocumentStore(dir, { keyring: parseCodecKeys(oldKey, 'test') }).put(
      new TextEncoder().encode('kept'),
    );
    const bytes = await readFile(join(dir, ref.ref));
    const run = await eca(['keys', 'rotate'], { ECA_DOCUMENT_STORE: dir, ECA_CODEC_KEYS: newKey });
    assert.equal(run.code, 1, run.stderr);
    assert.match(run.stdout, /0 already current, 1 failed\nfailed \(left as they are, never deleted/);
    assert.ok(run.stdout.includes(`${ref.ref}  document ${ref.ref} is encrypted with key id "old"`), run.stdout);
    assert.ok((await readFile(join(dir, ref.ref))).equals(bytes));
  });

  it('refuses to run without codec keys, as a configuration error', async function () {
    const run = await eca(['keys', 'rotate', '-o', 'json'], { ECA_DOCUMENT_STORE: dir, ECA_CODEC_DISABLED: 'true' });
    assert.equal(run.code, 11, run.stderr);
    assert.match(run.stderr, /"code":"CONFIGURATION".*codec keys/);
  });
});

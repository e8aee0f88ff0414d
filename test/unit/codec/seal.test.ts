/** The engine's one cipher (codec/seal.ts): what the codec, the document store and the sealed rows rely on. */
import assert from 'node:assert/strict';
import { createDecipheriv } from 'node:crypto';
import { CodecConfigurationError, generateCodecKeyring } from '../../../codec/keyring.js';
import { deriveKey, frame, seal, SealingKeys, unframe, unseal } from '../../../codec/seal.js';

const older = generateCodecKeyring('k1');
const newer = generateCodecKeyring('k2');
const rotated = { keys: [...newer.keys, ...older.keys] };
const secret = Buffer.from('Tmp-4821');
const use = { purpose: 'eca-test-v1', derive: 'eca-test-keys-v1' };

describe('seal (AES-256-GCM over the codec keyring)', function () {
  it('seals under the newest key with a fresh nonce, bound to the purpose, the key id and the context', function () {
    const keys = new SealingKeys(rotated, use);
    const sealed = seal(keys, secret, 'row-1');
    assert.equal(sealed.keyId, 'k2');
    assert.equal(sealed.bytes.length, 12 + secret.length + 16);
    assert.ok(!sealed.bytes.includes(secret));
    assert.notDeepEqual(seal(keys, secret, 'row-1').bytes, sealed.bytes, 'a nonce of its own each time');
    // What the module's head promises, checked with node:crypto alone: nonce | ciphertext | tag, and the AAD.
    const decipher = createDecipheriv(
      'aes-256-gcm',
      deriveKey(newer.keys[0]!, use.derive),
      sealed.bytes.subarray(0, 12),
    );
    decipher.setAAD(Buffer.from('eca-test-v1:k2:row-1'));
    decipher.setAuthTag(sealed.bytes.subarray(sealed.bytes.length - 16));
    assert.deepEqual(Buffer.concat([decipher.update(sealed.bytes.subarray(12, -16)), decipher.final()]), secret);

    assert.deepEqual(unseal(keys, sealed, 'row-1'), secret);
    assert.deepEqual(unseal(keys, sealed, 'row-2'), { kind: 'not-authentic', keyId: 'k2' }, 'moved to another place');
    assert.deepEqual(unseal(new SealingKeys(rotated, { ...use, purpose: 'eca-other-v1' }), sealed, 'row-1'), {
      kind: 'not-authentic',
      keyId: 'k2',
    });
    assert.deepEqual(unseal(keys, { ...sealed, keyId: 'k1' }, 'row-1'), { kind: 'not-authentic', keyId: 'k1' });
    const altered = Buffer.from(sealed.bytes);
    altered[12]! ^= 1;
    assert.deepEqual(unseal(keys, { keyId: 'k2', bytes: altered }, 'row-1'), { kind: 'not-authentic', keyId: 'k2' });
  });

  it('opens what an older key sealed after a rotation, and names a key id it lacks', function () {
    const before = seal(new SealingKeys(older, use), secret, 'row-1');
    assert.deepEqual(unseal(new SealingKeys(rotated, use), before, 'row-1'), secret);
    assert.deepEqual(unseal(new SealingKeys(newer, use), before, 'row-1'), { kind: 'unknown-key', keyId: 'k1' });
    assert.deepEqual(unseal(new SealingKeys(rotated, use), { keyId: 'k1', bytes: before.bytes.subarray(0, 27) }), {
      kind: 'truncated',
      keyId: 'k1',
    });
  });

  it('derives a key of its own per label; without one uses the codec key, which must have 32 bytes', function () {
    const raw = seal(new SealingKeys(older, { purpose: 'eca-test-v1' }), secret);
    assert.deepEqual(unseal(new SealingKeys(older, { purpose: 'eca-test-v1' }), raw), secret);
    assert.deepEqual(unseal(new SealingKeys(older, { ...use, purpose: 'eca-test-v1' }), raw), {
      kind: 'not-authentic',
      keyId: 'k1',
    });
    assert.throws(
      () => new SealingKeys({ keys: [{ id: 'short', key: new Uint8Array(16) }] }, { purpose: 'eca-test-v1' }),
      (error: unknown) =>
        error instanceof CodecConfigurationError && /key id short: .* 32 bytes, not 16/.test(error.message),
    );
    const none = new SealingKeys(undefined, use);
    assert.equal(none.encrypts, false);
    assert.throws(() => seal(none, secret), CodecConfigurationError);
  });

  it('frames sealed bytes behind magic and key id, and tells a value in the clear', function () {
    const magic = Buffer.from('ECA-TST1');
    const sealed = seal(new SealingKeys(rotated, use), secret, 'row-1');
    const framed = frame(magic, sealed);
    assert.deepEqual(framed.subarray(0, 11), Buffer.concat([magic, Buffer.from([2]), Buffer.from('k2')]));
    assert.deepEqual(unframe(magic, framed), sealed);
    assert.equal(unframe(magic, secret), undefined);
    assert.equal(unframe(Buffer.from('ECA-TST2'), framed), undefined);
  });
});

/**
 * The bytes each sealed format wrote before its cipher became one primitive (codec/seal.ts), read back
 * today: a payload in a workflow history, a sealed box value in the database (firm keys, webhook secrets,
 * saved answers) and a sealed document file. Each value was written by the earlier implementations
 * under the keyring below; a change of layout, AAD or key derivation fails here.
 */
import assert from 'node:assert/strict';
import { AesGcmPayloadCodec } from '../../../codec/aes-gcm-codec.js';
import { parseCodecKeys } from '../../../codec/keyring.js';
import { DocumentKeys } from '../../../runtime/document-sealing.js';
import { SealedBox } from '../../../runtime/sealing.js';

const keyring = parseCodecKeys(
  `k2:${Buffer.alloc(32, 0x22).toString('base64')},k1:${Buffer.alloc(32, 0x11).toString('base64')}`,
  'sealed formats',
);
const WRITTEN = {
  box: 'RUNBLUZSSzECazJIL0TKVcjJpV2m9tRXWHw2iMgFwXeGl6Jop6BTcWyoZ+MpHLdqD20cfpZBeg==',
  document: 'RUNBLURPQzICazKX0BnjmQCN/J22U5G9Z/GOf3omxlEJwIhLiuqH9p0IB8klxAkdkHjQ+SEE',
  payload: {
    metadata: {
      encoding: 'YmluYXJ5L2VuY3J5cHRlZA==',
      'encryption-key-id': 'azI=',
      'encryption-cipher': 'QUVTLTI1Ni1HQ00=',
    },
    data: 'FvjfP1ntDPDH1wWO16viBkwgZx6IEs4Ojc+R1/1rwAbpdWtKpM7esZJtVUS9gCI76iqc8J3DGtzP3I6MHCSeV4bs18gMVFA=',
  },
};
const DOCUMENT_REF = 'hmac/ab/abababababababababababababababababababababababababababababababab';

describe('sealed formats written before, read today', function () {
  it('opens a sealed box value (the firm keys label) under its context, and refuses it under another', function () {
    const box = new SealedBox(keyring, 'eca-firm-keys-v1', 'ECA-FRK1');
    const sealed = Buffer.from(WRITTEN.box, 'base64');
    assert.deepEqual(box.open(sealed, 'FIRM1'), Buffer.from('firm keys sample'));
    assert.deepEqual(box.open(sealed, 'FIRM2'), { kind: 'not-authentic', keyId: 'k2' });
  });

  it('unseals a document file at its reference', function () {
    const documents = new DocumentKeys(keyring);
    assert.deepEqual(
      documents.unseal(Buffer.from(WRITTEN.document, 'base64'), DOCUMENT_REF),
      Buffer.from('document sample'),
    );
  });

  it('decodes an encrypted payload to the payload that was encoded', async function () {
    const codec = new AesGcmPayloadCodec(keyring);
    const metadata = Object.fromEntries(
      Object.entries(WRITTEN.payload.metadata).map(([key, value]) => [key, Buffer.from(value, 'base64')]),
    );
    const [decoded] = await codec.decode([{ metadata, data: Buffer.from(WRITTEN.payload.data, 'base64') }]);
    assert.equal(Buffer.from(decoded!.data!).toString(), '{"hello":"world"}');
    assert.equal(Buffer.from(decoded!.metadata!.encoding!).toString(), 'json/plain');
  });
});

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import * as openpgp from 'openpgp';
import {
  decryptAndVerify,
  encryptAndSign,
  generateKeyPair,
  loadPrivateKey,
  loadPublicKey,
  open,
  RESPONSE_FILE_SIGNATURE,
  seal,
  toBase64,
} from '../../../eca/crypto.js';
import type { EnvelopeKeys } from '../../../eca/crypto.js';
import { EcaCryptoError } from '../../../eca/errors.js';

const run = promisify(execFile);

function bytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

async function rejectsWith(promise: Promise<unknown>, key: EcaCryptoError['key']): Promise<EcaCryptoError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof EcaCryptoError, `expected EcaCryptoError, got ${String(error)}`);
    assert.equal(error.key, key, error.message);
    return error;
  }
  assert.fail(`expected EcaCryptoError(${key})`);
}

describe('eca/crypto: OpenPGP envelope', function () {
  const FIRM_PASSPHRASE = 'firm passphrase';
  let firm: { publicKey: string; privateKey: string };
  let brokerage: { publicKey: string; privateKey: string };
  let firmSide: EnvelopeKeys;
  let brokerageSide: EnvelopeKeys;

  before(async function () {
    firm = await generateKeyPair({ name: 'Firm', email: 'firm@example.com', passphrase: FIRM_PASSPHRASE });
    brokerage = await generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.com' });
    firmSide = {
      ownPrivateKey: await loadPrivateKey(firm.privateKey, FIRM_PASSPHRASE),
      peerPublicKey: await loadPublicKey(brokerage.publicKey),
    };
    brokerageSide = {
      ownPrivateKey: await loadPrivateKey(brokerage.privateKey, undefined, 'brokeragePrivateKey'),
      peerPublicKey: await loadPublicKey(firm.publicKey, 'firmPublicKey'),
      side: 'brokerage',
    };
  });

  it('seals on the firm side and opens on the brokerage side, and back, byte for byte', async function () {
    const data = new Uint8Array(4096).map((_, index) => (index * 31) % 256);
    const sealed = await seal(data, firmSide);
    assert.match(sealed, /^[A-Za-z0-9+/]+=*$/);
    assert.deepEqual(await open(sealed, brokerageSide), data);
    const answer = await seal(bytes('<Process/>'), brokerageSide);
    assert.equal(new TextDecoder().decode(await open(answer, firmSide)), '<Process/>');
  });

  it('seals and opens with RSA 4096 keys (a brokerage’s newer keys) as with curve25519, one side of each', async function () {
    this.timeout(60_000);
    const rsa = await generateKeyPair({ name: 'RSA Brokerage', email: 'rsa@example.com', algorithm: 'rsa4096' });
    const rsaKey = await loadPrivateKey(rsa.privateKey, undefined, 'brokeragePrivateKey');
    assert.equal(rsaKey.getAlgorithmInfo().algorithm, 'rsaEncryptSign');
    assert.equal(rsaKey.getAlgorithmInfo().bits, 4096);
    const toRsa: EnvelopeKeys = { ...firmSide, peerPublicKey: await loadPublicKey(rsa.publicKey) };
    const rsaSide: EnvelopeKeys = { ...brokerageSide, ownPrivateKey: rsaKey };
    const sealed = await seal(bytes('<Process/>'), toRsa);
    assert.equal(new TextDecoder().decode(await open(sealed, rsaSide)), '<Process/>');
    assert.equal(new TextDecoder().decode(await open(await seal(bytes('ok'), rsaSide), toRsa)), 'ok');
  });

  it('encryptAndSign / decryptAndVerify are the same operations with explicit keys', async function () {
    const sealed = await encryptAndSign(bytes('x'), {
      encryptionKey: brokerageSide.ownPrivateKey.toPublic(),
      signingKey: firmSide.ownPrivateKey,
    });
    const opened = await decryptAndVerify(sealed, {
      decryptionKey: brokerageSide.ownPrivateKey,
      verificationKey: firmSide.ownPrivateKey.toPublic(),
    });
    assert.equal(new TextDecoder().decode(opened), 'x');
  });

  it('names the key at fault when a payload was encrypted to someone else', async function () {
    const stranger = await generateKeyPair({ name: 'Stranger', email: 'stranger@example.com' });
    const sealed = await seal(bytes('secret'), {
      ownPrivateKey: firmSide.ownPrivateKey,
      peerPublicKey: await loadPublicKey(stranger.publicKey),
    });
    const error = await rejectsWith(open(sealed, brokerageSide), 'brokeragePrivateKey');
    assert.doesNotMatch(error.message, /secret/);
    // The firm side names its own key for a response it cannot decrypt.
    const toBrokerage = await seal(bytes('x'), firmSide);
    await rejectsWith(open(toBrokerage, firmSide), 'firmPrivateKey');
  });

  it('rejects a payload signed by the wrong key or not signed at all', async function () {
    const impostor = await generateKeyPair({ name: 'Impostor', email: 'impostor@example.com' });
    const forged = await seal(bytes('x'), {
      ownPrivateKey: await loadPrivateKey(impostor.privateKey),
      peerPublicKey: firmSide.peerPublicKey,
    });
    await rejectsWith(open(forged, brokerageSide), 'signature');

    const unsigned = (await openpgp.encrypt({
      message: await openpgp.createMessage({ binary: bytes('x') }),
      encryptionKeys: firmSide.peerPublicKey,
      format: 'binary',
    })) as Uint8Array;
    await rejectsWith(open(toBase64(unsigned), brokerageSide), 'signature');
  });

  // Spec, Authentication 2: request payloads are "encrypted and signed"; "Responses that carry files are encrypted
  // XML in base64 that the caller decrypts" (no signature promised).
  it('opens an unsigned response file when a signature is not required, and still refuses a foreign signature', async function () {
    const unsigned = (await openpgp.encrypt({
      message: await openpgp.createMessage({ binary: bytes('report') }),
      encryptionKeys: brokerageSide.peerPublicKey,
      format: 'binary',
    })) as Uint8Array;
    const opened = await open(toBase64(unsigned), firmSide, RESPONSE_FILE_SIGNATURE);
    assert.equal(new TextDecoder().decode(opened), 'report');
    await rejectsWith(open(toBase64(unsigned), firmSide), 'signature');
    const impostor = await generateKeyPair({ name: 'Impostor', email: 'impostor@example.com' });
    const forged = await seal(bytes('report'), {
      ownPrivateKey: await loadPrivateKey(impostor.privateKey),
      peerPublicKey: brokerageSide.peerPublicKey,
    });
    await rejectsWith(open(forged, firmSide, RESPONSE_FILE_SIGNATURE), 'signature');
    const signed = await seal(bytes('report'), brokerageSide);
    assert.equal(new TextDecoder().decode(await open(signed, firmSide, RESPONSE_FILE_SIGNATURE)), 'report');
  });

  it('rejects text that is not base64 or not OpenPGP as a payload error', async function () {
    await rejectsWith(open('not base64 at all!', brokerageSide), 'payload');
    await rejectsWith(open(Buffer.from('plain text, not OpenPGP').toString('base64'), brokerageSide), 'payload');
  });

  it('loads keys from files and names the missing passphrase, the wrong passphrase and unreadable keys', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-keys-'));
    try {
      const privatePath = join(dir, 'firm.asc');
      const publicPath = join(dir, 'brokerage.asc');
      await writeFile(privatePath, firm.privateKey);
      await writeFile(publicPath, brokerage.publicKey);
      const loadedPrivate = await loadPrivateKey(privatePath, FIRM_PASSPHRASE);
      const loadedPublic = await loadPublicKey(publicPath);
      assert.equal(loadedPrivate.getFingerprint(), firmSide.ownPrivateKey.getFingerprint());
      assert.equal(loadedPublic.getFingerprint(), firmSide.peerPublicKey.getFingerprint());

      await rejectsWith(loadPrivateKey(privatePath), 'passphrase');
      const wrong = await rejectsWith(loadPrivateKey(privatePath, 'wrong'), 'passphrase');
      assert.doesNotMatch(wrong.message, /wrong/);
      await rejectsWith(loadPublicKey(join(dir, 'missing.asc')), 'brokeragePublicKey');
      await rejectsWith(loadPublicKey('', 'firmPublicKey'), 'firmPublicKey');
      await rejectsWith(loadPrivateKey(brokerage.publicKey, undefined, 'brokeragePrivateKey'), 'brokeragePrivateKey');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe('interoperability with GnuPG', function () {
    let home: string;
    const gpg = (args: string[], input?: Buffer) =>
      new Promise<{ stdout: Buffer; stderr: string }>((resolve, reject) => {
        const child = execFile(
          'gpg',
          ['--homedir', home, '--batch', '--yes', '--no-tty', '--trust-model', 'always', ...args],
          { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 },
          (error, stdout, stderr) =>
            error
              ? reject(new Error(`gpg ${args[0]} failed: ${stderr.toString()}`))
              : resolve({ stdout, stderr: stderr.toString() }),
        );
        child.stdin?.end(input);
      });

    before(async function () {
      this.timeout(30_000);
      try {
        await run('gpg', ['--version']);
      } catch {
        this.skip();
      }
      home = await mkdtemp(join(tmpdir(), 'eca-gpg-'));
      // GnuPG plays the brokerage: it holds the brokerage private key and the firm's public key.
      await gpg(['--import'], Buffer.from(brokerage.privateKey));
      await gpg(['--import'], Buffer.from(firm.publicKey));
    });

    after(async function () {
      if (!home) return;
      await run('gpgconf', ['--homedir', home, '--kill', 'all']).catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    });

    it('opens a payload that gpg encrypted to the firm and signed as the brokerage', async function () {
      const content = Buffer.from('<Process><Execution/></Process>\n');
      const { stdout } = await gpg(
        [
          '--encrypt',
          '--sign',
          '--recipient',
          'firm@example.com',
          '--local-user',
          'brokerage@example.com',
          '--output',
          '-',
        ],
        content,
      );
      const opened = await open(stdout.toString('base64'), firmSide);
      assert.equal(Buffer.from(opened).toString(), content.toString());
    });

    it('produces a payload that gpg decrypts and whose signature gpg verifies as the firm', async function () {
      const content = bytes('PK archive bytes \u00e9\u00e8');
      const sealed = await seal(content, firmSide);
      const { stdout, stderr } = await gpg(
        ['--status-fd', '2', '--decrypt', '--output', '-'],
        Buffer.from(sealed, 'base64'),
      );
      assert.deepEqual(new Uint8Array(stdout), content);
      const firmFingerprint = firmSide.ownPrivateKey.getFingerprint().toUpperCase();
      assert.match(stderr, /\[GNUPG:\] GOODSIG /);
      assert.match(stderr, new RegExp(`\\[GNUPG:\\] VALIDSIG \\w+ .* ${firmFingerprint}`));
    });

    it('rejects a gpg payload signed by a key other than the brokerage', async function () {
      const impostor = await generateKeyPair({ name: 'Impostor', email: 'impostor2@example.com' });
      await gpg(['--import'], Buffer.from(impostor.privateKey));
      const { stdout } = await gpg(
        [
          '--encrypt',
          '--sign',
          '--recipient',
          'firm@example.com',
          '--local-user',
          'impostor2@example.com',
          '--output',
          '-',
        ],
        Buffer.from('x'),
      );
      await rejectsWith(open(stdout.toString('base64'), firmSide), 'signature');
    });
  });
});

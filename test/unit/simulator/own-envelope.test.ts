/**
 * The simulator's side of the envelope and of the SSO payload is its own (simulator/crypto.ts,
 * simulator/formats/sso-payload.ts), not the engine's eca/crypto.ts or eca/sso.ts checks: were it shared, a defect
 * there would be on both sides of every test against the simulator and could not show. Here the brokerage's code
 * meets the firm's over real OpenPGP, each written on its own.
 */
import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as openpgp from 'openpgp';
import { generateKeyPair, loadPrivateKey, loadPublicKey, open, seal, toBase64 } from '../../../eca/crypto.js';
import type { EnvelopeKeys } from '../../../eca/crypto.js';
import {
  EnvelopeRefusal,
  openFromFirm,
  readPrivateKey,
  readPublicKey,
  sealForFirm,
} from '../../../simulator/crypto.js';
import { parseSsoPayload, SsoPayloadRefusal } from '../../../simulator/formats/sso-payload.js';

const SIMULATOR = new URL('../../../simulator/', import.meta.url);

async function sources(dir: URL): Promise<Array<{ path: string; text: string }>> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return Promise.all(
    entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map(async (entry) => {
        const path = join(entry.parentPath, entry.name);
        return { path, text: await readFile(path, 'utf8') };
      }),
  );
}

describe('simulator: its own envelope and SSO payload checks', function () {
  let firm: EnvelopeKeys;
  let brokerage: { brokeragePrivateKey: openpgp.PrivateKey; firmPublicKey: openpgp.PublicKey };

  before(async function () {
    const firmPair = await generateKeyPair({ name: 'Firm', email: 'firm@example.com' });
    const brokeragePair = await generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.com' });
    firm = {
      ownPrivateKey: await loadPrivateKey(firmPair.privateKey),
      peerPublicKey: await loadPublicKey(brokeragePair.publicKey),
    };
    brokerage = {
      brokeragePrivateKey: await readPrivateKey(brokeragePair.privateKey),
      firmPublicKey: await readPublicKey(firmPair.publicKey),
    };
  });

  it("imports none of the engine's OpenPGP code or SSO payload checks", async function () {
    for (const { path, text } of await sources(SIMULATOR)) {
      assert.doesNotMatch(text, /from '(?:\.\.\/)+eca\/crypto(?:-pool|-thread)?\.js'/, path);
      for (const match of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*'(?:\.\.\/)+eca\/sso\.js'/g)) {
        const names = (match[1] ?? '').split(',').map((name) => name.trim());
        assert.deepEqual(
          names.filter((name) => name !== '' && name !== 'SSO_PAYLOAD_FIELDS'),
          [],
          `${path}: only the agreed field names`,
        );
      }
    }
  });

  it("opens what the firm's client sealed, and seals what the firm's client opens", async function () {
    const sealed = await seal(new TextEncoder().encode('request archive'), firm);
    assert.equal(new TextDecoder().decode(await openFromFirm(sealed, brokerage)), 'request archive');
    const answer = await sealForFirm(new TextEncoder().encode('response file'), brokerage);
    assert.equal(new TextDecoder().decode(await open(answer, firm)), 'response file');
  });

  // Spec, Authentication 2: payloads are "encrypted and signed with keys agreed with the brokerage".
  it('refuses a payload unsigned, signed by another key, encrypted to another key, or not OpenPGP, naming why', async function () {
    const refused = async (payload: string, why: RegExp) =>
      assert.rejects(openFromFirm(payload, brokerage), (error: unknown) => {
        assert.ok(error instanceof EnvelopeRefusal, String(error));
        assert.match(error.message, why);
        return true;
      });
    const data = new TextEncoder().encode('request archive');
    const unsigned = (await openpgp.encrypt({
      message: await openpgp.createMessage({ binary: data }),
      encryptionKeys: firm.peerPublicKey,
      format: 'binary',
    })) as Uint8Array;
    await refused(toBase64(unsigned), /not signed/);
    const stranger = await generateKeyPair({ name: 'Stranger', email: 'stranger@example.com' });
    const strangerPrivate = await loadPrivateKey(stranger.privateKey);
    await refused(
      await seal(data, { ownPrivateKey: strangerPrivate, peerPublicKey: firm.peerPublicKey }),
      /no valid signature/,
    );
    await refused(
      await seal(data, { ownPrivateKey: firm.ownPrivateKey, peerPublicKey: await loadPublicKey(stranger.publicKey) }),
      /not encrypted to the brokerage's key/,
    );
    await refused(Buffer.from('plain text').toString('base64'), /not an OpenPGP message/);
    await refused('not base64!', /not base64/);
  });

  // Spec, sso/create rule 1: "Exactly one IP is expected: the end user's own address."
  it('reads exactly one IP address in the SSO payload, and names the field of a refusal', function () {
    assert.deepEqual(parseSsoPayload('{"USER_NAME":"jdoe1","IP":"2001:db8::7"}'), {
      userName: 'jdoe1',
      ip: '2001:db8::7',
    });
    for (const ip of ['"1.2.3.4, 5.6.7.8"', '"1.2.3.4 5.6.7.8"', '["1.2.3.4","5.6.7.8"]', '"999.1.1.1"', '""']) {
      assert.throws(
        () => parseSsoPayload(`{"USER_NAME":"jdoe1","IP":${ip}}`),
        (error: unknown) => error instanceof SsoPayloadRefusal && error.field === 'IP',
        ip,
      );
    }
    assert.throws(
      () => parseSsoPayload('{"USER_NAME":"j doe","IP":"1.2.3.4"}'),
      (error: unknown) => error instanceof SsoPayloadRefusal && error.field === 'USER_NAME',
    );
  });
});

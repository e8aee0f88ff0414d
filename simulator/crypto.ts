/**
 * The brokerage's side of the OpenPGP envelope, written here on openpgp alone and not taken from the engine's
 * eca/crypto.ts: a defect in the client's sealing or opening then shows against the simulator instead of being
 * shared by both sides. A firm's payload must be encrypted to the brokerage's key and signed by the firm's (spec,
 * Authentication 2: "encrypted and signed with keys agreed"); response files are sealed the same way for the firm.
 * Keys are made as the firm's tools read them: curve25519 in the classic (v4) format, or RSA 4096.
 */
import * as openpgp from 'openpgp';
import type { PrivateKey, PublicKey } from 'openpgp';

export type { PrivateKey, PublicKey } from 'openpgp';

/** The key algorithms a generated pair may use: curve25519 (small, fast) or RSA 4096 (a brokerage's newer keys). */
export type KeyAlgorithm = 'curve25519' | 'rsa4096';

/** Why a payload could not be opened: the text names the cause, never the content. */
export class EnvelopeRefusal extends Error {}

export async function generateKeyPair(
  name: string,
  email: string,
  algorithm: KeyAlgorithm = 'curve25519',
): Promise<{ publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await openpgp.generateKey({
    ...(algorithm === 'rsa4096'
      ? { type: 'rsa' as const, rsaBits: 4096 }
      : { type: 'ecc' as const, curve: 'curve25519Legacy' as const }),
    userIDs: [{ name, email }],
    format: 'armored',
  });
  return { publicKey, privateKey };
}

/** The brokerage's own private key (armored, never protected by a passphrase: the simulator makes it). */
export function readPrivateKey(armored: string): Promise<PrivateKey> {
  return openpgp.readPrivateKey({ armoredKey: armored });
}

/** A firm's public key as the brokerage holds it (armored); a private key given is reduced to its public part. */
export async function readPublicKey(armored: string): Promise<PublicKey> {
  const key = await openpgp.readKey({ armoredKey: armored });
  return key.isPrivate() ? key.toPublic() : key;
}

/** Encrypts `data` to the firm's key and signs it with the brokerage's: base64 of the binary message. */
export async function sealForFirm(
  data: Uint8Array,
  keys: { firmPublicKey: PublicKey; brokeragePrivateKey: PrivateKey },
): Promise<string> {
  const message = await openpgp.createMessage({ binary: data });
  const sealed = (await openpgp.encrypt({
    message,
    encryptionKeys: keys.firmPublicKey,
    signingKeys: keys.brokeragePrivateKey,
    format: 'binary',
  })) as Uint8Array;
  return Buffer.from(sealed).toString('base64');
}

/**
 * Opens a firm's payload: base64 of an OpenPGP message (binary, or armored text), encrypted to the brokerage's key
 * and carrying a signature that verifies by the firm's key. Throws {@link EnvelopeRefusal} naming what is wrong.
 */
export async function openFromFirm(
  payload: string,
  keys: { brokeragePrivateKey: PrivateKey; firmPublicKey: PublicKey },
): Promise<Uint8Array> {
  const compact = payload.replace(/\s+/g, '');
  if (compact === '' || compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) {
    throw new EnvelopeRefusal('the payload is not base64 text');
  }
  const bytes = Buffer.from(compact, 'base64');
  let message: openpgp.Message<Uint8Array> | openpgp.Message<string>;
  try {
    const armored = bytes.subarray(0, 64).toString('latin1').startsWith('-----BEGIN PGP MESSAGE');
    message = armored
      ? await openpgp.readMessage({ armoredMessage: bytes.toString('utf8') })
      : await openpgp.readMessage({ binaryMessage: new Uint8Array(bytes) });
  } catch {
    throw new EnvelopeRefusal('the payload is not an OpenPGP message');
  }
  const recipients = message.getEncryptionKeyIDs();
  if (recipients.length === 0) throw new EnvelopeRefusal('the payload is not encrypted');
  const ours = keys.brokeragePrivateKey.getKeyIDs();
  if (!recipients.some((id) => ours.some((own) => own.equals(id, true)))) {
    throw new EnvelopeRefusal("the payload is not encrypted to the brokerage's key");
  }
  let opened: { data: Uint8Array; signatures: Array<{ verified: Promise<true> }> };
  try {
    const result = await openpgp.decrypt({
      message,
      decryptionKeys: keys.brokeragePrivateKey,
      verificationKeys: keys.firmPublicKey,
      format: 'binary',
    });
    // openpgp types the data by web-stream types this Node-only build lacks; format 'binary' gives bytes.
    opened = { data: result.data as Uint8Array, signatures: result.signatures };
  } catch {
    throw new EnvelopeRefusal("the payload cannot be decrypted with the brokerage's key");
  }
  if (opened.signatures.length === 0) throw new EnvelopeRefusal("the payload is not signed (expected the firm's key)");
  const verified = await Promise.allSettled(opened.signatures.map((signature) => signature.verified));
  if (!verified.some((outcome) => outcome.status === 'fulfilled')) {
    throw new EnvelopeRefusal("the payload carries no valid signature by the firm's key");
  }
  return opened.data;
}

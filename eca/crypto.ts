/**
 * The OpenPGP envelope of the file operations: a request payload is the archive (or JSON) encrypted to the peer's
 * public key and signed with one's own private key, sent as base64 of the binary OpenPGP message; a response file is
 * opened the other way round. The firm and the brokerage (the simulator) use the same functions with their own keys.
 *
 * Keys are generated as ECC curve25519 in the classic (v4) format so that GnuPG 2.2 reads them too.
 */
import { readFile } from 'node:fs/promises';
import * as openpgp from 'openpgp';
import type { PrivateKey, PublicKey } from 'openpgp';
import { EcaCryptoError } from './errors.js';
import type { EcaCryptoPart } from './errors.js';

export type { PrivateKey, PublicKey } from 'openpgp';

export type PublicKeyRole = 'brokeragePublicKey' | 'firmPublicKey';
export type PrivateKeyRole = 'firmPrivateKey' | 'brokeragePrivateKey';

/** Which party is acting: error texts then name that party's keys (`firmPrivateKey` vs `brokeragePrivateKey`). */
export type EnvelopeSide = 'firm' | 'brokerage';

export interface EnvelopeKeys {
  /** The acting party's private key (decrypted), used to sign outgoing and decrypt incoming payloads. */
  ownPrivateKey: PrivateKey;
  /** The other party's public key, used to encrypt outgoing and verify incoming payloads. */
  peerPublicKey: PublicKey;
  /** Defaults to `firm`. */
  side?: EnvelopeSide;
}

export interface KeyRoles {
  ownPrivate: PrivateKeyRole;
  peerPublic: PublicKeyRole;
}

export function keyRoles(side: EnvelopeSide = 'firm'): KeyRoles {
  return side === 'firm'
    ? { ownPrivate: 'firmPrivateKey', peerPublic: 'brokeragePublicKey' }
    : { ownPrivate: 'brokeragePrivateKey', peerPublic: 'firmPublicKey' };
}

/** The key algorithms a generated pair may use: curve25519 (small, fast) or RSA 4096 (a brokerage's newer keys). */
export type KeyAlgorithm = 'curve25519' | 'rsa4096';

export async function generateKeyPair(opts: {
  name: string;
  email: string;
  passphrase?: string;
  algorithm?: KeyAlgorithm;
}): Promise<{ publicKey: string; privateKey: string }> {
  const { publicKey, privateKey } = await openpgp.generateKey({
    ...(opts.algorithm === 'rsa4096'
      ? { type: 'rsa' as const, rsaBits: 4096 }
      : { type: 'ecc' as const, curve: 'curve25519Legacy' as const }),
    userIDs: [{ name: opts.name, email: opts.email }],
    ...(opts.passphrase ? { passphrase: opts.passphrase } : {}),
    format: 'armored',
  });
  return { publicKey, privateKey };
}

function looksArmored(text: string): boolean {
  return text.includes('-----BEGIN PGP');
}

async function keySource(
  armoredOrPath: string,
  role: PublicKeyRole | PrivateKeyRole,
): Promise<{ armoredKey: string } | { binaryKey: Uint8Array }> {
  if (typeof armoredOrPath !== 'string' || armoredOrPath.trim() === '') {
    throw new EcaCryptoError(role, 'no key given');
  }
  if (looksArmored(armoredOrPath)) return { armoredKey: armoredOrPath };
  let bytes: Uint8Array;
  try {
    bytes = await readFile(armoredOrPath);
  } catch (cause) {
    throw new EcaCryptoError(role, 'neither armored key text nor a readable key file', { cause });
  }
  const text = new TextDecoder().decode(bytes);
  return looksArmored(text) ? { armoredKey: text } : { binaryKey: bytes };
}

/** Loads a public key from armored text or a file (armored or binary). A private key given here is reduced to its public part. */
export async function loadPublicKey(
  armoredOrPath: string,
  role: PublicKeyRole = 'brokeragePublicKey',
): Promise<PublicKey> {
  const source = await keySource(armoredOrPath, role);
  let key: openpgp.Key;
  try {
    key = 'armoredKey' in source ? await openpgp.readKey(source) : await openpgp.readKey(source);
  } catch (cause) {
    throw new EcaCryptoError(role, 'not a readable OpenPGP key', { cause });
  }
  const publicKey = key.isPrivate() ? key.toPublic() : key;
  try {
    await publicKey.getEncryptionKey();
  } catch (cause) {
    throw new EcaCryptoError(role, 'key has no usable encryption (sub)key: expired, revoked or unsupported', { cause });
  }
  return publicKey;
}

/** Loads a private key from armored text or a file and decrypts it with the passphrase when it is protected. */
export async function loadPrivateKey(
  armoredOrPath: string,
  passphrase?: string,
  role: PrivateKeyRole = 'firmPrivateKey',
): Promise<PrivateKey> {
  const source = await keySource(armoredOrPath, role);
  let key: PrivateKey;
  try {
    key = 'armoredKey' in source ? await openpgp.readPrivateKey(source) : await openpgp.readPrivateKey(source);
  } catch (cause) {
    throw new EcaCryptoError(role, 'not a readable OpenPGP private key', { cause });
  }
  if (!key.isDecrypted()) {
    if (passphrase === undefined || passphrase === '') {
      throw new EcaCryptoError('passphrase', `${role} is protected by a passphrase and none was given`);
    }
    try {
      key = await openpgp.decryptKey({ privateKey: key, passphrase });
    } catch (cause) {
      throw new EcaCryptoError('passphrase', `the passphrase does not unlock ${role}`, { cause });
    }
  }
  try {
    await key.getSigningKey();
  } catch (cause) {
    throw new EcaCryptoError(role, 'key has no usable signing (sub)key: expired, revoked or unsupported', { cause });
  }
  return key;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function toBase64(data: Uint8Array): string {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64');
}

/** Strict base64 decoding (whitespace ignored); undefined when the text is not base64. */
export function fromBase64(text: string): Uint8Array | undefined {
  const compact = text.replace(/\s+/g, '');
  if (compact.length % 4 !== 0 || !BASE64.test(compact)) return undefined;
  return new Uint8Array(Buffer.from(compact, 'base64'));
}

/**
 * Whether `bytes` are an encrypted OpenPGP message rather than text: they begin with a session-key packet (tag 1,
 * public-key encrypted, or tag 3, symmetric-key encrypted; old or new packet format), as every encrypted message
 * does, and are not UTF-8 text (a text whose first character happens to share that byte is text). Deterministic:
 * the first byte of such a packet is never the first byte of UTF-8 text followed by its continuation.
 */
export function isEncryptedMessage(bytes: Uint8Array): boolean {
  const first = bytes[0];
  if (first === undefined || (first & 0x80) === 0) return false;
  const tag = (first & 0x40) !== 0 ? first & 0x3f : (first >> 2) & 0x0f;
  if (tag !== 1 && tag !== 3) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return false;
  } catch {
    return true;
  }
}

/** Encrypts `data` to `encryptionKey` and signs it with `signingKey`; returns base64 of the binary OpenPGP message. */
export async function encryptAndSign(
  data: Uint8Array,
  keys: { encryptionKey: PublicKey; signingKey: PrivateKey },
  roles: KeyRoles = keyRoles('firm'),
): Promise<string> {
  try {
    await keys.encryptionKey.getEncryptionKey();
  } catch (cause) {
    throw new EcaCryptoError(roles.peerPublic, 'cannot encrypt to this key', { cause });
  }
  if (!keys.signingKey.isDecrypted()) {
    throw new EcaCryptoError('passphrase', `${roles.ownPrivate} is still locked`);
  }
  try {
    await keys.signingKey.getSigningKey();
  } catch (cause) {
    throw new EcaCryptoError(roles.ownPrivate, 'cannot sign with this key', { cause });
  }
  try {
    const message = await openpgp.createMessage({ binary: data, format: 'binary' });
    // openpgp's result type is conditional on web-stream types absent from this Node-only lib; the input is bytes.
    const encrypted = (await openpgp.encrypt({
      message,
      encryptionKeys: keys.encryptionKey,
      signingKeys: keys.signingKey,
      format: 'binary',
    })) as Uint8Array;
    return toBase64(encrypted);
  } catch (cause) {
    throw new EcaCryptoError('payload', 'encryption failed', { cause });
  }
}

async function readEncryptedMessage(base64: string): Promise<openpgp.Message<Uint8Array> | openpgp.Message<string>> {
  const bytes = typeof base64 === 'string' ? fromBase64(base64) : undefined;
  if (!bytes || bytes.length === 0) throw new EcaCryptoError('payload', 'not base64 text');
  try {
    // Armored messages base64-encoded once more are accepted too: some tools armor by default.
    const text = new TextDecoder().decode(bytes.subarray(0, 64));
    if (text.startsWith('-----BEGIN PGP MESSAGE')) {
      return await openpgp.readMessage({ armoredMessage: new TextDecoder().decode(bytes) });
    }
    return await openpgp.readMessage({ binaryMessage: bytes });
  } catch (cause) {
    throw new EcaCryptoError('payload', 'not an OpenPGP message', { cause });
  }
}

/**
 * What a message must carry to be opened: `required`, a valid signature by the peer (the spec's request payloads
 * are "encrypted and signed"); `when-present`, a valid signature by the peer when it carries any, none otherwise
 * (the spec promises response files only encrypted: "Responses that carry files are encrypted XML in base64 that
 * the caller decrypts"). A signature that does not verify by the peer's key is refused under both.
 */
export type SignatureRule = 'required' | 'when-present';

/**
 * Decrypts a base64 OpenPGP message with `decryptionKey` and checks its signature by `verificationKey` as `signature`
 * says. Errors name the part at fault: the own private key when the message is not encrypted to it, `signature`
 * when it is signed by another key or does not verify (or is unsigned where a signature is required), `payload`
 * when it is not an OpenPGP message at all.
 */
export async function decryptAndVerify(
  base64: string,
  keys: { decryptionKey: PrivateKey; verificationKey: PublicKey },
  roles: KeyRoles = keyRoles('firm'),
  signature: SignatureRule = 'required',
): Promise<Uint8Array> {
  const message = await readEncryptedMessage(base64);
  const recipientIds = message.getEncryptionKeyIDs();
  if (recipientIds.length === 0) throw new EcaCryptoError('payload', 'message is not encrypted');
  const ownIds = keys.decryptionKey.getKeyIDs();
  const addressedToUs = recipientIds.some((id) => ownIds.some((own) => own.equals(id, true)));
  if (!addressedToUs) {
    throw new EcaCryptoError(roles.ownPrivate, 'message is not encrypted to this key');
  }
  let data: Uint8Array;
  let signatures: Array<{ verified: Promise<true> }>;
  try {
    const result = await openpgp.decrypt({
      message,
      decryptionKeys: keys.decryptionKey,
      verificationKeys: keys.verificationKey,
      format: 'binary',
    });
    data = result.data as Uint8Array;
    signatures = result.signatures;
  } catch (cause) {
    throw new EcaCryptoError(roles.ownPrivate, 'message cannot be decrypted with this key', { cause });
  }
  if (signatures.length === 0) {
    if (signature === 'when-present') return data;
    throw new EcaCryptoError('signature', `message is not signed (expected a signature by ${roles.peerPublic})`);
  }
  const outcomes = await Promise.allSettled(signatures.map((signature) => signature.verified));
  if (!outcomes.some((outcome) => outcome.status === 'fulfilled' && outcome.value === true)) {
    throw new EcaCryptoError('signature', `no valid signature by ${roles.peerPublic}`);
  }
  return data;
}

export function seal(data: Uint8Array, keys: EnvelopeKeys): Promise<string> {
  return encryptAndSign(
    data,
    { encryptionKey: keys.peerPublicKey, signingKey: keys.ownPrivateKey },
    keyRoles(keys.side),
  );
}

/** Opens a sealed message from the peer; `signature` as {@link decryptAndVerify} reads it (required unless told). */
export function open(base64: string, keys: EnvelopeKeys, signature: SignatureRule = 'required'): Promise<Uint8Array> {
  return decryptAndVerify(
    base64,
    { decryptionKey: keys.ownPrivateKey, verificationKey: keys.peerPublicKey },
    keyRoles(keys.side),
    signature,
  );
}

/**
 * The rule for the brokerage's response files (and the signed SSO URL): the spec promises them encrypted, not
 * signed, so an unsigned one is read; one that carries a signature must verify by the brokerage's key.
 */
export const RESPONSE_FILE_SIGNATURE: SignatureRule = 'when-present';

/** Errors raised by this module carry one of these parts. */
export type { EcaCryptoPart };

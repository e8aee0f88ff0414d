/**
 * Compact JSON Web Tokens signed with RS256 (RFC 7515, 7519), the one algorithm the Web API's document
 * shows in its tokens and signed bodies: what the client signs (its assertions, its signed request bodies)
 * and what the simulator verifies. Node's crypto only: RS256 is RSASSA-PKCS1-v1_5 over SHA-256.
 */
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import type { JsonWebKey, KeyObject } from 'node:crypto';
import { JwtError } from './errors.js';

export interface JwtHeader {
  alg: 'RS256';
  typ: 'JWT';
  /** The key's id, as registered with the brokerage: how it finds the key to verify with. */
  kid: string;
}

export type JwtClaims = Record<string, unknown> & { iat?: number; exp?: number };

const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** An RSA private key from PEM text (PKCS#8 or PKCS#1) or a key object; anything else is refused by name. */
export function rsaPrivateKey(key: string | KeyObject, what = 'private key'): KeyObject {
  const object = typeof key === 'string' ? parse(() => createPrivateKey(key), what) : key;
  if (object.type !== 'private' || object.asymmetricKeyType !== 'rsa')
    throw new JwtError(`${what} is not an RSA private key`);
  return object;
}

/** An RSA public key from PEM text, a JWK or a key object. */
export function rsaPublicKey(key: string | KeyObject | JsonWebKey, what = 'public key'): KeyObject {
  const object =
    typeof key === 'string'
      ? parse(() => createPublicKey(key), what)
      : isKeyObject(key)
        ? key
        : parse(() => createPublicKey({ key, format: 'jwk' }), what);
  if (object.asymmetricKeyType !== 'rsa') throw new JwtError(`${what} is not an RSA key`);
  return object.type === 'private' ? createPublicKey(object) : object;
}

function isKeyObject(key: KeyObject | JsonWebKey): key is KeyObject {
  return typeof (key as KeyObject).export === 'function';
}

function parse(make: () => KeyObject, what: string): KeyObject {
  try {
    return make();
  } catch {
    throw new JwtError(`${what} cannot be read (PEM or JWK expected)`);
  }
}

/** `claims` signed with `key` under `kid`. */
export function signJwt(claims: JwtClaims, key: KeyObject, kid: string): string {
  const header: JwtHeader = { alg: 'RS256', typ: 'JWT', kid };
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify(claims))}`;
  return `${input}.${base64url(sign('sha256', Buffer.from(input), key))}`;
}

/** A token's header and claims, read without verifying anything (to find the key its `kid` names). */
export function decodeJwt(token: string): { header: JwtHeader; claims: JwtClaims } {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((part) => !/^[A-Za-z0-9_-]*$/.test(part))) {
    throw new JwtError('not a compact JWS (three base64url parts)');
  }
  const json = (part: string, what: string): Record<string, unknown> => {
    try {
      const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
      if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
    } catch {
      // told below
    }
    throw new JwtError(`its ${what} is not a JSON object`);
  };
  const header = json(parts[0]!, 'header');
  if (header.alg !== 'RS256') throw new JwtError(`alg ${JSON.stringify(header.alg)} (RS256 only)`);
  if (typeof header.kid !== 'string' || header.kid === '') throw new JwtError('no kid in its header');
  return { header: header as unknown as JwtHeader, claims: json(parts[1]!, 'claims') };
}

/**
 * Verifies a token's signature with `key` and its times against `now` (seconds): `exp` required and in the
 * future, `iat` not in the future, and at most `maxLifetimeS` between them. Answers the claims.
 */
export function verifyJwt(
  token: string,
  key: KeyObject,
  options: { now: number; maxLifetimeS: number; leewayS?: number },
): JwtClaims {
  const { claims } = decodeJwt(token);
  const [header, payload, signature] = token.split('.') as [string, string, string];
  if (!verify('sha256', Buffer.from(`${header}.${payload}`), key, Buffer.from(signature, 'base64url'))) {
    throw new JwtError('bad signature');
  }
  const leeway = options.leewayS ?? 5;
  if (typeof claims.exp !== 'number' || typeof claims.iat !== 'number') throw new JwtError('iat and exp required');
  if (claims.exp + leeway <= options.now) throw new JwtError('expired');
  if (claims.iat - leeway > options.now) throw new JwtError('issued in the future');
  if (claims.exp - claims.iat > options.maxLifetimeS) {
    throw new JwtError(`valid ${claims.exp - claims.iat} s, more than ${options.maxLifetimeS} s`);
  }
  return claims;
}

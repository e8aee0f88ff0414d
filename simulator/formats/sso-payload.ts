/**
 * The brokerage's reader of the sso/create payload JSON that eca's `buildSsoPayload` writes. The field names are
 * the ones both sides agreed (the spec does not show them); the checks are the brokerage's own, not the client's,
 * so that a defect in the client's checks shows against them.
 */
import { isIP } from 'node:net';
import { SSO_PAYLOAD_FIELDS } from '../../eca/sso.js';

/** A payload the brokerage cannot use, naming the field at fault; the text carries no payload content. */
export class SsoPayloadRefusal extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field}: ${problem}`);
  }
}

/**
 * Reads the payload JSON (the brokerage side): a user name without spaces, and "the IP address of the end user",
 * exactly one (sso/create rule 1), as one IPv4 or IPv6 address in a string. Throws {@link SsoPayloadRefusal}.
 */
export function parseSsoPayload(json: string): { userName: string; ip: string } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new SsoPayloadRefusal('payload', 'the SSO payload is not JSON');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SsoPayloadRefusal('payload', 'the SSO payload is not a JSON object');
  }
  const record = value as Record<string, unknown>;
  const userName = record[SSO_PAYLOAD_FIELDS.userName];
  if (typeof userName !== 'string' || userName === '') {
    throw new SsoPayloadRefusal(SSO_PAYLOAD_FIELDS.userName, 'a user name is required');
  }
  if (/\s/.test(userName)) throw new SsoPayloadRefusal(SSO_PAYLOAD_FIELDS.userName, 'a user name has no spaces');
  const ip = record[SSO_PAYLOAD_FIELDS.ip];
  if (typeof ip !== 'string' || ip === '') {
    throw new SsoPayloadRefusal(SSO_PAYLOAD_FIELDS.ip, 'the IP address of the end user is required, exactly one');
  }
  if (isIP(ip) === 0) {
    const several = /[\s,;]/.test(ip.trim());
    throw new SsoPayloadRefusal(
      SSO_PAYLOAD_FIELDS.ip,
      several ? 'exactly one IP is expected' : 'not an IPv4 or IPv6 address',
    );
  }
  return { userName, ip };
}

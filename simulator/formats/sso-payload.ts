/** The brokerage's reader of the sso/create payload JSON that eca's `buildSsoPayload` writes. */
import { EcaRequestError } from '../../eca/errors.js';
import { checkSingleIp, checkUserName, SSO_PAYLOAD_FIELDS } from '../../eca/sso.js';

/** Reads the payload JSON (the brokerage side); throws EcaRequestError naming the field at fault. */
export function parseSsoPayload(json: string): { userName: string; ip: string } {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    throw new EcaRequestError('payload', 'the SSO payload is not JSON', { cause });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new EcaRequestError('payload', 'the SSO payload is not a JSON object');
  }
  const record = value as Record<string, unknown>;
  return {
    userName: checkUserName(record[SSO_PAYLOAD_FIELDS.userName], SSO_PAYLOAD_FIELDS.userName),
    ip: checkSingleIp(record[SSO_PAYLOAD_FIELDS.ip], SSO_PAYLOAD_FIELDS.ip),
  };
}

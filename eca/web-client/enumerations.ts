/** getEnumerations: the request rules per enumeration type, and the CSV read from whichever envelope it came in. */
import { fromBase64 } from '../crypto.js';
import {
  canonicalEnumerationType,
  ENUMERATION_TYPES,
  isEnumerationType,
  parseEnumerationsCsv,
} from '../enumerations.js';
import type { EnumerationType } from '../enumerations.js';
import { EcaRequestError, EcaSchemaError } from '../errors.js';
import { responseSchemas, validateResponse } from '../schemas/index.js';
import type { ClientContext } from './context.js';
import { checkNumericString } from './rules.js';
import type { EcaClient, EnumerationsResponse } from './types.js';

export function enumerationOperations(ctx: ClientContext): Pick<EcaClient, 'getEnumerations'> {
  const { transport } = ctx;
  return {
    async getEnumerations(request) {
      if (!isEnumerationType(request.type)) {
        throw new EcaRequestError('type', `expected one of ${ENUMERATION_TYPES.join(', ')}`);
      }
      const canonical = canonicalEnumerationType(request.type);
      const body: Record<string, unknown> = { CSID: ctx.csidOf(request.CSID), type: request.type };
      if (canonical === 'FIN_INFO_RANGES') {
        if (typeof request.currency !== 'string' || !/^[A-Z]{3}$/.test(request.currency)) {
          throw new EcaRequestError('currency', 'required for FIN_INFO_RANGES: three upper-case letters, e.g. USD');
        }
        body.currency = request.currency;
      } else if (request.currency !== undefined) {
        throw new EcaRequestError('currency', 'applies only when type is FIN_INFO_RANGES');
      }
      if (canonical === 'EDD_AVT' || canonical === 'QUIZ_QUESTIONS') {
        if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
        else if (canonical === 'EDD_AVT') throw new EcaRequestError('formNumber', 'required when type is EDD_AVT');
      } else if (request.formNumber !== undefined) {
        throw new EcaRequestError('formNumber', 'applies only when type is EDD_AVT or QUIZ_QUESTIONS');
      }
      const { status: _status, text } = await transport.send('getEnumerations', body, 'query');
      return parseEnumerationsBody(request.type, text);
    },
  };
}

/**
 * The envelope of the enumeration CSV is not in the spec. Accepted, in order: a CSV body (any content type); JSON
 * with `csv` (CSV text); JSON with `fileData.data` (base64 of the CSV, or the CSV text itself); JSON with `result`
 * as a list of row objects or as CSV text.
 */
export function parseEnumerationsBody(type: EnumerationType, text: string): EnumerationsResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { type, rows: parseEnumerationsCsv(text), csv: text, raw: text };
  }
  const parsed = validateResponse(responseSchemas.getEnumerations, json);
  const response = (csv: string, rows = parseEnumerationsCsv(csv)): EnumerationsResponse => {
    const result: EnumerationsResponse = { type, rows, csv, raw: json };
    if (parsed.timestamp) result.timestamp = parsed.timestamp;
    return result;
  };
  if (parsed.csv !== undefined) return response(parsed.csv);
  const data = parsed.fileData?.data;
  if (data !== undefined) {
    const looksLikeCsv = /[,\n]/.test(data);
    const bytes = looksLikeCsv ? undefined : fromBase64(data);
    if (!looksLikeCsv && !bytes) throw new EcaSchemaError('fileData.data', 'neither CSV text nor base64');
    return response(bytes ? new TextDecoder().decode(bytes) : data);
  }
  if (typeof parsed.result === 'string') return response(parsed.result);
  if (Array.isArray(parsed.result)) {
    const rows = (parsed.result as unknown[]).map((row, index) => {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new EcaSchemaError(`result[${index}]`, 'expected an object of column values');
      }
      return Object.fromEntries(
        Object.entries(row as Record<string, unknown>).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      );
    });
    return response('', rows);
  }
  throw new EcaSchemaError('', 'no enumeration CSV in the response (expected csv, fileData or result)');
}

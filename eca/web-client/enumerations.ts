/** getEnumerations: the request rules per enumeration type, and the CSV read from whichever envelope it came in. */
import { fromBase64, isEncryptedMessage, toBase64 } from '../crypto.js';
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
      return parseEnumerationsBody(request.type, text, async (sealed) => {
        const opened = await ctx.envelope.openFileData('getEnumerations', sealed);
        return opened ?? '';
      });
    },
  };
}

/** Opens an encrypted response file (base64 of the OpenPGP message) into its text. */
export type OpenFile = (sealed: string) => Promise<string>;

/**
 * The envelope of the enumeration CSV is not in the spec. Accepted, in order: a CSV body (any content type); JSON
 * with `csv` (CSV text); JSON with `fileData.data` (the CSV text itself, base64 of it, or base64 of the file
 * encrypted: "Responses that carry files are encrypted XML in base64 that the caller decrypts", opened with
 * `openFile`, its signature checked when it carries one); JSON with `result` as a list of row objects or as CSV
 * text. An encrypted file is never read as CSV: without `openFile` it is refused (EcaSchemaError), and one that
 * does not open is the EcaCryptoError naming the key or part at fault.
 */
export async function parseEnumerationsBody(
  type: EnumerationType,
  text: string,
  openFile?: OpenFile,
): Promise<EnumerationsResponse> {
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
  if (data !== undefined) return response(await fileDataCsv(data, openFile));
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

/** The CSV text `fileData.data` holds: opened when it is an encrypted file (armored, or base64 of binary). */
async function fileDataCsv(data: string, openFile: OpenFile | undefined): Promise<string> {
  const open = (sealed: string): Promise<string> => {
    if (!openFile) {
      throw new EcaSchemaError(
        'fileData.data',
        "an encrypted file: it is opened with the firm's keys, none given here",
      );
    }
    return openFile(sealed);
  };
  if (data.trimStart().startsWith('-----BEGIN PGP MESSAGE')) return open(toBase64(new TextEncoder().encode(data)));
  const bytes = fromBase64(data);
  if (bytes && isEncryptedMessage(bytes)) return open(data);
  const decoded = bytes && utf8(bytes);
  if (decoded !== undefined) return decoded;
  // Not base64 of text: the CSV text itself (base64 holds neither commas nor, unwrapped, line breaks).
  if (/[,\n]/.test(data)) return data;
  throw new EcaSchemaError('fileData.data', 'neither CSV text, nor base64 of CSV text or of an encrypted file');
}

function utf8(bytes: Uint8Array): string | undefined {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

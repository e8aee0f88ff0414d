/** getEnumerations: one CSV per type, filtered by currency or form number where the spec asks for one, sent encrypted. */
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { canonicalEnumerationType, isEnumerationType } from '../../eca/enumerations.js';
import { ENUMERATION_TABLES } from '../enumeration-data.js';
import { csidField, firmOf, nowText, ok, parseBody, RequestRefused, type Operation } from './context.js';
import { sealFor } from './envelope.js';

const input = z.object({
  CSID: csidField,
  type: z.string().min(1),
  currency: z.string().optional(),
  formNumber: z.string().optional(),
});

/** The header and rows of an enumeration type (the spec's name), narrowed as the spec asks; a refusal's words otherwise. */
export function enumerationRows(
  requested: string,
  narrowing: { currency?: string; formNumber?: string },
): { header: string[]; rows: string[][] } | string {
  if (!isEnumerationType(requested)) return `Unknown enumeration type ${requested}`;
  const type = canonicalEnumerationType(requested);
  const table = ENUMERATION_TABLES[type];
  if (!table) return `Unknown enumeration type ${requested}`;
  const [header = [], ...rows] = table;
  const { currency, formNumber } = narrowing;
  if (type === 'FIN_INFO_RANGES') {
    if (currency === undefined) return 'currency is required for FIN_INFO_RANGES';
    // Every currency gets the USD ranges relabelled: plausible enough for a stand-in.
    return { header, rows: rows.map(([, ...rest]) => [currency.toUpperCase(), ...rest]) };
  }
  if (type === 'EDD_AVT') {
    if (formNumber === undefined) return 'formNumber is required for EDD_AVT';
    return { header, rows: rows.map(([, ...rest]) => [formNumber, ...rest]) };
  }
  if (type === 'QUIZ_QUESTIONS' && formNumber !== undefined) {
    return { header, rows: rows.map(([, ...rest]) => [formNumber, ...rest]) };
  }
  return { header, rows };
}

/**
 * The CSV goes encrypted to the firm and signed, as every response file (spec, Authentication 2: "Responses that
 * carry files are encrypted XML in base64 that the caller decrypts"; the envelope carrying the CSV: not shown).
 * The hardest of the readings: a client that took the bytes for CSV text reads rows of ciphertext.
 */
export const getEnumerations: Operation = async (ctx, request) => {
  const body = parseBody(input, request.body);
  const firm = firmOf(ctx, body.CSID);
  const table = enumerationRows(body.type, body);
  if (typeof table === 'string') throw new RequestRefused(400, table);
  const csv = stringify([table.header, ...table.rows]);
  const name = `${body.type}.csv`;
  return ok({ timestamp: nowText(ctx), type: body.type, fileData: { name, data: await sealFor(ctx, firm, csv) } });
};

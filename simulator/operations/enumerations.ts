/** getEnumerations: one CSV per type, filtered by currency or form number where the spec asks for one. */
import { stringify } from 'csv-stringify/sync';
import { z } from 'zod';
import { toBase64 } from '../../eca/crypto.js';
import { canonicalEnumerationType, isEnumerationType } from '../../eca/enumerations.js';
import { ENUMERATION_TABLES } from '../enumeration-data.js';
import { csidField, firmOf, nowText, ok, parseBody, RequestRefused, type Operation } from './context.js';

const input = z.object({
  CSID: csidField,
  type: z.string().min(1),
  currency: z.string().optional(),
  formNumber: z.string().optional(),
});

export const getEnumerations: Operation = (ctx, request) => {
  const body = parseBody(input, request.body);
  firmOf(ctx, body.CSID);
  if (!isEnumerationType(body.type)) throw new RequestRefused(400, `Unknown enumeration type ${body.type}`);
  const type = canonicalEnumerationType(body.type);
  const table = ENUMERATION_TABLES[type];
  if (!table) throw new RequestRefused(400, `Unknown enumeration type ${body.type}`);
  const [header = [], ...rows] = table;
  let selected = rows;
  if (type === 'FIN_INFO_RANGES') {
    if (body.currency === undefined) throw new RequestRefused(400, 'currency is required for FIN_INFO_RANGES');
    const currency = body.currency.toUpperCase();
    // Every currency gets the USD ranges relabelled: plausible enough for a stand-in.
    selected = rows.map(([, ...rest]) => [currency, ...rest]);
  }
  if (type === 'EDD_AVT') {
    if (body.formNumber === undefined) throw new RequestRefused(400, 'formNumber is required for EDD_AVT');
    selected = rows.map(([, ...rest]) => [body.formNumber ?? '', ...rest]);
  }
  if (type === 'QUIZ_QUESTIONS' && body.formNumber !== undefined) {
    selected = rows.map(([, ...rest]) => [body.formNumber ?? '', ...rest]);
  }
  const csv = stringify([header, ...selected]);
  const name = `${body.type}.csv`;
  return ok({
    timestamp: nowText(ctx),
    type: body.type,
    fileData: { name, data: toBase64(new TextEncoder().encode(csv)) },
  });
};

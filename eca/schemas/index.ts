/**
 * Response validation and normalisation (zod). Every response becomes one consistent shape:
 * - booleans are JS booleans whether the wire sent `true` or `"true"`;
 * - every per-account entry has `accountId` (from `acctId`, `accountId`, `Account ID`, …) and `isError`, and an
 *   error entry has `error` (from `error` or `Error`); one failing account never fails the call;
 * - spaced or odd field names become camelCase (`Clearing Status` → `clearingStatus`, `BatchID` → `batchId`, …);
 * - timestamps are parsed with the raw text kept; enums are typed with unknown values kept and flagged;
 * - fields this library does not know are kept in `extra` on the entry they came with.
 */
import { z } from 'zod';
import { EcaSchemaError } from '../errors.js';
import { accountStatusResponse, pendingTasksAccount, registrationTasksAccount } from './tasks.js';
import { amRequestEntry, batchDetailsEntry, fileDetailsEntry, responseFileEntry } from './requests-and-files.js';
import { optionalNonEmptyText, optionalText, optionalTimestamp, resultList, wireBoolean } from './wire.js';

export type { Extra, EntryCommon } from './wire.js';
export type * from './tasks.js';
export type * from './requests-and-files.js';

// ---------------------------------------------------------------------------------------------------------------
// File operations (the envelope's plain JSON parts; encrypted file data is opened by the client)

const fileData = z.looseObject({ name: optionalNonEmptyText, data: optionalNonEmptyText });

const submitDocumentsResponse = z.looseObject({
  timestamp: optionalTimestamp,
  isProcessed: wireBoolean,
  fileData: fileData.nullish(),
});

const validateXmlResponse = z.looseObject({
  isValid: wireBoolean,
  batchId: optionalNonEmptyText,
  timestamp: optionalTimestamp,
  errors: z.array(z.union([z.string(), z.looseObject({ error: optionalText, Error: optionalText })])).nullish(),
});

const createResponse = z.looseObject({
  timestamp: optionalTimestamp,
  isProcessed: wireBoolean,
  batchId: optionalNonEmptyText,
  name: optionalNonEmptyText,
  fileData: fileData.nullish(),
});

const ssoCreateResponse = z.looseObject({
  RESULT: wireBoolean,
  SUCCESS: z.looseObject({ SIGNED_URL: optionalNonEmptyText }).nullish(),
  ERROR: optionalText,
});

const updateResponse = z.looseObject({
  timestamp: optionalTimestamp,
  fileData: fileData.nullish(),
});

const enumerationsResponse = z.looseObject({
  timestamp: optionalTimestamp,
  csv: optionalNonEmptyText,
  fileData: fileData.nullish(),
  result: z.unknown().optional(),
});

export const responseSchemas = {
  getPendingTasks: resultList(pendingTasksAccount),
  getRegistrationTasks: resultList(registrationTasksAccount),
  getAccountStatus: accountStatusResponse,
  getAmRequestStatus: resultList(amRequestEntry),
  getResponseFile: resultList(responseFileEntry),
  getBatchDetails: resultList(batchDetailsEntry),
  getFileDetails: resultList(fileDetailsEntry),
  submitDocuments: submitDocumentsResponse,
  validateXML: validateXmlResponse,
  create: createResponse,
  ssoCreate: ssoCreateResponse,
  update: updateResponse,
  getEnumerations: enumerationsResponse,
} as const;

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path
    .map((part, index) =>
      typeof part === 'number'
        ? `[${part}]`
        : /^[A-Za-z_$][\w$]*$/.test(String(part))
          ? `${index === 0 ? '' : '.'}${String(part)}`
          : `[${JSON.stringify(String(part))}]`,
    )
    .join('');
}

/** Validates `body` with `schema`; a mismatch raises EcaSchemaError with the first failing path (no values quoted). */
export function validateResponse<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const [issue] = parsed.error.issues;
  const path = issue ? formatPath(issue.path) : '';
  // zod messages name expected types, never the received value.
  throw new EcaSchemaError(path, issue?.message ?? 'unexpected response shape');
}

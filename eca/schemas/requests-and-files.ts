/** getAmRequestStatus (request groups per account) and getResponseFile, getBatchDetails, getFileDetails. */
import { z } from 'zod';
import { parseRequestStatus } from '../types.js';
import type { AccountStatus, RequestStatus, Timestamp } from '../types.js';
import type { EntryCommon, Extra } from './wire.js';
import {
  COMMON_KEYS,
  accountEntry,
  entry,
  extraFields,
  optionalBoolean,
  optionalNonEmptyText,
  optionalStatusCode,
  optionalText,
  optionalTimestamp,
  parseOptional,
  wireText,
} from './wire.js';

// ---------------------------------------------------------------------------------------------------------------
// getAmRequestStatus

export interface AmRequestDetail {
  requestDetail?: string;
  status?: RequestStatus;
  extra: Extra;
}

export interface AmRequestGroup {
  /** The request type (the key the group came under). */
  type: string;
  data: AmRequestDetail[];
  files: string[];
  extra: Extra;
}

export interface AmRequestEntry {
  accountId?: string;
  requestId?: string;
  status?: RequestStatus;
  timestamp?: Timestamp;
  isError: boolean;
  error?: string;
  /** Request groups of this entry, one per request type. */
  requests: AmRequestGroup[];
  extra: Extra;
}

const amRequestDetail: z.ZodType<AmRequestDetail> = entry(
  { RequestDetail: optionalText, status: optionalNonEmptyText, Status: optionalNonEmptyText },
  (value) => ({
    requestDetail: value.RequestDetail,
    status: parseOptional(parseRequestStatus)(value.status ?? value.Status),
  }),
);

const amRequestGroup = z.looseObject({
  data: z.array(amRequestDetail).nullish(),
  files: z.array(wireText).nullish(),
});

function looksLikeGroup(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && ('data' in value || 'files' in value);
}

/** Splits the fields this library does not know into request groups (objects with data or files) and the rest. */
function requestGroups(unknownFields: Extra, ctx: z.RefinementCtx): { requests: AmRequestGroup[]; extra: Extra } {
  const requests: AmRequestGroup[] = [];
  const extra: Extra = {};
  for (const [key, inner] of Object.entries(unknownFields)) {
    if (!looksLikeGroup(inner)) {
      extra[key] = inner;
      continue;
    }
    const parsed = amRequestGroup.safeParse(inner);
    if (!parsed.success) {
      for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: [key, ...issue.path] });
      continue;
    }
    requests.push({
      type: key,
      data: parsed.data.data ?? [],
      files: parsed.data.files ?? [],
      extra: extraFields(parsed.data, new Set(['data', 'files'])),
    });
  }
  return { requests, extra };
}

const AM_ENTRY_SHAPE = {
  request_id: optionalNonEmptyText,
  requestId: optionalNonEmptyText,
  Status: optionalNonEmptyText,
  status: optionalNonEmptyText,
  timestamp: optionalTimestamp,
};
const AM_ENTRY_KEYS = new Set([...COMMON_KEYS, ...Object.keys(AM_ENTRY_SHAPE)]);

export const amRequestEntry: z.ZodType<AmRequestEntry> = accountEntry('optional', AM_ENTRY_SHAPE, (value, ctx) => ({
  requestId: value.request_id ?? value.requestId,
  status: parseOptional(parseRequestStatus)(value.Status ?? value.status),
  timestamp: value.timestamp,
  ...requestGroups(extraFields(value, AM_ENTRY_KEYS), ctx),
}));

export interface AmRequestStatusResponse {
  timestamp?: Timestamp;
  requests: AmRequestEntry[];
  raw: unknown;
}

// ---------------------------------------------------------------------------------------------------------------
// getResponseFile, getBatchDetails, getFileDetails

export interface ResponseFileEntry extends EntryCommon {
  /** Response file name (`<FirmName>_YYYYMMDD_####_####.xml.report`). */
  name?: string;
  isProcessed?: boolean;
  timestamp?: Timestamp;
  clearingStatus?: AccountStatus;
  accountId?: string;
  extra: Extra;
}

export const responseFileEntry: z.ZodType<ResponseFileEntry> = accountEntry(
  'optional',
  {
    name: optionalNonEmptyText,
    isProcessed: optionalBoolean,
    timestamp: optionalTimestamp,
    'Clearing Status': optionalStatusCode,
    clearingStatus: optionalStatusCode,
  },
  (value) => ({
    name: value.name,
    isProcessed: value.isProcessed,
    timestamp: value.timestamp,
    clearingStatus: value['Clearing Status'] ?? value.clearingStatus,
  }),
);

export interface ResponseFileResponse {
  timestamp?: Timestamp;
  files: ResponseFileEntry[];
  raw: unknown;
}

export interface BatchDetailsEntry extends EntryCommon {
  accountId: string;
  batchId?: string;
  /** Account creation time. */
  dateBegun?: Timestamp;
  clearingStatus?: AccountStatus;
  extra: Extra;
}

export const batchDetailsEntry: z.ZodType<BatchDetailsEntry> = accountEntry(
  'required',
  {
    BatchID: optionalNonEmptyText,
    batchId: optionalNonEmptyText,
    'Date Begun': optionalTimestamp,
    dateBegun: optionalTimestamp,
    'Clearing Status': optionalStatusCode,
    clearingStatus: optionalStatusCode,
  },
  (value) => ({
    batchId: value.BatchID ?? value.batchId,
    dateBegun: value['Date Begun'] ?? value.dateBegun,
    clearingStatus: value['Clearing Status'] ?? value.clearingStatus,
  }),
);

export interface BatchDetailsResponse {
  timestamp?: Timestamp;
  accounts: BatchDetailsEntry[];
  raw: unknown;
}

export interface FileDetailsEntry extends EntryCommon {
  accountId: string;
  /** `<FirmName>_YYYY-MM-DD_####_####.xml.imported` */
  requestFileName?: string;
  /** `<FirmName>_YYYYMMDD_####_####.xml.report` */
  responseFileName?: string;
  extra: Extra;
}

export const fileDetailsEntry: z.ZodType<FileDetailsEntry> = accountEntry(
  'required',
  {
    'Request File Name': optionalNonEmptyText,
    requestFileName: optionalNonEmptyText,
    'Response File Name': optionalNonEmptyText,
    responseFileName: optionalNonEmptyText,
  },
  (value) => ({
    requestFileName: value['Request File Name'] ?? value.requestFileName,
    responseFileName: value['Response File Name'] ?? value.responseFileName,
  }),
);

export interface FileDetailsResponse {
  timestamp?: Timestamp;
  accounts: FileDetailsEntry[];
  raw: unknown;
}

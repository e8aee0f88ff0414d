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
import { EcaSchemaError } from './errors.js';
import {
  parseAccountStatus,
  parseApplicationState,
  parseRegistrationTaskState,
  parseRequestStatus,
  parseTaskAction,
  parseTaskState,
  parseTimestamp,
} from './types.js';
import type {
  AccountStatus,
  ApplicationState,
  RegistrationTaskState,
  RequestStatus,
  TaskAction,
  TaskState,
  Timestamp,
} from './types.js';

// ---------------------------------------------------------------------------------------------------------------
// Primitive wire types

const wireBoolean = z
  .union([z.boolean(), z.string().regex(/^\s*(true|false)\s*$/i, 'expected true or false')])
  .transform((value) => (typeof value === 'boolean' ? value : value.trim().toLowerCase() === 'true'));
const optionalBoolean = wireBoolean.nullish().transform((value) => value ?? undefined);
const wireText = z.union([z.string(), z.number()]).transform((value) => String(value));
const optionalText = wireText
  .nullish()
  .transform((value) => (value === null || value === undefined ? undefined : value));
const optionalNonEmptyText = optionalText.transform((value) =>
  value === undefined || value.trim() === '' ? undefined : value,
);
const optionalTimestamp = wireText
  .nullish()
  .transform((value) =>
    value === null || value === undefined || value.trim() === '' ? undefined : parseTimestamp(value),
  );
const optionalStatusCode = optionalNonEmptyText.transform((value) =>
  value === undefined ? undefined : parseAccountStatus(value),
);
const optionalNumberOrText = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined || value === '') return undefined;
    return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  });

export type Extra = Record<string, unknown>;

function extraFields(value: Record<string, unknown>, known: ReadonlySet<string>): Extra {
  const extra: Extra = {};
  for (const [key, inner] of Object.entries(value)) if (!known.has(key)) extra[key] = inner;
  return extra;
}

/** Drops undefined members so normalised objects only carry fields the wire had. */
function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-account entry fields shared by every list

const ACCOUNT_ID_ALIASES = [
  'acctId',
  'accountId',
  'Account ID',
  'AccountID',
  'accountID',
  'acctID',
  'account_id',
] as const;
const ERROR_ALIASES = ['error', 'Error', 'ERROR', 'errorMessage'] as const;

const entryCommonShape = {
  ...Object.fromEntries(ACCOUNT_ID_ALIASES.map((alias) => [alias, optionalNonEmptyText])),
  ...Object.fromEntries(ERROR_ALIASES.map((alias) => [alias, optionalText])),
  isError: optionalBoolean,
} as Record<(typeof ACCOUNT_ID_ALIASES)[number] | (typeof ERROR_ALIASES)[number], typeof optionalText> & {
  isError: typeof optionalBoolean;
};

interface EntryCommon {
  isError: boolean;
  error?: string;
}

function commonOf(value: Record<string, unknown>): EntryCommon & { accountId: string | undefined } {
  const pick = (aliases: readonly string[]): string | undefined =>
    aliases.map((alias) => value[alias]).find((inner): inner is string => typeof inner === 'string');
  const error = pick(ERROR_ALIASES);
  const isError = value.isError === true;
  const common: EntryCommon & { accountId: string | undefined } = { accountId: pick(ACCOUNT_ID_ALIASES), isError };
  if (error !== undefined && (isError || error.trim() !== '')) common.error = error;
  return common;
}

const COMMON_KEYS: readonly string[] = [...ACCOUNT_ID_ALIASES, ...ERROR_ALIASES, 'isError'];

/**
 * An entry must name its account, except an error entry: convention 3 says a failing account leaves
 * the others unaffected, so an error entry without an account id is kept (accountId '') instead of
 * failing the whole response.
 */
function requireAccountId(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (value.isError === true) return;
  if (!ACCOUNT_ID_ALIASES.some((alias) => typeof value[alias] === 'string')) {
    ctx.addIssue({ code: 'custom', message: 'the entry has no account id (acctId, accountId or Account ID)' });
  }
}

function known(keys: readonly string[]): ReadonlySet<string> {
  return new Set([...COMMON_KEYS, ...keys]);
}

// ---------------------------------------------------------------------------------------------------------------
// getPendingTasks

export interface PendingTask {
  formNumber?: string;
  formName?: string;
  action?: TaskAction;
  isRequiredForTrading?: boolean;
  isOnlineTask?: boolean;
  isRequiredForApproval?: boolean;
  taskNumber?: number | string;
  /** Absent when the service sends none. */
  state?: TaskState;
  extra: Extra;
}

const TASK_SHAPE = {
  formNumber: optionalNonEmptyText,
  formName: optionalText,
  action: optionalNonEmptyText,
  isRequiredForTrading: optionalBoolean,
  isOnlineTask: optionalBoolean,
  isRequiredForApproval: optionalBoolean,
  taskNumber: optionalNumberOrText,
  state: optionalNonEmptyText,
};
const TASK_KEYS = new Set(Object.keys(TASK_SHAPE));

const pendingTask = z.looseObject(TASK_SHAPE).transform((value): PendingTask =>
  compact({
    formNumber: value.formNumber,
    formName: value.formName,
    action: value.action === undefined ? undefined : parseTaskAction(value.action),
    isRequiredForTrading: value.isRequiredForTrading,
    isOnlineTask: value.isOnlineTask,
    isRequiredForApproval: value.isRequiredForApproval,
    taskNumber: value.taskNumber,
    state: value.state === undefined ? undefined : parseTaskState(value.state),
    extra: extraFields(value, TASK_KEYS),
  }),
);

export interface PendingTasksAccount extends EntryCommon {
  accountId: string;
  description?: string;
  status?: AccountStatus;
  pendingTasks: PendingTask[];
  isPendingTaskPresent?: boolean;
  extra: Extra;
}

const PENDING_ACCOUNT_SHAPE = {
  ...entryCommonShape,
  description: optionalText,
  status: optionalStatusCode,
  pendingTasks: z.array(pendingTask).nullish(),
  isPendingTaskPresent: optionalBoolean,
};
const PENDING_ACCOUNT_KEYS = known(Object.keys(PENDING_ACCOUNT_SHAPE));

const pendingTasksAccount = z
  .looseObject(PENDING_ACCOUNT_SHAPE)
  .superRefine(requireAccountId)
  .transform((value): PendingTasksAccount => {
    const { accountId, ...common } = commonOf(value);
    return compact({
      accountId: accountId ?? '',
      ...common,
      description: value.description,
      status: value.status,
      pendingTasks: value.pendingTasks ?? [],
      isPendingTaskPresent: value.isPendingTaskPresent,
      extra: extraFields(value, PENDING_ACCOUNT_KEYS),
    });
  });

export interface PendingTasksResponse {
  timestamp?: Timestamp;
  accounts: PendingTasksAccount[];
  raw: unknown;
}

const pendingTasksResponse = z.looseObject({ result: z.array(pendingTasksAccount), timestamp: optionalTimestamp });

// ---------------------------------------------------------------------------------------------------------------
// getRegistrationTasks

export interface RegistrationTask {
  formNumber?: string;
  formName?: string;
  action?: TaskAction;
  isRequiredForApproval?: boolean;
  isComplete?: boolean;
  dateComplete?: Timestamp;
  /** Present while incomplete; `Pending` is the value seen. */
  state?: RegistrationTaskState;
  isRequiredForTrading?: boolean;
  isOnlineTask?: boolean;
  isRegistrationTaskPresent?: boolean;
  taskNumber?: number | string;
  extra: Extra;
}

const REGISTRATION_TASK_SHAPE = {
  ...TASK_SHAPE,
  isComplete: optionalBoolean,
  dateComplete: optionalTimestamp,
  isRegistrationTasksPresent: optionalBoolean,
  isRegistrationTaskPresent: optionalBoolean,
};
const REGISTRATION_TASK_KEYS = new Set(Object.keys(REGISTRATION_TASK_SHAPE));

const registrationTask = z.looseObject(REGISTRATION_TASK_SHAPE).transform((value): RegistrationTask =>
  compact({
    formNumber: value.formNumber,
    formName: value.formName,
    action: value.action === undefined ? undefined : parseTaskAction(value.action),
    isRequiredForApproval: value.isRequiredForApproval,
    isComplete: value.isComplete,
    dateComplete: value.dateComplete,
    state: value.state === undefined ? undefined : parseRegistrationTaskState(value.state),
    isRequiredForTrading: value.isRequiredForTrading,
    isOnlineTask: value.isOnlineTask,
    isRegistrationTaskPresent: value.isRegistrationTaskPresent ?? value.isRegistrationTasksPresent,
    taskNumber: value.taskNumber,
    extra: extraFields(value, REGISTRATION_TASK_KEYS),
  }),
);

export interface RegistrationTasksAccount extends EntryCommon {
  accountId: string;
  description?: string;
  status?: AccountStatus;
  dateStarted?: Timestamp;
  dateOpened?: Timestamp;
  /** From `isRegistrationTaskPresent` or the template's spelling `isRegistrationTasksPresent`. */
  isRegistrationTaskPresent?: boolean;
  registrationTasks: RegistrationTask[];
  /** Fields not known to this library, e.g. documents pulled with getDocs `T` (their shape is not in the spec). */
  extra: Extra;
}

const REGISTRATION_ACCOUNT_SHAPE = {
  ...entryCommonShape,
  description: optionalText,
  status: optionalStatusCode,
  dateStarted: optionalTimestamp,
  dateOpened: optionalTimestamp,
  isRegistrationTaskPresent: optionalBoolean,
  isRegistrationTasksPresent: optionalBoolean,
  registrationTasks: z.array(registrationTask).nullish(),
};
const REGISTRATION_ACCOUNT_KEYS = known(Object.keys(REGISTRATION_ACCOUNT_SHAPE));

const registrationTasksAccount = z
  .looseObject(REGISTRATION_ACCOUNT_SHAPE)
  .superRefine(requireAccountId)
  .transform((value): RegistrationTasksAccount => {
    const { accountId, ...common } = commonOf(value);
    return compact({
      accountId: accountId ?? '',
      ...common,
      description: value.description,
      status: value.status,
      dateStarted: value.dateStarted,
      dateOpened: value.dateOpened,
      isRegistrationTaskPresent: value.isRegistrationTaskPresent ?? value.isRegistrationTasksPresent,
      registrationTasks: value.registrationTasks ?? [],
      extra: extraFields(value, REGISTRATION_ACCOUNT_KEYS),
    });
  });

export interface RegistrationTasksResponse {
  timestamp?: Timestamp;
  accounts: RegistrationTasksAccount[];
  raw: unknown;
}

const registrationTasksResponse = z.looseObject({
  result: z.array(registrationTasksAccount),
  timestamp: optionalTimestamp,
});

// ---------------------------------------------------------------------------------------------------------------
// getAccountStatus

export interface AccountStatusEntry extends EntryCommon {
  accountId: string;
  description?: string;
  /** Application state text (Incomplete Application, Documents Required, Under Review with …, Pending Approval). */
  state?: ApplicationState;
  status?: AccountStatus;
  extra: Extra;
}

const ACCOUNT_STATUS_SHAPE = {
  ...entryCommonShape,
  description: optionalText,
  state: optionalNonEmptyText,
  status: optionalStatusCode,
};
const ACCOUNT_STATUS_KEYS = known(Object.keys(ACCOUNT_STATUS_SHAPE));

const accountStatusEntry = z
  .looseObject(ACCOUNT_STATUS_SHAPE)
  .superRefine(requireAccountId)
  .transform((value): AccountStatusEntry => {
    const { accountId, ...common } = commonOf(value);
    return compact({
      accountId: accountId ?? '',
      ...common,
      description: value.description,
      state: value.state === undefined ? undefined : parseApplicationState(value.state),
      status: value.status,
      extra: extraFields(value, ACCOUNT_STATUS_KEYS),
    });
  });

export interface AccountStatusResponse {
  timestamp?: Timestamp;
  accounts: AccountStatusEntry[];
  raw: unknown;
}

/** The account list is called `status` on the wire; `result` is accepted too. */
const accountStatusResponse = z
  .looseObject({
    status: z.array(accountStatusEntry).optional(),
    result: z.array(accountStatusEntry).optional(),
    timestamp: optionalTimestamp,
  })
  .superRefine((value, ctx) => {
    if (value.status === undefined && value.result === undefined) {
      ctx.addIssue({ code: 'custom', path: ['status'], message: 'the account list is missing' });
    }
  });

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

const amRequestDetail = z
  .looseObject({ RequestDetail: optionalText, status: optionalNonEmptyText, Status: optionalNonEmptyText })
  .transform((value): AmRequestDetail => {
    const status = value.status ?? value.Status;
    return compact({
      requestDetail: value.RequestDetail,
      status: status === undefined ? undefined : parseRequestStatus(status),
      extra: extraFields(value, new Set(['RequestDetail', 'status', 'Status'])),
    });
  });

const amRequestGroup = z.looseObject({
  data: z.array(amRequestDetail).nullish(),
  files: z.array(wireText).nullish(),
});

const AM_ENTRY_SHAPE = {
  ...entryCommonShape,
  request_id: optionalNonEmptyText,
  requestId: optionalNonEmptyText,
  Status: optionalNonEmptyText,
  status: optionalNonEmptyText,
  timestamp: optionalTimestamp,
};
const AM_ENTRY_KEYS = known(Object.keys(AM_ENTRY_SHAPE));

function looksLikeGroup(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && ('data' in value || 'files' in value);
}

const amRequestEntry = z.looseObject(AM_ENTRY_SHAPE).transform((value, ctx): AmRequestEntry => {
  const { accountId, ...common } = commonOf(value);
  const requests: AmRequestGroup[] = [];
  const extra: Extra = {};
  for (const [key, inner] of Object.entries(extraFields(value, AM_ENTRY_KEYS))) {
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
  const status = value.Status ?? value.status;
  return compact({
    accountId,
    requestId: value.request_id ?? value.requestId,
    status: status === undefined ? undefined : parseRequestStatus(status),
    timestamp: value.timestamp,
    ...common,
    requests,
    extra,
  });
});

export interface AmRequestStatusResponse {
  timestamp?: Timestamp;
  requests: AmRequestEntry[];
  raw: unknown;
}

const amRequestStatusResponse = z.looseObject({ result: z.array(amRequestEntry), timestamp: optionalTimestamp });

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

const RESPONSE_FILE_SHAPE = {
  ...entryCommonShape,
  name: optionalNonEmptyText,
  isProcessed: optionalBoolean,
  timestamp: optionalTimestamp,
  'Clearing Status': optionalStatusCode,
  clearingStatus: optionalStatusCode,
};
const RESPONSE_FILE_KEYS = known(Object.keys(RESPONSE_FILE_SHAPE));

const responseFileEntry = z.looseObject(RESPONSE_FILE_SHAPE).transform((value): ResponseFileEntry => {
  const { accountId, ...common } = commonOf(value);
  return compact({
    name: value.name,
    isProcessed: value.isProcessed,
    timestamp: value.timestamp,
    ...common,
    clearingStatus: value['Clearing Status'] ?? value.clearingStatus,
    accountId,
    extra: extraFields(value, RESPONSE_FILE_KEYS),
  });
});

export interface ResponseFileResponse {
  timestamp?: Timestamp;
  files: ResponseFileEntry[];
  raw: unknown;
}

const responseFileResponse = z.looseObject({ result: z.array(responseFileEntry), timestamp: optionalTimestamp });

export interface BatchDetailsEntry extends EntryCommon {
  accountId: string;
  batchId?: string;
  /** Account creation time. */
  dateBegun?: Timestamp;
  clearingStatus?: AccountStatus;
  extra: Extra;
}

const BATCH_SHAPE = {
  ...entryCommonShape,
  BatchID: optionalNonEmptyText,
  batchId: optionalNonEmptyText,
  'Date Begun': optionalTimestamp,
  dateBegun: optionalTimestamp,
  'Clearing Status': optionalStatusCode,
  clearingStatus: optionalStatusCode,
};
const BATCH_KEYS = known(Object.keys(BATCH_SHAPE));

const batchDetailsEntry = z
  .looseObject(BATCH_SHAPE)
  .superRefine(requireAccountId)
  .transform((value): BatchDetailsEntry => {
    const { accountId, ...common } = commonOf(value);
    return compact({
      accountId: accountId ?? '',
      ...common,
      batchId: value.BatchID ?? value.batchId,
      dateBegun: value['Date Begun'] ?? value.dateBegun,
      clearingStatus: value['Clearing Status'] ?? value.clearingStatus,
      extra: extraFields(value, BATCH_KEYS),
    });
  });

export interface BatchDetailsResponse {
  timestamp?: Timestamp;
  accounts: BatchDetailsEntry[];
  raw: unknown;
}

const batchDetailsResponse = z.looseObject({ result: z.array(batchDetailsEntry), timestamp: optionalTimestamp });

export interface FileDetailsEntry extends EntryCommon {
  accountId: string;
  /** `<FirmName>_YYYY-MM-DD_####_####.xml.imported` */
  requestFileName?: string;
  /** `<FirmName>_YYYYMMDD_####_####.xml.report` */
  responseFileName?: string;
  extra: Extra;
}

const FILE_DETAILS_SHAPE = {
  ...entryCommonShape,
  'Request File Name': optionalNonEmptyText,
  requestFileName: optionalNonEmptyText,
  'Response File Name': optionalNonEmptyText,
  responseFileName: optionalNonEmptyText,
};
const FILE_DETAILS_KEYS = known(Object.keys(FILE_DETAILS_SHAPE));

const fileDetailsEntry = z
  .looseObject(FILE_DETAILS_SHAPE)
  .superRefine(requireAccountId)
  .transform((value): FileDetailsEntry => {
    const { accountId, ...common } = commonOf(value);
    return compact({
      accountId: accountId ?? '',
      ...common,
      requestFileName: value['Request File Name'] ?? value.requestFileName,
      responseFileName: value['Response File Name'] ?? value.responseFileName,
      extra: extraFields(value, FILE_DETAILS_KEYS),
    });
  });

export interface FileDetailsResponse {
  timestamp?: Timestamp;
  accounts: FileDetailsEntry[];
  raw: unknown;
}

const fileDetailsResponse = z.looseObject({ result: z.array(fileDetailsEntry), timestamp: optionalTimestamp });

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
  getPendingTasks: pendingTasksResponse,
  getRegistrationTasks: registrationTasksResponse,
  getAccountStatus: accountStatusResponse,
  getAmRequestStatus: amRequestStatusResponse,
  getResponseFile: responseFileResponse,
  getBatchDetails: batchDetailsResponse,
  getFileDetails: fileDetailsResponse,
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

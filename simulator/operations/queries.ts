/**
 * The plain-JSON query operations. Field names follow the spec's wire shapes, odd spellings
 * included (`acctId` here, `accountId` there, `Account ID` in batch and file details).
 */
import { z } from 'zod';
import {
  fileDetailsResponseName,
  isoDate,
  serviceTimeZones,
  timestamp,
  timestampTenths,
} from '../formats/wire-text.js';
import { statusDescription } from '../lifecycle.js';
import type { AccountRecord, AccountStatus, FirmRecord, TaskRecord } from '../model.js';
import type { Store } from '../store.js';
import type { LaggedOperation } from '../listing-lag.js';
import {
  accountIdsField,
  csidField,
  firmOf,
  isCalendarDate,
  notAssociated,
  numericStringField,
  nowText,
  ok,
  parseBody,
  RequestRefused,
  type Operation,
  type OperationContext,
} from './context.js';
import { refuseLongAccountList } from './account-list-limit.js';

const selection = {
  CSID: csidField,
  accountIds: accountIdsField.optional(),
  startDate: z.string().optional(),
  endDate: z.string().optional(),
};

type Selected = { account: AccountRecord } | { missing: string };

interface SelectionInput {
  CSID: string;
  accountIds?: string[] | undefined;
  startDate?: string | undefined;
  endDate?: string | undefined;
}

/**
 * The accounts a query is about: the listed ones (a per-account error for those the firm may not
 * see), or all of the firm's, narrowed to the creation date range.
 */
function select(store: Store, firm: FirmRecord, input: SelectionInput, operation?: LaggedOperation): Selected[] {
  // An account the operation does not list yet (listing lag) is answered as one that does not exist.
  const own = (id: string) => {
    const account = store.ownAccount(firm.csid, id);
    return account && (operation === undefined || store.listing.listed(operation, id)) ? account : undefined;
  };
  // Spec, account selection: "startDate ... | no" and "endDate ... | required when startDate is sent". endDate
  // alone is allowed and selects the accounts created up to that day.
  if (input.startDate !== undefined && input.endDate === undefined) {
    throw new RequestRefused(400, 'endDate is required when startDate is sent');
  }
  for (const [name, value] of [
    ['startDate', input.startDate],
    ['endDate', input.endDate],
  ] as const) {
    if (value !== undefined && !isCalendarDate(value)) {
      throw new RequestRefused(400, `${name} must be a calendar date written yyyy-mm-dd, got ${JSON.stringify(value)}`);
    }
  }
  const range: [string, string] | undefined =
    input.endDate === undefined ? undefined : [input.startDate ?? '', input.endDate];
  const inRange = (account: AccountRecord) => {
    if (!range) return true;
    // The account's creation day as the service counts its days (`service-time-zone`: UTC−12).
    const day = isoDate(account.createdAt, serviceTimeZones(store.unpromised).dateOffsetMs);
    return day >= range[0] && day <= range[1];
  };
  if (input.accountIds !== undefined && input.accountIds.length > 0) {
    const out: Selected[] = [];
    for (const id of input.accountIds) {
      const account = own(id);
      if (!account) out.push({ missing: id });
      else if (inRange(account)) out.push({ account });
    }
    return out;
  }
  return store
    .firmAccounts(firm.csid)
    .filter((account) => inRange(account) && own(account.accountId) !== undefined)
    .map((account) => ({ account }));
}

/**
 * One entry per selected account, in selection order: `entry` for an account the firm may see (undefined leaves it
 * out), an error entry under `idKey` for a listed account it may not.
 */
function perAccount(
  ctx: OperationContext,
  firm: FirmRecord,
  input: SelectionInput,
  idKey: 'accountId' | 'acctId',
  entry: (account: AccountRecord) => unknown,
  operation?: LaggedOperation,
): unknown[] {
  refuseLongAccountList(ctx, input.accountIds);
  const entries: unknown[] = [];
  for (const item of select(ctx.store, firm, input, operation)) {
    if ('missing' in item) {
      entries.push({ [idKey]: item.missing, isError: true, error: notAssociated(item.missing, firm) });
      continue;
    }
    const value = entry(item.account);
    if (value !== undefined) entries.push(value);
  }
  return entries;
}

// Schemas are built once: constructing a zod schema costs far more than running it.
const accountStatusInput = z.object({ ...selection, status: z.enum(['A', 'N', 'O', 'C', 'P', 'R']).optional() });
// Spec: "formNumber (numeric string, optional)" (getPendingTasks), "formNumber | numeric string | no" (getRegistrationTasks).
const pendingTasksInput = z.object({ ...selection, formNumber: numericStringField.optional() });
const registrationTasksInput = z.object({
  ...selection,
  formNumber: numericStringField.optional(),
  getDocs: z.enum(['T', 'F']).optional(),
});

/** getAccountStatus reads per store: under `description-rewording` every other read words the statuses anew. */
const statusReads = new WeakMap<Store, number>();

export const getAccountStatus: Operation = (ctx, request) => {
  const input = parseBody(accountStatusInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  const reads = (statusReads.get(ctx.store) ?? 0) + 1;
  statusReads.set(ctx.store, reads);
  const reworded = ctx.store.unpromised.has('description-rewording') && reads % 2 === 1;
  const entries = perAccount(
    ctx,
    firm,
    input,
    'accountId',
    (account) => {
      if (input.status !== undefined && account.status !== input.status) return undefined;
      return {
        accountId: account.accountId,
        isError: false,
        description: statusDescription(account.status, reworded),
        ...(account.stateText === undefined ? {} : { state: account.stateText }),
        status: account.status,
      };
    },
    'getAccountStatus',
  );
  return ok({ timestamp: nowText(ctx), status: entries });
};

function pendingTask(task: TaskRecord) {
  return {
    formNumber: task.formNumber,
    formName: task.formName,
    action: task.action,
    isRequiredForTrading: task.isRequiredForTrading,
    isOnlineTask: task.isOnlineTask,
    isRequiredForApproval: task.isRequiredForApproval,
    taskNumber: task.taskNumber,
    state: task.state,
  };
}

export const getPendingTasks: Operation = (ctx, request) => {
  const input = parseBody(pendingTasksInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  const result = perAccount(ctx, firm, input, 'acctId', (account) => {
    const open = account.tasks.filter((t) => !t.complete);
    if (input.formNumber !== undefined && !open.some((t) => t.formNumber === input.formNumber)) return undefined;
    // `pending-tasks-omitted`: only accounts with pending tasks are listed, whatever the selection.
    if (open.length === 0 && ctx.store.unpromised.has('pending-tasks-omitted')) return undefined;
    return {
      acctId: account.accountId,
      description: statusDescription(account.status),
      status: account.status,
      pendingTasks: open.map(pendingTask),
      isPendingTaskPresent: open.length > 0,
      isError: false,
    };
  });
  return ok({ result, timestamp: nowText(ctx) });
};

function registrationTask(task: TaskRecord) {
  const base = {
    formNumber: task.formNumber,
    formName: task.formName,
    action: task.action,
    isRequiredForApproval: String(task.isRequiredForApproval),
    isRequiredForTrading: task.isRequiredForTrading,
    isOnlineTask: task.isOnlineTask,
    taskNumber: task.taskNumber,
    isComplete: String(task.complete),
  };
  return task.complete && task.completedAt !== undefined
    ? { ...base, dateComplete: timestampTenths(task.completedAt) }
    : { ...base, state: 'Pending' };
}

export const getRegistrationTasks: Operation = (ctx, request) => {
  const input = parseBody(registrationTasksInput, request.body);
  const firm = firmOf(ctx, input.CSID);
  const result = perAccount(ctx, firm, input, 'acctId', (account) => {
    if (input.formNumber !== undefined && !account.tasks.some((t) => t.formNumber === input.formNumber)) {
      return undefined;
    }
    const entry: Record<string, unknown> = {
      acctId: account.accountId,
      description: statusDescription(account.status),
      status: account.status,
      dateStarted: isoDate(account.createdAt, serviceTimeZones(ctx.store.unpromised).dateOffsetMs),
      // The spec's template spells the flag with "Tasks".
      isRegistrationTasksPresent: account.tasks.length > 0,
      isError: false,
      registrationTasks: account.tasks.map(registrationTask),
    };
    if (account.openedAt !== undefined) entry.dateOpened = timestampTenths(account.openedAt);
    if (input.getDocs === 'T') {
      // The spec does not show this shape; the simulator lists received identity and address documents.
      entry.documents = account.tasks.flatMap((t) =>
        t.files.map((file) => ({
          formNumber: t.formNumber,
          formName: t.formName,
          fileName: file.fileName,
          sha1: file.sha1,
          length: file.length,
          dateReceived: timestamp(file.receivedAt),
        })),
      );
    }
    return entry;
  });
  return ok({ result, timestamp: nowText(ctx) });
};

const detailsInput = z.object({ CSID: csidField, accountIds: accountIdsField });

function details(
  ctx: OperationContext,
  body: unknown,
  operation: LaggedOperation,
  entry: (account: AccountRecord, firm: FirmRecord) => Record<string, unknown>,
) {
  const input = parseBody(detailsInput, body);
  const firm = firmOf(ctx, input.CSID);
  if (input.accountIds.length === 0) throw new RequestRefused(400, 'accountIds is required');
  refuseLongAccountList(ctx, input.accountIds);
  const result = input.accountIds.map((id) => {
    const listed = ctx.store.listing.listed(operation, id);
    const account = listed ? ctx.store.ownAccount(firm.csid, id) : undefined;
    return account ? entry(account, firm) : { 'Account ID': id, isError: true, error: notAssociated(id, firm) };
  });
  return ok({ result, timestamp: nowText(ctx) });
}

export const getBatchDetails: Operation = (ctx, request) =>
  details(ctx, request.body, 'getBatchDetails', (account) => ({
    'Account ID': account.accountId,
    BatchID: account.batchId,
    'Date Begun': timestamp(account.createdAt),
    'Clearing Status': account.status,
  }));

export const getFileDetails: Operation = (ctx, request) =>
  details(ctx, request.body, 'getFileDetails', (account) => ({
    'Request File Name': account.requestFileName,
    'Account ID': account.accountId,
    // Under `file-details-other-name`, a name of the spec's pattern that no create gave (fileDetailsResponseName).
    'Response File Name': fileDetailsResponseName(
      account.responseFileName,
      ctx.store.unpromised.has('file-details-other-name'),
    ),
  }));

export function clearingStatus(store: Store, accountId: string): AccountStatus | undefined {
  return store.account(accountId)?.status;
}

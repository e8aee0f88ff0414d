/** getPendingTasks, getRegistrationTasks and getAccountStatus: account entries and their tasks. */
import { z } from 'zod';
import { parseApplicationState, parseRegistrationTaskState, parseTaskAction, parseTaskState } from '../types.js';
import type {
  AccountStatus,
  ApplicationState,
  RegistrationTaskState,
  TaskAction,
  TaskState,
  Timestamp,
} from '../types.js';
import type { EntryCommon, Extra } from './wire.js';
import {
  accountEntry,
  entry,
  optionalBoolean,
  optionalNonEmptyText,
  optionalNumberOrText,
  optionalStatusCode,
  optionalText,
  optionalTimestamp,
  parseOptional,
} from './wire.js';

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

const pendingTask: z.ZodType<PendingTask> = entry(TASK_SHAPE, (value) => ({
  ...value,
  action: parseOptional(parseTaskAction)(value.action),
  state: parseOptional(parseTaskState)(value.state),
}));

export interface PendingTasksAccount extends EntryCommon {
  accountId: string;
  description?: string;
  status?: AccountStatus;
  pendingTasks: PendingTask[];
  isPendingTaskPresent?: boolean;
  extra: Extra;
}

export const pendingTasksAccount: z.ZodType<PendingTasksAccount> = accountEntry(
  'required',
  {
    description: optionalText,
    status: optionalStatusCode,
    pendingTasks: z.array(pendingTask).nullish(),
    isPendingTaskPresent: optionalBoolean,
  },
  (value) => ({
    description: value.description,
    status: value.status,
    pendingTasks: value.pendingTasks ?? [],
    isPendingTaskPresent: value.isPendingTaskPresent,
  }),
);

export interface PendingTasksResponse {
  timestamp?: Timestamp;
  accounts: PendingTasksAccount[];
  raw: unknown;
}

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

const registrationTask: z.ZodType<RegistrationTask> = entry(
  {
    ...TASK_SHAPE,
    isComplete: optionalBoolean,
    dateComplete: optionalTimestamp,
    isRegistrationTasksPresent: optionalBoolean,
    isRegistrationTaskPresent: optionalBoolean,
  },
  ({ isRegistrationTasksPresent, ...value }) => ({
    ...value,
    action: parseOptional(parseTaskAction)(value.action),
    state: parseOptional(parseRegistrationTaskState)(value.state),
    isRegistrationTaskPresent: value.isRegistrationTaskPresent ?? isRegistrationTasksPresent,
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

export const registrationTasksAccount: z.ZodType<RegistrationTasksAccount> = accountEntry(
  'required',
  {
    description: optionalText,
    status: optionalStatusCode,
    dateStarted: optionalTimestamp,
    dateOpened: optionalTimestamp,
    isRegistrationTaskPresent: optionalBoolean,
    isRegistrationTasksPresent: optionalBoolean,
    registrationTasks: z.array(registrationTask).nullish(),
  },
  (value) => ({
    description: value.description,
    status: value.status,
    dateStarted: value.dateStarted,
    dateOpened: value.dateOpened,
    isRegistrationTaskPresent: value.isRegistrationTaskPresent ?? value.isRegistrationTasksPresent,
    registrationTasks: value.registrationTasks ?? [],
  }),
);

export interface RegistrationTasksResponse {
  timestamp?: Timestamp;
  accounts: RegistrationTasksAccount[];
  raw: unknown;
}

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

const accountStatusEntry: z.ZodType<AccountStatusEntry> = accountEntry(
  'required',
  { description: optionalText, state: optionalNonEmptyText, status: optionalStatusCode },
  (value) => ({
    description: value.description,
    state: parseOptional(parseApplicationState)(value.state),
    status: value.status,
  }),
);

export interface AccountStatusResponse {
  timestamp?: Timestamp;
  accounts: AccountStatusEntry[];
  raw: unknown;
}

/** The account list is called `status` on the wire; `result` is accepted too. */
export const accountStatusResponse = z
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

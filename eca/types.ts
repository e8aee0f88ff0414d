/**
 * Value types of the service: account status codes, task actions and states, application state texts, request
 * statuses and timestamps. Parsers never throw on an unexpected value: they keep it with `known: false`, so one odd
 * value in a response cannot fail a whole call, and callers decide what an unknown value means.
 */

// ---------------------------------------------------------------------------------------------------------------
// Timestamps

export interface Timestamp {
  /** The text as the service sent it. */
  raw: string;
  /**
   * The instant, or undefined when the text matches none of the spec's forms. The spec names no time zone, so the
   * wall-clock text is read as UTC; `raw` stays beside it for anyone who knows better.
   */
  date: Date | undefined;
}

const TIMESTAMP_FORMS: ReadonlyArray<RegExp> = [
  // YYYY-MM-DD HH:MM:SS, optionally with fractional seconds (.S); ISO "T" separator tolerated.
  /^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?$/,
  // YYYY/MM/DD HH:MM:SS (report Execution_Date)
  /^(\d{4})\/(\d{2})\/(\d{2})(?: (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?)?$/,
  // YYYYMMDDHHMMSS (document exec_ts) and YYYYMMDD
  /^(\d{4})(\d{2})(\d{2})(?:(\d{2})(\d{2})(\d{2}))?$/,
];

function utcDate(parts: ReadonlyArray<string | undefined>): Date | undefined {
  const [y, mo, d, h = '0', mi = '0', s = '0', frac = ''] = parts;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const millis = frac ? Math.floor(Number(`0.${frac}`) * 1000) : 0;
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  // Date.UTC rolls invalid fields over (Feb 30 → Mar 2); a round trip rejects them.
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === month - 1 &&
    date.getUTCDate() === day &&
    date.getUTCHours() === hour &&
    date.getUTCMinutes() === minute &&
    date.getUTCSeconds() === second;
  return valid ? date : undefined;
}

/** Parses any timestamp form the spec names: `YYYY-MM-DD HH:MM:SS[.S]`, `YYYY/MM/DD HH:MM:SS`, `YYYYMMDDHHMMSS`, `yyyy-mm-dd`. */
export function parseTimestamp(raw: string): Timestamp {
  const text = raw.trim();
  for (const form of TIMESTAMP_FORMS) {
    const match = form.exec(text);
    if (match) return { raw, date: utcDate(match.slice(1)) };
  }
  return { raw, date: undefined };
}

/** True when `text` is a real calendar date written `yyyy-mm-dd`. */
export function isIsoDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  return match !== null && utcDate(match.slice(1)) !== undefined;
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** `YYYYMMDDHHMMSS` in UTC, the form of `exec_ts` / `exec_login_ts`. */
export function formatCompactTimestamp(date: Date): string {
  return (
    pad(date.getUTCFullYear(), 4) +
    pad(date.getUTCMonth() + 1) +
    pad(date.getUTCDate()) +
    pad(date.getUTCHours()) +
    pad(date.getUTCMinutes()) +
    pad(date.getUTCSeconds())
  );
}

/** `YYYY-MM-DD HH:MM:SS` in UTC, the service's usual response form. */
export function formatTimestamp(date: Date): string {
  return `${pad(date.getUTCFullYear(), 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(
    date.getUTCHours(),
  )}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`;
}

/** `YYYY/MM/DD HH:MM:SS` in UTC, the form of the report's `Execution_Date`. */
export function formatSlashTimestamp(date: Date): string {
  return formatTimestamp(date).replace(/-/g, '/');
}

// ---------------------------------------------------------------------------------------------------------------
// Account status codes

export const ACCOUNT_STATUS_CODES = ['A', 'N', 'O', 'C', 'P', 'R'] as const;
export type AccountStatusCode = (typeof ACCOUNT_STATUS_CODES)[number];

export const ACCOUNT_STATUS_MEANINGS: Readonly<Record<AccountStatusCode, string>> = {
  A: 'Abandoned: the application was deleted',
  N: 'New account, not yet open',
  O: 'Open: an active account',
  C: 'Closed: an account that was active or open and then closed',
  P: 'Pending',
  R: 'Rejected: never approved or opened, rejected by compliance',
};

/** The spec words N and P differently per operation. */
export const ACCOUNT_STATUS_MEANINGS_BY_OPERATION = {
  getAccountStatus: {
    N: 'Not yet open, no funding details provided',
    P: 'Application pending, funding instructions provided',
  },
  getPendingTasks: {
    N: 'Pending online steps or pending agreements and disclosures',
    P: 'Application steps completed; pending approval or pending identity / address document submission',
  },
  getBatchDetails: {
    N: 'Pending online steps or pending agreements and disclosures',
    P: 'Application steps completed; pending approval or pending identity / address document submission',
  },
} as const;

export type AccountStatus = { raw: string } & (
  { known: true; code: AccountStatusCode; meaning: string } | { known: false; code: string }
);

export function isAccountStatusCode(value: unknown): value is AccountStatusCode {
  return typeof value === 'string' && (ACCOUNT_STATUS_CODES as readonly string[]).includes(value);
}

export function parseAccountStatus(raw: string): AccountStatus {
  const code = raw.trim();
  return isAccountStatusCode(code)
    ? { raw, known: true, code, meaning: ACCOUNT_STATUS_MEANINGS[code] }
    : { raw, known: false, code };
}

// ---------------------------------------------------------------------------------------------------------------
// Tasks

export const TASK_ACTIONS = ['to send', 'to complete', 'to sign'] as const;
export type TaskActionName = (typeof TASK_ACTIONS)[number];

export const TASK_ACTION_MEANINGS: Readonly<Record<TaskActionName, string>> = {
  'to send': 'Submit documents with the update operation (DocumentSubmission)',
  'to complete': 'Completed in the hosted portal by the master or the client',
  'to sign': 'Submit the missing form with the update operation (DocumentSubmission)',
};

export type TaskAction = { raw: string } & ({ known: true; action: TaskActionName } | { known: false; action: string });

export function parseTaskAction(raw: string): TaskAction {
  const action = raw.trim();
  return (TASK_ACTIONS as readonly string[]).includes(action)
    ? { raw, known: true, action: action as TaskActionName }
    : { raw, known: false, action };
}

export const TASK_STATES = [
  'To Be Sent',
  'To Be Signed',
  'To Be Submitted',
  'To Be Completed',
  'Received- Being Processed',
  'Rejected',
] as const;
export type TaskStateName = (typeof TASK_STATES)[number];

/** What the firm must do for a task in a given state. */
export const TASK_STATE_MEANINGS: Readonly<Record<TaskStateName, string>> = {
  'To Be Sent': 'A document must be sent with the update operation (DocumentSubmission)',
  'To Be Signed': 'A document must be sent with the update operation (DocumentSubmission)',
  'To Be Submitted': 'A document must be sent with the update operation (DocumentSubmission)',
  'To Be Completed': 'The user (or the advisor or broker) completes the task in the hosted portal',
  'Received- Being Processed': 'The document is under review',
  Rejected: 'The document was rejected; a new document meeting the requirements must be submitted',
};

export type TaskState = { raw: string } & (
  | { known: true; state: Exclude<TaskStateName, 'Rejected'> }
  | { known: true; state: 'Rejected'; reason: string }
  | { known: false; state: string }
);

/** Parses a pending-task state; `Rejected <reason>` (any separator after the word) yields the reason beside it. */
export function parseTaskState(raw: string): TaskState {
  const text = raw.trim();
  const exact = TASK_STATES.find((state) => state !== 'Rejected' && state === text);
  if (exact !== undefined && exact !== 'Rejected') return { raw, known: true, state: exact };
  const rejected = /^Rejected(?:$|[\s:;,-]+([\s\S]*))$/.exec(text);
  if (rejected) return { raw, known: true, state: 'Rejected', reason: (rejected[1] ?? '').trim() };
  return { raw, known: false, state: text };
}

/** States of registration tasks: the spec shows `Pending` for incomplete ones. */
export const REGISTRATION_TASK_STATES = ['Pending'] as const;
export type RegistrationTaskStateName = (typeof REGISTRATION_TASK_STATES)[number];
export type RegistrationTaskState = { raw: string } & (
  { known: true; state: RegistrationTaskStateName } | { known: false; state: string }
);

export function parseRegistrationTaskState(raw: string): RegistrationTaskState {
  const state = raw.trim();
  return (REGISTRATION_TASK_STATES as readonly string[]).includes(state)
    ? { raw, known: true, state: state as RegistrationTaskStateName }
    : { raw, known: false, state };
}

// ---------------------------------------------------------------------------------------------------------------
// Application state texts (getAccountStatus `state`)

export const APPLICATION_STATES = [
  'Incomplete Application',
  'Documents Required',
  'Under Review',
  'Pending Approval',
] as const;
export type ApplicationStateName = (typeof APPLICATION_STATES)[number];

export const APPLICATION_STATE_MEANINGS: Readonly<Record<ApplicationStateName, string>> = {
  'Incomplete Application': 'Client action needed; pending registration tasks are read with getPendingTasks',
  'Documents Required': 'Client action needed; documents required for approval are read with getPendingTasks',
  'Under Review': 'Waiting on the brokerage; no action needed',
  'Pending Approval': 'In the approval queue; to be opened by the next business day',
};

export type ApplicationState = { raw: string } & (
  | { known: true; state: Exclude<ApplicationStateName, 'Under Review'> }
  /** `reviewer` is the text after "Under Review with" (the brokerage's name, which differs per brokerage). */
  | { known: true; state: 'Under Review'; reviewer?: string }
  | { known: false; state: string }
);

export function parseApplicationState(raw: string): ApplicationState {
  const text = raw.trim().replace(/\s+/g, ' ');
  const underReview = /^Under Review(?: with (.+)| (.+))?$/i.exec(text);
  if (underReview) {
    const reviewer = (underReview[1] ?? underReview[2])?.trim();
    return reviewer
      ? { raw, known: true, state: 'Under Review', reviewer }
      : { raw, known: true, state: 'Under Review' };
  }
  const exact = APPLICATION_STATES.find((state) => state.toLowerCase() === text.toLowerCase());
  if (exact !== undefined && exact !== 'Under Review') return { raw, known: true, state: exact };
  return { raw, known: false, state: text };
}

// ---------------------------------------------------------------------------------------------------------------
// Request statuses (getAmRequestStatus)

export const REQUEST_STATUSES = ['PROCESSED', 'REJECTED', 'PENDING'] as const;
export type RequestStatusName = (typeof REQUEST_STATUSES)[number];
export type RequestStatus = { raw: string } & (
  { known: true; status: RequestStatusName } | { known: false; status: string }
);

export function parseRequestStatus(raw: string): RequestStatus {
  const status = raw.trim();
  const upper = status.toUpperCase();
  return (REQUEST_STATUSES as readonly string[]).includes(upper)
    ? { raw, known: true, status: upper as RequestStatusName }
    : { raw, known: false, status };
}

/**
 * How an application moves over simulated time. Nothing runs on a timer: every read first calls
 * `settle`, which replays the steps that fell due since the last read, each at its own due time, so
 * the outcome does not depend on when (or how often) anyone looks. An account with nothing due costs
 * one comparison.
 */
import { nextBusinessDayAt } from './clock.js';
import type { AccountRecord, AccountStatus, ReceivedFile, TaskRecord } from './model.js';
import { scenario, type Timings } from './scenarios.js';

export const BROKERAGE_NAME = 'IBKR';

export const STATE_TEXT = {
  incomplete: 'Incomplete Application',
  documentsRequired: 'Documents Required',
  underReview: `Under Review with ${BROKERAGE_NAME}`,
  pendingApproval: 'Pending Approval',
} as const;

export const RECEIVED = 'Received- Being Processed';

const DESCRIPTION: Record<AccountStatus, string> = {
  A: 'Abandoned',
  N: 'New Account',
  O: 'Open',
  C: 'Closed',
  P: 'Pending',
  R: 'Rejected',
};

/** The same statuses in other words (`description-rewording`): "the text of the status" is a text, not a code. */
const REWORDED: Record<AccountStatus, string> = {
  A: 'Application abandoned',
  N: 'New account, not yet open',
  O: 'Account open',
  C: 'Account closed',
  P: 'Application pending',
  R: 'Application rejected',
};

export function statusDescription(status: AccountStatus, reworded = false): string {
  return (reworded ? REWORDED : DESCRIPTION)[status];
}

/** (Re)starts the application from its scenario's first step at `at`. */
export function startApplication(account: AccountRecord, at: number, timings: Timings): void {
  const story = scenario(account.scenario);
  const kept = account.tasks.filter((t) => t.complete && t.formNumber === '3230');
  account.tasks = [...kept, ...story.tasks(at, timings, account.resets)];
  if (openTasks(account).length > 0) {
    enter(account, 'tasks', at, undefined);
  } else {
    enter(account, 'new', at, at + timings.fundingMs);
  }
}

/** Applies every step due up to `now`. */
export function settle(account: AccountRecord, now: number, timings: Timings): void {
  while (account.nextChangeAt !== undefined && account.nextChangeAt <= now) {
    step(account, account.nextChangeAt, timings);
  }
}

export function isPending(account: AccountRecord): boolean {
  return (
    account.phase === 'new' || account.phase === 'tasks' || account.phase === 'review' || account.phase === 'approval'
  );
}

export function openTasks(account: AccountRecord): TaskRecord[] {
  return account.tasks.filter((t) => !t.complete && t.isRequiredForApproval);
}

/**
 * A document for the task with `formNumber` arrived (DocumentSubmission). Returns false when the
 * account has no such open task; the file is then kept on the record only.
 */
export function receiveDocument(
  account: AccountRecord,
  formNumber: string,
  file: ReceivedFile,
  timings: Timings,
): boolean {
  const target = account.tasks.find((t) => t.formNumber === formNumber && !t.complete && t.action !== 'to complete');
  if (!target) return false;
  target.files.push(file);
  target.state = RECEIVED;
  target.dueAt = file.receivedAt + timings.documentReviewMs;
  afterTaskChange(account, file.receivedAt, timings);
  return true;
}

/** The master or the client completed a `to complete` task in the portal. */
export function completeOnlineTask(
  account: AccountRecord,
  formNumber: string | undefined,
  at: number,
  timings: Timings,
): boolean {
  const target = account.tasks.find(
    (t) => !t.complete && t.action === 'to complete' && (formNumber === undefined || t.formNumber === formNumber),
  );
  if (!target || !isPending(account)) return false;
  completeTask(target, at);
  afterTaskChange(account, at, timings);
  return true;
}

/**
 * Agreements the application has still to sign: forms its create archive did not carry although the day's
 * submitDocuments does not cover its customer type (spec rule 4). Each becomes a `to sign` task required for
 * approval, which a DocumentSubmission of the form completes; until then the application is incomplete.
 */
export function requireAgreements(
  account: AccountRecord,
  forms: ReadonlyArray<{ formNumber: string; fileName: string }>,
  at: number,
): void {
  if (forms.length === 0) return;
  let taskNumber = Math.max(0, ...account.tasks.map((t) => t.taskNumber));
  for (const form of forms) {
    taskNumber += 1;
    account.tasks.push({
      formNumber: form.formNumber,
      formName: form.fileName.replace(/\.pdf$/i, ''),
      action: 'to sign',
      isOnlineTask: false,
      isRequiredForTrading: true,
      isRequiredForApproval: true,
      taskNumber,
      state: 'To Be Signed',
      complete: false,
      files: [],
    });
  }
  if (account.phase === 'new') enter(account, 'tasks', at, undefined);
  else refresh(account);
}

export function abandon(account: AccountRecord, at: number): void {
  enter(account, 'abandoned', at, undefined);
}

export function reset(account: AccountRecord, at: number, timings: Timings): void {
  account.resets += 1;
  startApplication(account, at, timings);
}

export function close(account: AccountRecord, at: number): void {
  enter(account, 'closed', at, undefined);
}

function step(account: AccountRecord, at: number, timings: Timings): void {
  const dueTask = account.tasks.find((t) => t.dueAt === at && !t.complete);
  if (dueTask) {
    taskStep(dueTask, at);
    afterTaskChange(account, at, timings);
    return;
  }
  switch (account.phase) {
    case 'new':
      enter(account, 'review', at, at + timings.underReviewMs);
      return;
    case 'review':
      if (scenario(account.scenario).rejectedByCompliance) enter(account, 'rejected', at, undefined);
      else enter(account, 'approval', at, nextBusinessDayAt(at, timings.openHourUtc));
      return;
    case 'approval':
      account.openedAt = at;
      enter(account, 'open', at, undefined);
      return;
    default:
      // Nothing else is timed; clear the marker so that settle terminates.
      account.phaseDueAt = undefined;
      refresh(account);
  }
}

function taskStep(task: TaskRecord, at: number): void {
  task.dueAt = undefined;
  if (task.state === RECEIVED && task.rejectNextWith !== undefined) {
    task.state = `Rejected ${task.rejectNextWith}`;
    task.rejectNextWith = undefined;
    return;
  }
  completeTask(task, at);
}

function completeTask(task: TaskRecord, at: number): void {
  task.complete = true;
  task.completedAt = at;
  task.dueAt = undefined;
}

function afterTaskChange(account: AccountRecord, at: number, timings: Timings): void {
  if (account.phase === 'tasks' && openTasks(account).length === 0) {
    enter(account, 'review', at, at + timings.underReviewMs);
  } else {
    refresh(account);
  }
}

function enter(account: AccountRecord, phase: AccountRecord['phase'], at: number, dueAt: number | undefined): void {
  account.phase = phase;
  account.phaseSince = at;
  account.phaseDueAt = dueAt;
  if (phase === 'abandoned' || phase === 'closed' || phase === 'rejected') {
    for (const t of account.tasks) t.dueAt = undefined;
  }
  refresh(account);
}

/** Recomputes the derived status, state text and next change time. */
function refresh(account: AccountRecord): void {
  const [status, stateText] = derive(account);
  account.status = status;
  account.stateText = stateText;
  let next = account.phaseDueAt;
  for (const t of account.tasks) {
    if (t.dueAt !== undefined && !t.complete && (next === undefined || t.dueAt < next)) next = t.dueAt;
  }
  account.nextChangeAt = next;
}

function derive(account: AccountRecord): [AccountStatus, string | undefined] {
  switch (account.phase) {
    case 'new':
      return ['N', STATE_TEXT.underReview];
    case 'tasks': {
      const open = openTasks(account);
      if (open.some((t) => t.action !== 'to send' && t.state !== RECEIVED)) return ['N', STATE_TEXT.incomplete];
      if (open.some((t) => t.state !== RECEIVED)) return ['P', STATE_TEXT.documentsRequired];
      return ['P', STATE_TEXT.underReview];
    }
    case 'review':
      return ['P', STATE_TEXT.underReview];
    case 'approval':
      return ['P', STATE_TEXT.pendingApproval];
    case 'open':
      return ['O', undefined];
    case 'rejected':
      return ['R', undefined];
    case 'abandoned':
      return ['A', undefined];
    case 'closed':
      return ['C', undefined];
  }
}

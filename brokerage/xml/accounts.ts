/**
 * The XML service's accounts in the engine's terms: one account's snapshot from its getAccountStatus and
 * getPendingTasks entries, or the error entry that makes it unknown.
 */
import { quoteService } from '../../eca/index.js';
import type { AccountStatusEntry, PendingTask, PendingTasksAccount } from '../../eca/index.js';
import type { AccountSnapshot, TaskView } from '../../domain/account.js';

/**
 * The service answered for the account with an error entry (convention 3: "account not associated with
 * the advisor account", say) or left it out. Retried like any read, but bounded: an application whose
 * read keeps meeting it stops in `blocked` with the service's text (activities/configuration-errors.ts).
 */
export class AccountEntryError extends Error {
  override readonly name = 'AccountEntryError';
}

/**
 * One account's snapshot from its getAccountStatus entry and its getPendingTasks entry, or the error
 * that makes it unknown. Only `status`, `state` and the tasks are read: `description` is "the text of
 * the status", a wording that may change from read to read, so it is left out (a change of wording is
 * no change of the account, and wakes nothing).
 */
export function accountSnapshot(
  entry: AccountStatusEntry,
  pending: PendingTasksAccount | undefined,
): AccountSnapshot | Error {
  if (entry.isError || !entry.status) {
    return new AccountEntryError(
      `getAccountStatus: ${quoteService(entry.error) ?? `no status for account ${entry.accountId}`}`,
    );
  }
  // Convention 3: a failing entry fails only its account. Its tasks are unknown, not empty: the read
  // fails for this account (and is retried), rather than reporting that no document is missing.
  if (pending?.isError) {
    return new AccountEntryError(`getPendingTasks: ${quoteService(pending.error) ?? 'error entry'}`);
  }
  const tasks = pending ? pending.pendingTasks.map(toTaskView) : unlistedTasks(entry);
  if (tasks instanceof Error) return tasks;
  return { status: entry.status.code, stateText: entry.state?.state, tasks };
}

/** Statuses on which the lifecycle decides alone (open, closed, rejected, abandoned): tasks change nothing. */
const DECIDED_BY_STATUS: ReadonlySet<string> = new Set(['O', 'C', 'R', 'A']);

/** Application states the spec words as needing no client action ("no action needed", the approval queue). */
const NO_ACTION_STATES: ReadonlySet<string> = new Set(['Under Review', 'Pending Approval']);

/**
 * The tasks of an account getPendingTasks gave no entry for. One entry per account is not promised (a
 * service may list only the accounts with pending tasks), so the missing entry means "no tasks" only
 * where getAccountStatus agrees: a status the lifecycle decides on alone, or a state that needs no
 * client action. Otherwise (`Incomplete Application`, `Documents Required`, a state unknown or absent)
 * the tasks are unknown: the read fails for this account like an error entry, retried and bounded, and
 * the message says what was looked at.
 */
function unlistedTasks(entry: AccountStatusEntry): TaskView[] | AccountEntryError {
  const { status, state } = entry;
  if (status?.known && DECIDED_BY_STATUS.has(status.code)) return [];
  if (state?.known && NO_ACTION_STATES.has(state.state)) return [];
  const stateText = state ? `state ${quoteService(state.raw)}` : 'no state';
  return new AccountEntryError(
    `getPendingTasks lists no entry for account ${entry.accountId} while getAccountStatus gives status ` +
      `${status?.code ?? 'none'} and ${stateText}: its pending tasks are unknown`,
  );
}

function toTaskView(task: PendingTask): TaskView {
  const view: TaskView = {
    formNumber: task.formNumber ?? '',
    formName: task.formName ?? '',
    action: task.action?.action ?? '',
  };
  if (task.state) {
    view.state = task.state.state;
    if ('reason' in task.state) view.reason = task.state.reason;
  }
  if (task.isRequiredForApproval !== undefined) view.isRequiredForApproval = task.isRequiredForApproval;
  if (task.isOnlineTask !== undefined) view.isOnlineTask = task.isOnlineTask;
  return view;
}

/**
 * Reads of accounts: status and pending tasks, merged across the reads that arrive together, and one
 * account's snapshot from its entries (also the firm's sweep's).
 */
import { quoteService } from '../eca/index.js';
import type { AccountStatusEntry, EcaClient, PendingTask, PendingTasksAccount } from '../eca/index.js';
import type { AccountSnapshot, TaskView } from '../domain/account.js';
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_MAX_ACCOUNTS_PER_CALL } from '../runtime/defaults.js';
import { Batcher } from './batcher.js';

/**
 * The service answered for the account with an error entry (convention 3: "account not associated with
 * the advisor account", say) or left it out. Retried like any read, but bounded: an application whose
 * read keeps meeting it stops in `blocked` with the service's text (configuration-errors.ts).
 */
export class AccountEntryError extends Error {
  override readonly name = 'AccountEntryError';
}

/** How an activity set gets its status reader: the one given, or one of its own with these settings. */
export interface StatusReaderOptions {
  eca: EcaClient;
  /** Merges status reads; one is made from `batchWindowMs` / `maxAccountsPerCall` when not given. */
  statusReader?: StatusReader;
  batchWindowMs?: number;
  maxAccountsPerCall?: number;
}

export function statusReaderOf(options: StatusReaderOptions): StatusReader {
  return (
    options.statusReader ??
    createStatusReader(options.eca, { windowMs: options.batchWindowMs, maxBatch: options.maxAccountsPerCall })
  );
}

/** Status and pending tasks of many accounts in two calls (getAccountStatus, getPendingTasks). */
export type StatusReader = Batcher<AccountSnapshot>;

export function createStatusReader(
  eca: EcaClient,
  options: { windowMs?: number; maxBatch?: number } = {},
): StatusReader {
  return new Batcher<AccountSnapshot>({
    windowMs: options.windowMs ?? DEFAULT_BATCH_WINDOW_MS,
    maxBatch: options.maxBatch ?? DEFAULT_MAX_ACCOUNTS_PER_CALL,
    fetch: async (csid, accountIds) => {
      const [statuses, tasks] = await Promise.all([
        eca.getAccountStatus({ CSID: csid, accountIds }),
        eca.getPendingTasks({ CSID: csid, accountIds }),
      ]);
      const tasksById = new Map(tasks.accounts.map((entry) => [entry.accountId, entry]));
      const read = new Map<string, AccountSnapshot | Error>(
        statuses.accounts.map((entry) => [entry.accountId, accountSnapshot(entry, tasksById.get(entry.accountId))]),
      );
      for (const id of accountIds) {
        if (!read.has(id)) read.set(id, new AccountEntryError(`getAccountStatus lists no entry for account ${id}`));
      }
      return read;
    },
  });
}

/**
 * One account's snapshot from its getAccountStatus entry and its getPendingTasks entry (none: no
 * pending tasks), or the error that makes it unknown.
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
  return {
    status: entry.status.code,
    stateText: entry.state?.state,
    description: entry.description,
    tasks: pending ? pending.pendingTasks.map(toTaskView) : [],
  };
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

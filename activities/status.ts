/**
 * Reads of accounts on the XML service: status and pending tasks, merged across the reads that arrive together
 * (each account's snapshot from its entries: brokerage/xml/accounts.ts).
 */
import type { EcaClient } from '../eca/index.js';
import type { AccountSnapshot } from '../domain/account.js';
import { AccountEntryError, accountSnapshot } from '../brokerage/xml/accounts.js';
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_MAX_ACCOUNTS_PER_CALL } from '../runtime/defaults.js';
import { Batcher } from './batcher.js';
import { lookUpInParts } from '../brokerage/xml/account-lists.js';

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
      // A list the service refuses as a whole is split (brokerage/xml/account-lists.ts); an account refused alone is its error.
      const [statusParts, taskParts] = await Promise.all([
        lookUpInParts({ client: eca, csid, operation: 'getAccountStatus' }, accountIds, (ids) =>
          eca.getAccountStatus({ CSID: csid, accountIds: ids }),
        ),
        lookUpInParts({ client: eca, csid, operation: 'getPendingTasks' }, accountIds, (ids) =>
          eca.getPendingTasks({ CSID: csid, accountIds: ids }),
        ),
      ]);
      const statuses = { accounts: statusParts.answers.flatMap((answer) => answer.accounts) };
      const tasks = { accounts: taskParts.answers.flatMap((answer) => answer.accounts) };
      const tasksById = new Map(tasks.accounts.map((entry) => [entry.accountId, entry]));
      const read = new Map<string, AccountSnapshot | Error>(
        statuses.accounts.map((entry) => [entry.accountId, accountSnapshot(entry, tasksById.get(entry.accountId))]),
      );
      for (const [operation, parts] of [
        ['getPendingTasks', taskParts],
        ['getAccountStatus', statusParts],
      ] as const) {
        for (const [id, refusal] of parts.refused) {
          read.set(id, new AccountEntryError(`${operation} refused account ${id} alone: ${refusal.message}`));
        }
      }
      for (const id of accountIds) {
        if (!read.has(id)) read.set(id, new AccountEntryError(`getAccountStatus lists no entry for account ${id}`));
      }
      return read;
    },
  });
}

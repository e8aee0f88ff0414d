/**
 * The status sweep's reads for a firm on the Web API (brokerage/port.ts `sweepReads`), which has bulk status
 * reads but no bulk task read.
 *
 * Per slot: `GET /gw/api/v1/accounts/status` for status N and for status P over the request window (a page of
 * 1,000 a call), then pending tasks (`GET /gw/api/v1/accounts/{id}/tasks?type=pending`) only for the waiting
 * accounts that need them: an account whose status or state changed since this worker last read it, one whose
 * state asks the client for something (any state but `Under Review` and `Pending Approval`, the states the XML
 * service's spec words as needing no client action), one this worker has not read yet, and one whose tasks were
 * last read more than {@link TASKS_KEPT_MS} ago. Otherwise the tasks last read are the account's tasks. A waiting
 * account the bulk reads do not list (opened, rejected, abandoned, another letter, older than the window) is
 * read by id: its status, and its tasks unless its status decides alone (O, C, R, A).
 */
import type { AccountSnapshot, TaskView } from '../../domain/account.js';
import { pages } from '../../webapi/index.js';
import type { AccountStatusResponse, WebApiClient } from '../../webapi/index.js';
import type { Counted, SlotReads } from '../port.js';
import { requestWindow, taskView } from './accounts.js';

/** How long tasks read for an account in a no-action state stand for it while its status and state stay. */
export const TASKS_KEPT_MS = 60 * 60_000;

/** Task reads at once. */
const TASK_READS_AT_ONCE = 8;

const DECIDED_BY_STATUS: ReadonlySet<string> = new Set(['O', 'C', 'R', 'A']);
/** `Under Review` (the service words it `Under Review with <brokerage>`) and `Pending Approval`. */
function asksNothing(state: string | undefined): boolean {
  return state !== undefined && (/^Under Review\b/.test(state) || state === 'Pending Approval');
}

interface Kept {
  key: string;
  tasks: TaskView[];
  readAt: number;
}

export class WebApiSweepReads {
  /** What this worker last read of each account's tasks, by CSID and account. */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly now: () => number = Date.now) {}

  async start(api: WebApiClient, csid: string, counted: Counted): Promise<SlotReads> {
    // Tasks read too long ago stand for nothing: forgotten, so that finished accounts do not stay.
    for (const [id, kept] of this.kept) if (this.now() - kept.readAt >= TASKS_KEPT_MS) this.kept.delete(id);
    const listed = new Map<string, AccountStatusResponse>();
    const window = requestWindow(new Date(this.now()));
    for (const status of ['N', 'P']) {
      const read = pages('accountStatuses', { ...window, status }, async (page) => {
        const answer = await counted(api.accountStatusPage(page));
        return { items: answer.accounts, total: answer.total };
      });
      for await (const account of read) if (account.accountId) listed.set(account.accountId, account);
    }
    return {
      pending: new Set(listed.keys()),
      snapshotsOf: (accountIds) => this.snapshotsOf(api, csid, listed, accountIds, counted),
    };
  }

  private async snapshotsOf(
    api: WebApiClient,
    csid: string,
    listed: ReadonlyMap<string, AccountStatusResponse>,
    accountIds: string[],
    counted: Counted,
  ): Promise<Map<string, AccountSnapshot | Error>> {
    const snapshots = new Map<string, AccountSnapshot | Error>();
    let next = 0;
    const one = async (accountId: string): Promise<void> => {
      try {
        const status = listed.get(accountId) ?? (await counted(api.accountStatus(accountId)));
        snapshots.set(accountId, await this.snapshot(api, csid, accountId, status, counted));
      } catch (error) {
        // Unknown this slot: the next one, or the application's own read, looks again.
        snapshots.set(accountId, error instanceof Error ? error : new Error(String(error)));
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(TASK_READS_AT_ONCE, accountIds.length) }, async () => {
        while (next < accountIds.length) await one(accountIds[next++]!);
      }),
    );
    return snapshots;
  }

  private async snapshot(
    api: WebApiClient,
    csid: string,
    accountId: string,
    status: AccountStatusResponse,
    counted: Counted,
  ): Promise<AccountSnapshot> {
    const code = status.status ?? '';
    const head = { status: code, ...(status.state !== undefined && { stateText: status.state }) };
    if (DECIDED_BY_STATUS.has(code)) return { ...head, tasks: [] };
    const id = `${csid}\u0000${accountId}`;
    const key = `${code}\u0000${status.state ?? ''}`;
    const kept = this.kept.get(id);
    const now = this.now();
    const keep =
      kept !== undefined && kept.key === key && asksNothing(status.state) && now - kept.readAt < TASKS_KEPT_MS;
    if (keep) return { ...head, tasks: kept.tasks };
    const tasks = (await counted(api.pendingTasks(accountId))).pendingTasks.map(taskView);
    this.kept.set(id, { key, tasks, readAt: now });
    return { ...head, tasks };
  }
}

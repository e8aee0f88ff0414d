/**
 * The status sweep's reads for a firm on the XML service (brokerage/port.ts `sweepReads`): getAccountStatus for
 * status N and for status P and getPendingTasks, for every account in progress in three calls; the waiting
 * accounts they do not list by id, many a call.
 */
import type { AccountStatusResponse, EcaClient, PendingTasksAccount } from '../../eca/index.js';
import type { AccountSnapshot } from '../../domain/account.js';
import type { Counted, SlotReads } from '../port.js';
import { lookUpInParts } from './account-lists.js';
import { accountSnapshot } from './accounts.js';

/** The statuses of an account in progress: new, pending. */
const PENDING_STATUSES = ['N', 'P'] as const;

/** The XML service's reads: getAccountStatus N and P, getPendingTasks; the others by id, `perCall` a call. */
export async function xmlSlotReads(
  eca: EcaClient,
  csid: string,
  perCall: number,
  counted: Counted,
): Promise<SlotReads> {
  const read = await readPending(eca, csid, counted);
  const pending = new Set(read.snapshots.keys());
  return {
    pending,
    async snapshotsOf(accountIds) {
      const left = accountIds.filter((id) => !pending.has(id));
      for (let i = 0; i < left.length; i += perCall) {
        // Split when refused as a whole (account-lists.ts); an account refused alone stays unknown this slot.
        const parts = await lookUpInParts(
          { client: eca, csid, operation: 'getAccountStatus' },
          left.slice(i, i + perCall),
          (ids) => counted(eca.getAccountStatus({ CSID: csid, accountIds: ids })),
        );
        for (const answer of parts.answers) read.add(answer);
      }
      return read.snapshots;
    },
  };
}

/**
 * The firm's accounts in progress (status N and P) as snapshots, with every pending task; `add` puts
 * in more statuses, read by id, with the same tasks. An account getPendingTasks does not list has no
 * tasks only where its status entry agrees (accounts.ts); otherwise it is unknown this slot, and its
 * application's own read decides.
 */
export async function readPending(eca: EcaClient, csid: string, counted: Counted = (call) => call) {
  const [byStatus, tasks] = await Promise.all([
    Promise.all(PENDING_STATUSES.map((status) => counted(eca.getAccountStatus({ CSID: csid, status })))),
    counted(eca.getPendingTasks({ CSID: csid })),
  ]);
  const tasksById = new Map<string, PendingTasksAccount>(tasks.accounts.map((entry) => [entry.accountId, entry]));
  const snapshots = new Map<string, AccountSnapshot | Error>();
  const add = (read: AccountStatusResponse): void => {
    for (const entry of read.accounts) {
      snapshots.set(entry.accountId, accountSnapshot(entry, tasksById.get(entry.accountId)));
    }
  };
  byStatus.forEach(add);
  return { snapshots, add };
}

/**
 * What one slot of the status sweep works with: the waiting applications it compares (sweep.ts), its reads of
 * the firm's accounts on each protocol (sweep.ts, sweep-webapi.ts), what they found, and how each signal went;
 * the slot writes them back to its snapshot (sweep-snapshot.ts).
 */
import type { AccountSnapshot } from '../domain/account.js';

/** A waiting application, by its account, with the fingerprint its account's read is compared with. */
export interface Candidate {
  accountId: string;
  workflowId: string;
  /** The snapshot's (what the sweep last saw or sent), or the application's own when listed; absent if never seen. */
  fingerprint?: string;
  /** Found by this slot's visibility listing: its row is added to the snapshot. */
  listed: boolean;
}

/** A candidate with what this slot read of its account. */
export interface Compared {
  candidate: Candidate;
  account: AccountSnapshot;
  fingerprint: string;
}

export type SignalOutcome = 'woken' | 'gone' | 'error';

/** Passes a brokerage call through, counting it. */
export type Counted = <T>(call: Promise<T>) => Promise<T>;

/** One slot's reads of the firm's accounts, on its protocol. */
export interface SlotReads {
  /** The accounts the slot's first reads listed as in progress. */
  pending: ReadonlySet<string>;
  /** The snapshots of these accounts: the listed ones, the others read by id; unknown ones missing or errors. */
  snapshotsOf(accountIds: string[]): Promise<ReadonlyMap<string, AccountSnapshot | Error>>;
}

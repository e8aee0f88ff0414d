/**
 * What one slot of the status sweep works with: the waiting applications it compares (sweep.ts), its reads of
 * the firm's accounts (brokerage/port.ts `sweepReads`), what they found, and how each signal went;
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

/**
 * Messages of the `firmStatusSweep` workflow: one per firm (CSID), id `status-sweep-<CSID>`.
 * Definitions only, so the client can import them without workflow code.
 */
import { defineQuery } from '@temporalio/workflow';

/** How often a firm's pending accounts are read when nothing else is configured. */
/** A duration as Temporal reads it: `'5 minutes'`, `'10s'` or milliseconds. */
export type SweepInterval = string | number;

export const DEFAULT_SWEEP_INTERVAL: SweepInterval = '5 minutes';

export interface SweepInput {
  csid: string;
  /** Slot length: the sweep runs at each multiple of it (wall clock), as the applications' polls did. */
  interval?: SweepInterval;
  /** Set by the workflow itself when it continues as new. */
  carried?: { slots: number; last?: SweepReport };
}

/** What one slot's sweep read and did: counts only, no account data. */
export interface SweepReport {
  /** When the reads began, ms since the epoch. */
  observedAt: number;
  /** Accounts of the firm with status N or P. */
  pending: number;
  /** Applications waiting on the sweep for this firm: the snapshot's accounts, with those a listing found. */
  waiting: number;
  /** Their accounts no longer N or P, read by id. */
  left: number;
  /** Waiting applications whose account differs from what the sweep last sent them or they last read. */
  changed: number;
  /** Of those, woken (signal delivered). */
  woken: number;
  /** Applications that finished between the listing and the signal. */
  gone: number;
  /** Accounts the brokerage answered with an error entry, and signals that failed: tried again next slot. */
  errors: number;
  /** Calls made to the brokerage. */
  brokerageCalls: number;
  /** Visibility list pages read: 0 when the slot compared against the snapshot alone. */
  listPages: number;
  durationMs: number;
  /** The snapshot's database failed this slot: it listed the waiting applications instead (activities/sweep.ts). */
  snapshotError?: string;
}

export interface SweepView {
  csid: string;
  interval: string;
  slots: number;
  nextSlotAt?: number;
  last?: SweepReport;
  lastError?: string;
}

export const sweepStateQuery = defineQuery<SweepView>('state');

/**
 * Listing lag: the spec promises no time within which a processed write shows in the look-ups, so the
 * simulator can list late. A processed create shows in getResponseFile (its file), getAccountStatus,
 * getFileDetails and getBatchDetails (its account), and an update's request in getAmRequestStatus, only
 * a random time (within the bounds set per operation) after the write. Until then a look-up answers as
 * if the write had not happened: no file, the per-account error entry, no request.
 *
 * The lag runs on the wall clock (real time, plus the clock's explicit jumps; not the scaled business
 * time): it measures how long a caller must keep looking, and a jump (`POST /_sim/clock/advance`)
 * passes it without waiting, as tests do. It is off unless set (`startSimulator({
 * listingLag })`, `--listing-lag`, `PUT /_sim/listing-lag`), and kept in memory only: a restarted
 * simulator lists everything written before at once.
 */
export const LAGGED_OPERATIONS = [
  'getResponseFile',
  'getAccountStatus',
  'getFileDetails',
  'getBatchDetails',
  'getAmRequestStatus',
] as const;
export type LaggedOperation = (typeof LAGGED_OPERATIONS)[number];

/** Bounds of one operation's lag, in real milliseconds. */
export interface LagBounds {
  minMs: number;
  maxMs: number;
}

export type ListingLagSettings = Partial<Record<LaggedOperation, LagBounds>>;

/** What a write makes visible: an account (by id), a create's response file (by name), a request (by id). */
export type WrittenKind = 'account' | 'responseFile' | 'request';

const OPERATIONS_OF: Record<WrittenKind, readonly LaggedOperation[]> = {
  account: ['getAccountStatus', 'getFileDetails', 'getBatchDetails'],
  responseFile: ['getResponseFile'],
  request: ['getAmRequestStatus'],
};

/** Checks settings from the control API or the options: every bound a non-negative number, min ≤ max. */
export function parseListingLag(value: unknown): ListingLagSettings {
  if (value === null || typeof value !== 'object') throw new TypeError('listing lag: expected an object');
  const settings: ListingLagSettings = {};
  for (const [operation, bounds] of Object.entries(value)) {
    if (!(LAGGED_OPERATIONS as readonly string[]).includes(operation)) {
      throw new TypeError(`listing lag: ${operation} is not one of ${LAGGED_OPERATIONS.join(', ')}`);
    }
    const { minMs, maxMs } = (bounds ?? {}) as Partial<LagBounds>;
    if (typeof minMs !== 'number' || typeof maxMs !== 'number' || !(minMs >= 0) || !(maxMs >= minMs)) {
      throw new TypeError(`listing lag of ${operation}: expected { minMs, maxMs } with 0 <= minMs <= maxMs`);
    }
    settings[operation as LaggedOperation] = { minMs, maxMs };
  }
  return settings;
}

export class ListingLag {
  private settings: ListingLagSettings;
  /** `${operation}\u0000${key}` → real time from which it is listed. */
  private readonly listedFrom = new Map<string, number>();

  constructor(
    settings: ListingLagSettings = {},
    private readonly now: () => number = Date.now,
    private readonly random: () => number = Math.random,
  ) {
    this.settings = settings;
  }

  get current(): ListingLagSettings {
    return { ...this.settings };
  }

  /** New bounds for writes from now on (writes made before keep their times). */
  set(settings: ListingLagSettings): void {
    this.settings = settings;
  }

  /** A write made now: each operation that shows it draws its own lag. */
  written(kind: WrittenKind, key: string): void {
    for (const operation of OPERATIONS_OF[kind]) {
      const bounds = this.settings[operation];
      if (!bounds || bounds.maxMs <= 0) continue;
      const lag = bounds.minMs + this.random() * (bounds.maxMs - bounds.minMs);
      this.listedFrom.set(`${operation}\u0000${key}`, this.now() + lag);
    }
  }

  /** Whether `operation` lists the write under `key` now. */
  listed(operation: LaggedOperation, key: string): boolean {
    const from = this.listedFrom.get(`${operation}\u0000${key}`);
    if (from === undefined) return true;
    if (this.now() < from) return false;
    this.listedFrom.delete(`${operation}\u0000${key}`);
    return true;
  }

  clear(): void {
    this.listedFrom.clear();
  }
}

/**
 * Calls per second of real time, as the brokerage would count them, and an optional cap above which it
 * refuses them (off unless set). The spec says nothing of a rate limit; the brokerage's newer API
 * documents 10 requests/s per endpoint and 600 a minute per master account, so a test can hold the
 * engine to such a cap and prove, from these counts, that it never reaches it. The same counts are kept
 * for each firm (the CSID its call names), and a cap may hold every firm to its own count.
 */

/** Calls allowed in one second of real time: in all (`total`), per operation, and for each firm (`perFirm`). */
export interface RateCapSettings {
  total?: number;
  perOperation?: Readonly<Record<string, number>>;
  /** Calls of any one firm (the CSID its request names), whatever the other firms call. */
  perFirm?: number;
}

/** One firm's calls in one second: received (refused ones included), per operation, and how many were refused. */
export interface FirmSecondCount {
  total: number;
  byOperation: Record<string, number>;
  refused: number;
}

/** One second's calls: received (refused ones included), per operation, and how many were refused; per firm too. */
export interface SecondCount extends FirmSecondCount {
  /** Epoch second (real time). */
  second: number;
  /** The same counts per CSID, for the calls that named a registered firm. */
  byFirm: Record<string, FirmSecondCount>;
}

/** Seconds kept for the per-second counts (an hour). */
const KEPT_SECONDS = 3600;

function counted(count: FirmSecondCount, operation: string): void {
  count.total += 1;
  count.byOperation[operation] = (count.byOperation[operation] ?? 0) + 1;
}

/** A second as counted: the firms in a map (a CSID is the caller's text, never an object's key here). */
interface Counting extends FirmSecondCount {
  second: number;
  firms: Map<string, FirmSecondCount>;
}

export class RateCap {
  #settings: RateCapSettings = {};
  #seconds = new Map<number, Counting>();

  constructor(private readonly now: () => number = Date.now) {}

  set(settings: RateCapSettings): void {
    const caps: Array<readonly [string, number | undefined]> = [
      ['total', settings.total],
      ['perFirm', settings.perFirm],
      ...Object.entries(settings.perOperation ?? {}),
    ];
    for (const [scope, cap] of caps) {
      if (cap !== undefined && !(Number.isInteger(cap) && cap > 0)) {
        throw new RangeError(`rate cap of ${scope}: expected a positive whole number of calls per second`);
      }
    }
    this.#settings = { ...settings };
  }

  settings(): RateCapSettings {
    return this.#settings;
  }

  /**
   * Counts a call, for its firm too when `csid` names one; false when it goes past a cap (the caller
   * refuses it, and it is counted as refused, in its firm's count as well).
   */
  admit(operation: string, csid?: string): boolean {
    const second = Math.floor(this.now() / 1000);
    let count = this.#seconds.get(second);
    if (!count) {
      count = { second, total: 0, byOperation: {}, refused: 0, firms: new Map() };
      this.#seconds.set(second, count);
      for (const old of this.#seconds.keys()) if (old <= second - KEPT_SECONDS) this.#seconds.delete(old);
    }
    counted(count, operation);
    let firm: FirmSecondCount | undefined;
    if (csid !== undefined) {
      firm = count.firms.get(csid);
      if (!firm) {
        firm = { total: 0, byOperation: {}, refused: 0 };
        count.firms.set(csid, firm);
      }
      counted(firm, operation);
    }
    const { total, perOperation, perFirm } = this.#settings;
    const operationCap = perOperation?.[operation];
    const over =
      (total !== undefined && count.total > total) ||
      (operationCap !== undefined && count.byOperation[operation]! > operationCap) ||
      (perFirm !== undefined && firm !== undefined && firm.total > perFirm);
    if (over) {
      count.refused += 1;
      if (firm) firm.refused += 1;
    }
    return !over;
  }

  /** The seconds with calls, oldest first (the last hour at most). */
  counts(): SecondCount[] {
    return [...this.#seconds.values()]
      .sort((a, b) => a.second - b.second)
      .map(({ firms, ...count }) => structuredClone({ ...count, byFirm: Object.fromEntries(firms) }));
  }

  reset(): void {
    this.#seconds.clear();
  }
}

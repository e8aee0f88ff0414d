/**
 * Calls per second of real time, as the brokerage would count them, and an optional cap above which it
 * refuses them (off unless set). The spec says nothing of a rate limit; the brokerage's newer API
 * documents 10 requests/s per endpoint and 600 a minute per master account, so a test can hold the
 * engine to such a cap and prove, from these counts, that it never reaches it.
 */

/** Calls allowed in one second of real time: in all (`total`) and per operation. */
export interface RateCapSettings {
  total?: number;
  perOperation?: Readonly<Record<string, number>>;
}

/** One second's calls: received (refused ones included), per operation, and how many were refused. */
export interface SecondCount {
  /** Epoch second (real time). */
  second: number;
  total: number;
  byOperation: Record<string, number>;
  refused: number;
}

/** Seconds kept for the per-second counts (an hour). */
const KEPT_SECONDS = 3600;

export class RateCap {
  #settings: RateCapSettings = {};
  #seconds = new Map<number, SecondCount>();

  constructor(private readonly now: () => number = Date.now) {}

  set(settings: RateCapSettings): void {
    for (const [scope, cap] of [['total', settings.total], ...Object.entries(settings.perOperation ?? {})] as const) {
      if (cap !== undefined && !(Number.isInteger(cap) && cap > 0)) {
        throw new RangeError(`rate cap of ${scope}: expected a positive whole number of calls per second`);
      }
    }
    this.#settings = { ...settings };
  }

  settings(): RateCapSettings {
    return this.#settings;
  }

  /** Counts a call; false when it goes past a cap (the caller refuses it, and it is counted as refused). */
  admit(operation: string): boolean {
    const second = Math.floor(this.now() / 1000);
    let count = this.#seconds.get(second);
    if (!count) {
      count = { second, total: 0, byOperation: {}, refused: 0 };
      this.#seconds.set(second, count);
      for (const old of this.#seconds.keys()) if (old <= second - KEPT_SECONDS) this.#seconds.delete(old);
    }
    count.total += 1;
    count.byOperation[operation] = (count.byOperation[operation] ?? 0) + 1;
    const { total, perOperation } = this.#settings;
    const operationCap = perOperation?.[operation];
    const over =
      (total !== undefined && count.total > total) ||
      (operationCap !== undefined && count.byOperation[operation] > operationCap);
    if (over) count.refused += 1;
    return !over;
  }

  /** The seconds with calls, oldest first (the last hour at most). */
  counts(): SecondCount[] {
    return [...this.#seconds.values()].sort((a, b) => a.second - b.second).map((count) => structuredClone(count));
  }

  reset(): void {
    this.#seconds.clear();
  }
}

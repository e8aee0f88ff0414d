/**
 * Merges reads that arrive together into one call with many account ids. Polls of many workflows
 * fall on the same wall-clock slot, so their activities reach a worker within milliseconds of each
 * other: one getAccountStatus for a hundred accounts replaces a hundred calls.
 */

export interface BatchOptions<T> {
  /** How long the first read of a batch waits for others to join it. */
  windowMs: number;
  /** Largest batch sent in one call; a full batch goes at once. */
  maxBatch: number;
  /** One call for many accounts of one firm; a missing or Error entry fails that account's read only. */
  fetch: (key: string, ids: string[]) => Promise<Map<string, T | Error>>;
}

export interface BatchStats {
  /** Calls made to `fetch`. */
  calls: number;
  /** Reads answered (or failed). */
  reads: number;
  largestBatch: number;
}

interface Waiter<T> {
  id: string;
  resolve: (value: T) => void;
  reject: (error: Error) => void;
}

export class Batcher<T> {
  readonly stats: BatchStats = { calls: 0, reads: 0, largestBatch: 0 };
  private readonly queues = new Map<string, { waiters: Waiter<T>[]; timer?: NodeJS.Timeout }>();

  constructor(private readonly options: BatchOptions<T>) {
    if (!(options.maxBatch >= 1)) throw new RangeError(`maxBatch must be at least 1, got ${options.maxBatch}`);
  }

  read(key: string, id: string): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let queue = this.queues.get(key);
      if (!queue) {
        queue = { waiters: [] };
        this.queues.set(key, queue);
      }
      queue.waiters.push({ id, resolve, reject });
      if (new Set(queue.waiters.map((waiter) => waiter.id)).size >= this.options.maxBatch) this.flush(key);
      else queue.timer ??= setTimeout(() => this.flush(key), this.options.windowMs);
    });
  }

  private flush(key: string): void {
    const queue = this.queues.get(key);
    if (!queue) return;
    this.queues.delete(key);
    if (queue.timer) clearTimeout(queue.timer);
    const ids = [...new Set(queue.waiters.map((waiter) => waiter.id))];
    this.stats.calls++;
    this.stats.reads += queue.waiters.length;
    this.stats.largestBatch = Math.max(this.stats.largestBatch, ids.length);
    this.options.fetch(key, ids).then(
      (results) => {
        for (const waiter of queue.waiters) {
          const result = results.get(waiter.id);
          if (result === undefined) waiter.reject(new Error(`no entry for account ${waiter.id} in the response`));
          else if (result instanceof Error) waiter.reject(result);
          else waiter.resolve(result);
        }
      },
      (error: unknown) => {
        const failure = error instanceof Error ? error : new Error(String(error));
        for (const waiter of queue.waiters) waiter.reject(failure);
      },
    );
  }
}

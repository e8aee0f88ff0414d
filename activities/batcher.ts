/**
 * Merges reads that arrive together into one call with many account ids. Polls of many workflows
 * fall on the same wall-clock slot, so their activities reach a worker within milliseconds of each
 * other: one getAccountStatus for a hundred accounts replaces a hundred calls. A DataLoader per key (a
 * firm) merges them; reads of an account whose batch has not gone yet share its answer, and no answer
 * is kept once the batch has gone: a later read is a new one.
 */
import DataLoader from 'dataloader';

export interface BatchOptions<T> {
  /** How long the first read of a batch waits for others to join it. */
  windowMs: number;
  /** Largest batch sent in one call; a read past it starts the next batch. */
  maxBatch: number;
  /** One call for many accounts of one firm; a missing or Error entry fails that account's read only. */
  fetch: (key: string, ids: string[]) => Promise<Map<string, T | Error>>;
}

export interface BatchStats {
  /** Calls made to `fetch`. */
  calls: number;
  /** Reads asked for. */
  reads: number;
  largestBatch: number;
}

export class Batcher<T> {
  readonly stats: BatchStats = { calls: 0, reads: 0, largestBatch: 0 };
  private readonly loaders = new Map<string, DataLoader<string, T>>();

  constructor(private readonly options: BatchOptions<T>) {
    if (!(options.maxBatch >= 1)) throw new RangeError(`maxBatch must be at least 1, got ${options.maxBatch}`);
  }

  read(key: string, id: string): Promise<T> {
    this.stats.reads++;
    let loader = this.loaders.get(key);
    if (!loader) this.loaders.set(key, (loader = this.loaderOf(key)));
    return loader.load(id);
  }

  private loaderOf(key: string): DataLoader<string, T> {
    const pending = new Map<string, Promise<T>>();
    const fetchBatch = async (ids: readonly string[]) => {
      for (const id of ids) pending.delete(id);
      this.stats.calls++;
      this.stats.largestBatch = Math.max(this.stats.largestBatch, ids.length);
      const results = await this.options.fetch(key, [...ids]);
      return ids.map((id) => results.get(id) ?? new Error(`no entry for account ${id} in the response`));
    };
    return new DataLoader(fetchBatch, {
      maxBatchSize: this.options.maxBatch,
      batchScheduleFn: (dispatch) => void setTimeout(dispatch, this.options.windowMs),
      cacheMap: pending,
    });
  }
}

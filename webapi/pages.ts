/**
 * The Web API's paged listings (the bulk account statuses, the request details): `offset` and `limit`, read
 * page by page until the listing ends.
 */
import { WebApiSchemaError } from './errors.js';

/** `AccountStatusRequest` (and `RequestDetailsRequest`, the same fields): within the dates (`YYYY-MM-DD`), a page at a time. */
export interface AccountStatusRequest {
  startDate: string;
  endDate: string;
  status?: string;
  offset?: number;
  /** 1 to 1000 (the document's bounds). */
  limit?: number;
}

/**
 * Every item within the request's dates: the pages read in turn, each of `limit` (1000 unless told), until
 * {@link lastPage}.
 */
export async function* pages<T>(
  operation: string,
  request: AccountStatusRequest,
  read: (page: AccountStatusRequest) => Promise<{ items: T[]; total: number | undefined }>,
): AsyncGenerator<T> {
  let offset = request.offset ?? 0;
  let previous: string | undefined;
  for (;;) {
    const { items, total } = await read({ limit: 1000, ...request, offset });
    // A service that ignored `offset` would answer the first page for ever: a page again is not the next one.
    const page = JSON.stringify(items);
    if (items.length > 0 && page === previous) {
      throw new WebApiSchemaError(operation, 'offset', `the page at ${offset} repeats the one before it`);
    }
    previous = page;
    yield* items;
    offset += items.length;
    if (lastPage(items.length, offset, total)) return;
  }
}

/**
 * Whether a page read up to `offset` (the items before it and its own) ends the listing: an empty page, or
 * the `total` reached. The document requires no `total`: without one, only an empty page ends it, since a
 * short page may be the service's own cap on `limit`. An empty page ends it with a total too: the total may
 * have shrunk between pages.
 */
export function lastPage(items: number, offset: number, total: number | undefined): boolean {
  return items === 0 || (total !== undefined && offset >= total);
}

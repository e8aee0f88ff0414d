/**
 * Look-ups that name many accounts (getAccountStatus, getPendingTasks, getFileDetails, ... by `accountIds`), sent so
 * that a refusal of the list as a whole never fails the reads. The spec shows neither "the maximum number of accounts
 * per request" nor the "HTTP status codes for failures": a service may refuse a long list as a whole, in any words.
 *
 * A refusal of the whole call is an HTTP answer of {@link LIST_REFUSAL_STATUSES}: the request, as sent, is refused
 * (400 bad request, 413 too large, 414 URI too long, 422 unprocessable). Such a list is halved and each half sent
 * again, down to single accounts. Nothing else splits a list: a 429 (rate limit), 408, 5xx, a network failure or a
 * timeout fails the look-up as before (the transport's retries, then the activity's), and so do 401, 403 and 404,
 * which no shorter list changes.
 *
 * Convention 3 ("an entry for a failing account carries isError = true ...; other accounts in the same response are
 * not affected") holds for the split too: a single account refused alone is that account's error (`refused`), the
 * others are read. When the first two single accounts are refused and nothing was answered, the refusal is not about
 * the list: the look-up fails with it, as before, after a few calls rather than one per account.
 *
 * The size that works is kept per client, firm and operation, in the process, for a day: when every list answered
 * was shorter than every list refused (a limit on the length, not an account the service refuses), later look-ups
 * send parts of the longest size answered, without a refusal first.
 */
import { EcaHttpError } from '../../eca/index.js';

/** HTTP statuses that refuse a request as sent: a shorter list may be answered. */
export const LIST_REFUSAL_STATUSES: ReadonlySet<number> = new Set([400, 413, 414, 422]);

/** Whether `error` refuses the call as a whole in a way a shorter list may not meet. */
export function isListRefusal(error: unknown): error is EcaHttpError {
  return error instanceof EcaHttpError && LIST_REFUSAL_STATUSES.has(error.status);
}

/** How long a size learned from refusals is used before a whole list is tried again. */
export const LEARNED_SIZE_MS = 24 * 60 * 60_000;

interface LearnedSize {
  size: number;
  at: number;
}

/** Sizes that work, per client (any object: the brokerage client in use), then per `<csid> <operation>`. */
const learnedSizes = new WeakMap<object, Map<string, LearnedSize>>();

export interface ListLookUp {
  /** The client the look-up goes through: learned sizes are kept per client. */
  client: object;
  csid: string;
  /** The operation, e.g. `getAccountStatus`: each may refuse at its own length. */
  operation: string;
  now?: () => number;
}

export interface ListParts<R> {
  /** One answer per call answered, in list order. */
  answers: R[];
  /** Accounts refused even alone, each with its refusal: that account's error. */
  refused: Map<string, EcaHttpError>;
  /** Calls made. */
  calls: number;
}

/** `ids` in parts of at most `size`, of near-equal lengths. */
function partsOf(ids: readonly string[], size: number): string[][] {
  const count = Math.max(1, Math.ceil(ids.length / size));
  const length = Math.ceil(ids.length / count);
  const parts: string[][] = [];
  for (let start = 0; start < ids.length; start += length) parts.push(ids.slice(start, start + length));
  return parts;
}

/**
 * Sends `call` for `accountIds` (distinct ids), split when the service refuses a list as a whole (see the module
 * comment). Answers every answered part; throws what is not a refusal of the list, and a refusal that is about
 * something else than the list.
 */
export async function lookUpInParts<R>(
  lookUp: ListLookUp,
  accountIds: readonly string[],
  call: (accountIds: string[]) => Promise<R>,
): Promise<ListParts<R>> {
  const now = lookUp.now ?? Date.now;
  let sizes = learnedSizes.get(lookUp.client);
  if (!sizes) learnedSizes.set(lookUp.client, (sizes = new Map<string, LearnedSize>()));
  const key = `${lookUp.csid} ${lookUp.operation}`;
  const known = sizes.get(key);
  const learned = known && now() - known.at < LEARNED_SIZE_MS ? known.size : undefined;

  const result: ListParts<R> = { answers: [], refused: new Map(), calls: 0 };
  let longestAnswered = 0;
  let shortestRefused = Infinity;
  let firstRefusal: EcaHttpError | undefined;
  let singlesRefused = 0;

  const send = async (ids: string[]): Promise<void> => {
    result.calls++;
    try {
      result.answers.push(await call(ids));
      longestAnswered = Math.max(longestAnswered, ids.length);
      return;
    } catch (error) {
      if (!isListRefusal(error)) throw error;
      firstRefusal ??= error;
      if (ids.length > 1) {
        shortestRefused = Math.min(shortestRefused, ids.length);
        const half = Math.ceil(ids.length / 2);
        await send(ids.slice(0, half));
        await send(ids.slice(half));
        return;
      }
      singlesRefused++;
      if (singlesRefused >= 2 && result.answers.length === 0) throw firstRefusal;
      result.refused.set(ids[0]!, error);
    }
  };
  if (accountIds.length > 0) {
    for (const part of partsOf(accountIds, learned ?? accountIds.length)) await send(part);
  }
  // Learned only from a refusal on the length: every list answered shorter than every list refused.
  if (shortestRefused !== Infinity && longestAnswered > 0 && longestAnswered < shortestRefused) {
    if (learned === undefined || longestAnswered < learned) sizes.set(key, { size: longestAnswered, at: now() });
  }
  return result;
}

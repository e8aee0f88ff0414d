/**
 * Following an update request to the service's decision, shared by the application and maintenance
 * workflows: the pace of getAmRequestStatus reads on durable timers, and a refused request listing.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { condition, sleep } from '@temporalio/workflow';
import type { UpdateOutcome } from './application/activities.js';
import { REQUEST_LISTING_REFUSED } from '../domain/error-types.js';

/** The reason, when `error` is an activity failure of type `RequestListingRefused` (domain/error-types.ts). */
export function listingRefusal(error: unknown): string | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  return error.cause.type === REQUEST_LISTING_REFUSED ? error.cause.message : undefined;
}

/**
 * The pace of a request's status reads: the first sleep, each next one doubled up to a cap, and no
 * sleep that would end past `until` (none: reads until decided). The workflows keep the reads
 * and sleeps in their own loops, so each await stays where recorded histories have it: the order of
 * commands within one activation (a staff update's completion, the next timer) must not change.
 */
export class RequestPace {
  private delay: number;

  constructor(private readonly options: { firstDelayMs: number; maxDelayMs: number; until?: number }) {
    this.delay = options.firstDelayMs;
  }

  /** The first sleep, before any read, taken whatever `until` (maintenance reads after a sleep). */
  first(): number {
    const delay = this.delay;
    this.advance();
    return delay;
  }

  /** The sleep before the next read, or undefined when it would end past `until`. */
  next(): number | undefined {
    const delay = this.delay;
    if (this.options.until !== undefined && Date.now() + delay > this.options.until) return undefined;
    this.advance();
    return delay;
  }

  private advance(): void {
    this.delay = Math.min(this.delay * 2, this.options.maxDelayMs);
  }
}

/** The longest wait between two looks for a write whose outcome is unknown. */
const LOOK_MAX_MS = 10 * 60_000;

/**
 * The pace of the looks for a write whose outcome is unknown (a lost answer): `firstDelayMs` doubling up to
 * 10 minutes, none that would end past `windowMs` after `began`.
 */
export function lookPace(firstDelayMs: number, windowMs: number, began: number): RequestPace {
  return new RequestPace({ firstDelayMs, maxDelayMs: LOOK_MAX_MS, until: began + windowMs });
}

/**
 * An update whose outcome is unknown (its answer lost, or an attempt that ended without one): `look` (the
 * send activity with `lookOnly`, never sending) after each wait of `pace`, until it answers anything but
 * `unknown`. Still unknown when the pace ends: `unknown` says what was looked at. `stop` (a staff message
 * moved on) ends a wait early and answers `unknown: 'superseded'`.
 */
export async function lookForRequest(
  pace: RequestPace,
  what: { functionName: string; reason: string },
  look: () => Promise<UpdateOutcome>,
  stop?: () => boolean,
): Promise<UpdateOutcome> {
  const began = Date.now();
  const summary = `${what.functionName} in doubt, not listed yet`;
  for (let looks = 1; ; looks++) {
    const delay = pace.next();
    if (delay === undefined) {
      const window = `${looks} look(s) over ${Math.round((Date.now() - began) / 60_000)} min`;
      return {
        accepted: false,
        unknown: `${what.functionName} may have been received (${what.reason}); getAmRequestStatus listed no new file for the account in ${window}`,
      };
    }
    if (stop) {
      if (await condition(stop, delay, { summary })) return { accepted: false, unknown: 'superseded' };
    } else {
      await sleep(delay, { summary });
    }
    const found = await look();
    if (found.accepted || !('unknown' in found)) return found;
  }
}

/** Reads a `RequestListingRefused` failure (domain/error-types.ts) out of an activity failure. */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { REQUEST_LISTING_REFUSED } from '../domain/error-types.js';

/** The reason, when `error` is an activity failure of type `RequestListingRefused`. */
export function listingRefusal(error: unknown): string | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  return error.cause.type === REQUEST_LISTING_REFUSED ? error.cause.message : undefined;
}

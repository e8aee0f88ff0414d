/**
 * A getAmRequestStatus listing with an error entry for the account (convention 3) hides the account's
 * requests: nothing can be looked up or confirmed. The activities fail with this non-retryable type, and
 * the workflows stop in a state staff see (`unconfirmed` / `UNCONFIRMED`) instead of retrying for ever.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';

export const REQUEST_LISTING_REFUSED = 'RequestListingRefused';

/** The reason, when `error` is an activity failure of type `RequestListingRefused`. */
export function listingRefusal(error: unknown): string | undefined {
  if (!(error instanceof ActivityFailure) || !(error.cause instanceof ApplicationFailure)) return undefined;
  return error.cause.type === REQUEST_LISTING_REFUSED ? error.cause.message : undefined;
}

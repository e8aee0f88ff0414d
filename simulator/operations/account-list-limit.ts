/**
 * `account-list-limit`: a look-up naming more than {@link ACCOUNT_LIST_LIMIT} accounts is refused as a whole, with
 * the answer the simulator gives an invalid parameter (HTTP 400 and an error body). The spec: "the maximum number of
 * accounts per request: not shown", and "HTTP status codes for failures: not shown".
 */
import { ACCOUNT_LIST_LIMIT } from '../unpromised.js';
import { RequestRefused, type OperationContext } from './context.js';

export function refuseLongAccountList(ctx: OperationContext, accountIds: readonly string[] | undefined): void {
  if (!ctx.store.unpromised.has('account-list-limit') || accountIds === undefined) return;
  if (accountIds.length > ACCOUNT_LIST_LIMIT) {
    throw new RequestRefused(400, 'Invalid request: accountIds: too many accounts');
  }
}

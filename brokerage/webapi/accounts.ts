/**
 * The Web API's accounts in the engine's terms: the windows its lists are read over, a request's handle, a
 * pending task as the lifecycle reads one.
 */
import type { TaskView } from '../../domain/account.js';
import type { AccountStatusRequest, PendingTasksResponse } from '../../webapi/index.js';

export const DAY_MS = 86_400_000;

/**
 * The dates the account's requests are listed over: a year, most of it behind. An application's requests
 * are all within its life; the days ahead allow for the brokerage's clock being ahead of the worker's.
 */
export function requestWindow(now: Date): { startDate: string; endDate: string } {
  return { startDate: isoDay(now.getTime() - 300 * DAY_MS), endDate: isoDay(now.getTime() + 65 * DAY_MS) };
}

/** The UTC day of `ms`, `YYYY-MM-DD`, as the Web API's dates are written. */
function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

/**
 * The port's `responseFile` of a Web API request: its `requestId` and the day it was submitted
 * (`<requestId>@<YYYY-MM-DD>`), so that its outcome is read over the days around it (`GET /gw/api/v1/requests`
 * lists by dates; the document's copy here has no read of one request by its id), not over a year of the
 * firm's requests on every poll. A handle without its day (a plain `requestId`) is read over the year.
 */
export function requestHandle(requestId: number | string, submitted: Date): string {
  return `${requestId}@${isoDay(submitted.getTime())}`;
}

/** The request id and the dates its outcome is listed within; the day ± {@link SUBMISSION_MARGIN_DAYS}. */
export function readHandle(handle: string, now: Date): { requestId: string; window: AccountStatusRequest } {
  const [requestId = handle, day] = handle.split('@');
  const at = day === undefined ? Number.NaN : Date.parse(`${day}T00:00:00Z`);
  if (Number.isNaN(at)) return { requestId, window: requestWindow(now) };
  const margin = SUBMISSION_MARGIN_DAYS * DAY_MS;
  return { requestId, window: { startDate: isoDay(at - margin), endDate: isoDay(at + margin) } };
}

/**
 * The days either side of a request's submission day its listing is read over: the brokerage's days may be
 * another time zone's, and its clock (`dateSubmitted`) or the worker's off by a little.
 */
export const SUBMISSION_MARGIN_DAYS = 2;

/** A pending task as the lifecycle reads one. */
export function taskView(task: PendingTasksResponse['pendingTasks'][number]): TaskView {
  const reason = task.documentRejectReason?.find((text) => text.trim() !== '');
  return {
    // A task without a form number (an identity verification may have none) is a task still: '' names no form.
    formNumber: task.formNumber === undefined ? '' : String(task.formNumber),
    formName: task.formName ?? '',
    action: task.action ?? '',
    ...(task.state !== undefined && { state: task.state }),
    ...(reason !== undefined && { reason }),
    ...(task.requiredForApproval !== undefined && { isRequiredForApproval: task.requiredForApproval }),
    ...(task.onlineTask !== undefined && { isOnlineTask: task.onlineTask }),
    ...(task.url !== undefined &&
      task.url !== '' && {
        url: task.url,
        ...(task.au10tixExpiryDate !== undefined && { urlExpiresAt: task.au10tixExpiryDate }),
      }),
  };
}

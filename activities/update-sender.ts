/**
 * Update requests (`update`), for the application's steps and for account maintenance alike: the
 * request XML and its attachments packed and sent, the answer read on spec fields, and the request an
 * earlier attempt made found again, so that an answer lost in transit never sends a request twice.
 */
import { quoteService } from '../eca/index.js';
import type { EcaClient, UpdateRequest, UpdateResponse } from '../eca/index.js';
import type { UpdateOutcome } from '../workflows/application/activities.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { REQUEST_LISTING_REFUSED } from '../domain/error-types.js';
import { callBrokerage, callBrokerageOrRefusal, finalFailure } from './brokerage-errors.js';
import { answerError } from '../brokerage/xml/answers.js';
import { referenceRefusal, validateReference } from './reference-probe.js';
import { readAttachments } from './stored.js';
import type { NamedDocument } from './stored.js';
import type { WriteAttempt, WriteAttemptOptions } from './write-attempt.js';
import { isUpdateResponseFileName } from './request-status.js';

export interface UpdateSender {
  /**
   * Sends one update request with `attachments` from the store. An `xml` function runs inside the
   * call, after the store reads it needs, so a request eca/ refuses there fails at once like any other.
   */
  send(
    csid: string,
    xml: string | (() => Promise<string>),
    attachments: readonly NamedDocument[],
    attempt?: WriteAttempt,
  ): Promise<UpdateOutcome>;
  /** The request an earlier attempt made for the account (see earlierRequest), if any. */
  earlier(csid: string, accountId: string, known: string[]): Promise<UpdateOutcome | undefined>;
}

export function createUpdateSender(eca: EcaClient, store: DocumentStore): UpdateSender {
  return {
    send: async (csid, xml, attachments, attempt) => {
      // Everything is read and built before the call: a failure there proves nothing was sent, and a
      // request eca/ refuses fails at once like any other.
      const request = await callBrokerage(async () => ({
        CSID: csid,
        xml: typeof xml === 'string' ? xml : await xml(),
        attachments: await readAttachments(store, attachments),
      }));
      return updateCall(eca, request, attempt);
    },
    earlier: (csid, accountId, known) => earlierRequest(() => accountRequestFiles(eca, csid, accountId), known),
  };
}

/**
 * One update call and what its answer shows, on spec fields: a 4xx is the service's refusal, key and
 * request errors fail at once, and the request was filed when the answer names its file (`fileData.name`;
 * the spec's update answer is `timestamp` + `fileData`). An answer without it says nothing the spec
 * defines: whether the request was filed is unknown, and it is looked up as after a lost answer.
 */
export async function updateCall(
  eca: EcaClient,
  request: UpdateRequest,
  attempt?: WriteAttempt,
): Promise<UpdateOutcome> {
  const call = () => callBrokerageOrRefusal(() => eca.update(request));
  let sent: Awaited<ReturnType<typeof call>>;
  if (attempt) {
    const outcome = await attempt.send(call);
    if ('unknown' in outcome) return { accepted: false, unknown: outcome.unknown };
    sent = outcome.answer;
  } else {
    sent = await call();
  }
  if (sent.refusal) return { accepted: false, error: `update refused: HTTP ${sent.refusal.status}` };
  const response = sent.answer;
  if (!response.fileData?.name) return { accepted: false, unknown: await withoutFileData(eca, request.CSID, response) };
  return { accepted: true, responseFile: response.fileData.name };
}

/**
 * Why an update answered without `fileData` stays in doubt, for staff: never a refusal (the spec defines
 * none in the answer) nor "not filed" (nothing proves it), so it is never sent again on its strength. An
 * `error` text, which the spec does not list, is quoted; a reference application validateXML refuses with
 * the same keys points at the keys. Neither decides anything.
 */
async function withoutFileData(eca: EcaClient, csid: string | undefined, response: UpdateResponse): Promise<string> {
  const error = answerError(response.raw);
  const said = error === undefined ? '' : ` (its error text: ${quoteService(error)})`;
  let keys = '';
  try {
    const reference = await validateReference(eca, csid);
    if (!reference.accepted) keys = `; ${referenceRefusal(reference)}: the firm's keys may be at fault`;
  } catch {
    // The probe only words the reason: without it, the reason says less.
  }
  return `update answered without fileData${said}, so whether the request was filed is unknown${keys}`;
}

/**
 * Every file name getAmRequestStatus lists for the account. A per-account error entry would hide requests:
 * it fails the activity for good (no retry loop), and the workflow stops in a state staff see.
 */
export async function accountRequestFiles(eca: EcaClient, csid: string, accountId: string): Promise<string[]> {
  const listed = await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] });
  const failing = listed.requests.find((entry) => entry.isError);
  if (failing) {
    throw finalFailure(
      REQUEST_LISTING_REFUSED,
      `getAmRequestStatus lists no requests for account ${accountId}: ${quoteService(failing.error) ?? 'error entry'}`,
    );
  }
  return listed.requests.flatMap((entry) => entry.requests.flatMap((group) => group.files));
}

/**
 * The request an earlier attempt made: the response file the account lists now that was not listed before
 * the first attempt (`known`). Exactly one new file is adopted; more than one cannot be told apart (another
 * sender of this account), so it is returned without a file and the workflow stops in `unconfirmed`.
 * Nothing new listed proves nothing (the spec promises no listing delay): the caller decides.
 */
export async function earlierRequest(
  list: () => Promise<string[]>,
  known: string[],
): Promise<UpdateOutcome | undefined> {
  const before = new Set(known);
  // Only response files tell requests apart: the firm's own file names may be reused by every request.
  const made = [...new Set((await list()).filter((file) => isUpdateResponseFileName(file) && !before.has(file)))];
  if (made.length === 1) return { accepted: true, responseFile: made[0], recovered: true };
  if (made.length > 1) return { accepted: true, recovered: true };
  return undefined;
}

/** An update whose outcome stays unknown: the workflow looks for it again (write-attempt.ts). */
export function updateInDoubt(lookOnly: boolean | undefined): WriteAttemptOptions<UpdateOutcome> {
  return { lookOnly, inDoubt: (reason) => ({ accepted: false, unknown: reason }) };
}

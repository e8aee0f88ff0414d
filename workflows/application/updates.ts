/**
 * The lifecycle's update steps (DocumentSubmission, AbandonAccount, ResetAbandonedAccount): send one
 * update function and follow it to the service's decision, on spec fields only. The request is
 * recorded in the lifecycle (known files before sending, then its response file), so a retry after
 * `unconfirmed` or a lost answer follows the same request and never sends a second one.
 */
import { sleep } from '@temporalio/workflow';
import { durationMs } from '../../domain/durations.js';
import type { FormDocument } from '../../domain/documents.js';
import { lifecycleState } from '../lifecycle/index.js';
import type { LifecycleEvent, UpdateFunction } from '../lifecycle/index.js';
import { listingRefusal, lookForRequest, RequestPace } from '../requests.js';
import { lookPaceOf } from './settings.js';
import type { UpdateOutcome } from './activities.js';
import type { ApplicationRun } from './run.js';
import { service } from './service.js';

/** Reads of a PENDING request sent with update, `requestPollInterval` apart at first, doubling up to this. */
const REQUEST_POLL_MAX_MS = 30 * 60_000;

/** The outcome of one update step: decided by the service, refused at once, or not established. */
export type UpdateStep =
  | { ok: true }
  | { ok: false; error: string }
  /** `lookedUp`: a request in doubt was looked for over the whole window. */
  | { unconfirmed: string; lookedUp?: boolean }
  | { superseded: true };

/** What the lifecycle hears when the service processed or refused each function. */
const OUTCOME_EVENTS: Record<
  UpdateFunction,
  (documents: FormDocument[]) => { processed: LifecycleEvent; refused: (error: string) => LifecycleEvent }
> = {
  DocumentSubmission: (documents) => ({
    processed: { type: 'DOCUMENTS_SUBMITTED', documents },
    refused: (error) => ({ type: 'DOCUMENTS_REFUSED', error }),
  }),
  AbandonAccount: () => ({
    processed: { type: 'ABANDON_CONFIRMED' },
    refused: (error) => ({ type: 'ABANDON_REFUSED', error }),
  }),
  ResetAbandonedAccount: () => ({
    processed: { type: 'RESET_CONFIRMED' },
    refused: (error) => ({ type: 'RESET_REFUSED', error }),
  }),
};

/** The lifecycle event for the outcome of an update step (a superseded step feeds none). */
export function updateEvent(
  functionName: UpdateFunction,
  documents: FormDocument[],
  outcome: Exclude<UpdateStep, { superseded: true }>,
): LifecycleEvent {
  const events = OUTCOME_EVENTS[functionName](documents);
  if ('unconfirmed' in outcome) {
    return {
      type: 'REQUEST_UNCONFIRMED',
      reason: outcome.unconfirmed,
      functionName,
      ...(outcome.lookedUp && { lookedUp: true }),
    };
  }
  return outcome.ok ? events.processed : events.refused(outcome.error);
}

/** Sends one update function and follows it to the service's decision (see the module's head). */
export async function runUpdate(
  run: ApplicationRun,
  functionName: UpdateFunction,
  documents?: FormDocument[],
): Promise<UpdateStep> {
  try {
    return await sendAndFollow(run, functionName, documents);
  } catch (error) {
    const refusal = listingRefusal(error);
    if (refusal !== undefined) return { unconfirmed: refusal };
    throw error;
  }
}

async function sendAndFollow(
  run: ApplicationRun,
  functionName: UpdateFunction,
  documents?: FormDocument[],
): Promise<UpdateStep> {
  const account = run.account();
  // A staff message may move the lifecycle on while this step waits (abandon during a submission):
  // then this step's results are not applied and the new state's effect runs instead.
  const state = lifecycleState(run.snapshot);
  const superseded = () => lifecycleState(run.snapshot) !== state;
  // The request was prepared by an earlier run of this step (a staff retry after `unconfirmed`): that run
  // may have sent it, so the send looks for it first, whatever its attempt number.
  const mayHaveSent = run.snapshot.context.request?.functionName === functionName;
  if (!mayHaveSent) {
    const known = await service.listAccountRequests.executeWithOptions(
      { summary: `getAmRequestStatus before ${functionName}` },
      [account],
    );
    if (superseded()) return { superseded: true };
    run.apply({ type: 'REQUEST_PREPARED', functionName, known });
  }
  let responseFile = run.snapshot.context.request?.responseFile;
  if (responseFile === undefined) {
    const request = { ...account, functionName, known: run.snapshot.context.request?.known ?? [], documents };
    let sent: UpdateOutcome;
    if (run.snapshot.context.request?.inDoubt) {
      // A run of this step before (a staff retry after `blocked`, say) left it in doubt: only look.
      sent = await lookForApplicationRequest(run, request, 'an earlier send may have been received', superseded);
    } else {
      sent = await service.sendApplicationUpdate.executeWithOptions({ summary: `update ${functionName}` }, [
        { ...request, mayHaveSent },
      ]);
      if (superseded()) return { superseded: true };
      if (!sent.accepted && 'unknown' in sent) {
        run.apply({ type: 'REQUEST_IN_DOUBT' });
        sent = await lookForApplicationRequest(run, request, sent.unknown, superseded);
      }
    }
    if (superseded()) return { superseded: true };
    if (!sent.accepted) {
      return 'unknown' in sent ? { unconfirmed: sent.unknown, lookedUp: true } : { ok: false, error: sent.error };
    }
    // Not listed, but the account shows the request's effect: done, nothing to follow.
    if (sent.inEffect) return { ok: true };
    if (sent.responseFile === undefined) {
      return {
        unconfirmed: `after a lost answer the account lists more than one new request; ${functionName} cannot be told apart`,
      };
    }
    responseFile = sent.responseFile;
    run.apply({ type: 'REQUEST_SENT', responseFile });
  }
  const pace = new RequestPace({
    firstDelayMs: Math.min(durationMs(run.settings.requestPollInterval), REQUEST_POLL_MAX_MS),
    maxDelayMs: REQUEST_POLL_MAX_MS,
    until: Date.now() + durationMs(run.settings.requestConfirmTimeout),
  });
  for (;;) {
    const request = await service.readRequestByFile.executeWithOptions(
      { summary: `getAmRequestStatus ${responseFile}` },
      [{ ...account, responseFile, functionName, ...(documents && { forms: documents.map((d) => d.formNumber) }) }],
    );
    if (superseded()) return { superseded: true };
    if (request.decided) {
      if (request.processed) return { ok: true };
      return (await alreadyInEffect(run, functionName)) ? { ok: true } : { ok: false, error: request.error };
    }
    const delay = pace.next();
    if (delay === undefined) {
      return {
        unconfirmed: `request ${responseFile} (${functionName}) is ${request.status} after ${String(run.settings.requestConfirmTimeout)}`,
      };
    }
    await sleep(delay, { summary: `request ${responseFile} is ${request.status}` });
  }
}

/**
 * An update whose outcome is unknown: looked for, never sent again, for `lostAnswerWindow`
 * (workflows/requests.ts); still unknown at the end, with what staff can do.
 */
async function lookForApplicationRequest(
  run: ApplicationRun,
  request: Parameters<typeof service.sendApplicationUpdate>[0],
  reason: string,
  superseded: () => boolean,
): Promise<UpdateOutcome> {
  const { functionName } = request;
  const found = await lookForRequest(
    lookPaceOf(run.settings, Date.now()),
    { functionName, reason },
    () =>
      service.sendApplicationUpdate.executeWithOptions({ summary: `getAmRequestStatus (${functionName} in doubt)` }, [
        { ...request, lookOnly: true },
      ]),
    superseded,
  );
  if (found.accepted || !('unknown' in found) || found.unknown === 'superseded') return found;
  return { ...found, unknown: `${found.unknown}. Ask the brokerage: retry sends it again if nothing is listed then` };
}

/**
 * A REJECTED AbandonAccount or ResetAbandonedAccount may be the refusal of a second copy whose first was
 * processed (sent again after a lost answer). The account status says which: A (spec: "Abandoned: the
 * application was deleted") after an abandon, anything but A after a reset, means the function took effect.
 */
async function alreadyInEffect(run: ApplicationRun, functionName: UpdateFunction): Promise<boolean> {
  if (functionName !== 'AbandonAccount' && functionName !== 'ResetAbandonedAccount') return false;
  const account = await service.readAccount.executeWithOptions(
    { summary: `getAccountStatus after a rejected ${functionName}` },
    [run.account()],
  );
  return functionName === 'AbandonAccount' ? account.status === 'A' : account.status !== 'A';
}

/**
 * `accountMaintenance`: sends one update function for one account and polls getAmRequestStatus by
 * account on durable timers, matching the update's response file name, until the service decides
 * (PROCESSED or REJECTED); undecided past `confirmTimeout`, it waits in UNCONFIRMED for a staff `retry`.
 * Histories recorded before `confirm-requests-by-file` follow the request id instead. A function the
 * firm's type may not use is refused before anything is sent.
 */
import { NON_RETRYABLE_ERROR_TYPES } from '../../domain/error-types.js';
import {
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { durationMs } from '../../domain/durations.js';
import type { ApplicationActivities, UpdateOutcome } from '../application/activities.js';
import type { MaintenanceActivities } from './activities.js';
import { listingRefusal } from '../request-listing.js';
import { EcaAccountId, EcaCsid, EcaRequestStatus, EcaUpdateFunction } from '../../domain/search-attributes.js';
import { refuseFunction } from './functions.js';
import { PATCH_CONFIRM_BY_FILE } from '../patches.js';
import { maintenanceRetryUpdate, maintenanceStateQuery } from './messages.js';
import type { MaintenanceInput, MaintenanceResult, MaintenanceView } from './messages.js';

const RETRY = {
  initialInterval: '5 seconds',
  backoffCoefficient: 2,
  maximumInterval: '10 minutes',
  // Key and document-store errors are retried until the configuration is fixed (activities/configuration-errors.ts).
  nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
};

const sender = proxyActivities<MaintenanceActivities>({ startToCloseTimeout: '2 minutes', retry: RETRY });
const reader = proxyActivities<ApplicationActivities>({ startToCloseTimeout: '2 minutes', retry: RETRY });

const FIRST_POLL_MS = 60_000;

function fail(type: string, message: string): never {
  throw ApplicationFailure.create({ type, message, nonRetryable: true });
}

function checkInput(input: MaintenanceInput): void {
  for (const field of ['csid', 'accountId', 'functionName', 'requestKey'] as const) {
    if (typeof input?.[field] !== 'string' || input[field] === '') fail('InvalidArgument', `${field} is required`);
  }
  const refusal = refuseFunction(input.functionName, input.firmType);
  if (refusal) fail(refusal.type, refusal.message);
}

export async function accountMaintenance(input: MaintenanceInput): Promise<MaintenanceResult> {
  checkInput(input);
  const { csid, accountId, functionName } = input;
  const maxPollMs = durationMs(input.maxPollInterval ?? '30 minutes');
  const view: MaintenanceView = { csid, accountId, functionName, status: 'SENDING', polls: 0 };
  setHandler(maintenanceStateQuery, () => view);
  const publish = () => {
    upsertSearchAttributes([
      { key: EcaCsid, value: csid },
      { key: EcaAccountId, value: accountId },
      { key: EcaUpdateFunction, value: functionName },
      { key: EcaRequestStatus, value: view.status },
    ]);
    const lines = [
      `**${functionName}** for account ${accountId} · **${view.status}**`,
      `**Request:** ${view.requestId ?? '—'} · **response file:** ${view.responseFile ?? '—'} · polls ${view.polls}`,
    ];
    if (view.nextPollAt !== undefined) lines.push(`**Next poll:** ${new Date(view.nextPollAt).toISOString()}`);
    if (view.error) lines.push(`**Reason:** ${view.error.replace(/\n/g, ' ')}`);
    setCurrentDetails(lines.join('\n'));
  };
  publish();

  const byFile = patched(PATCH_CONFIRM_BY_FILE);
  let sentAt = Date.now();
  const finish = (status: MaintenanceResult['status'], error?: string): MaintenanceResult => {
    view.status = status;
    view.nextPollAt = undefined;
    if (error !== undefined) view.error = error;
    publish();
    return {
      csid,
      accountId,
      functionName,
      status,
      ...(view.requestId !== undefined && { requestId: view.requestId }),
      ...(view.responseFile !== undefined && { responseFile: view.responseFile }),
      ...(error !== undefined && { error }),
      sentAt,
      decidedAt: Date.now(),
      polls: view.polls,
    };
  };
  let sent: UpdateOutcome;
  try {
    const known = byFile
      ? await reader.listAccountRequests.executeWithOptions({ summary: 'getAmRequestStatus before update' }, [
          { csid, accountId },
        ])
      : undefined;
    sentAt = Date.now();
    sent = await sender.sendUpdateFunction.executeWithOptions({ summary: `update ${functionName}` }, [
      {
        csid,
        accountId,
        functionName,
        body: input.body,
        attributes: input.attributes,
        attachments: input.attachments ?? [],
        ...(known !== undefined && { known }),
      },
    ]);
  } catch (error) {
    // The account's request listing holds an error entry: nothing can be looked up or confirmed.
    const refusal = listingRefusal(error);
    if (refusal !== undefined) return finish('UNCONFIRMED', refusal);
    throw error;
  }
  if (!sent.accepted) return finish('REJECTED', sent.error);
  if (sent.responseFile !== undefined) view.responseFile = sent.responseFile;
  const firstPollMs = input.firstPollInterval === undefined ? FIRST_POLL_MS : durationMs(input.firstPollInterval);
  if (byFile) {
    const responseFile = sent.responseFile;
    if (responseFile === undefined) {
      return finish(
        'UNCONFIRMED',
        `the account lists more than one new request after a lost answer: check getAmRequestStatus for ${accountId}`,
      );
    }
    const confirmMs = durationMs(input.confirmTimeout ?? '2 days');
    let retries = 0;
    setHandler(
      maintenanceRetryUpdate,
      () => {
        retries++;
        return view;
      },
      {
        validator: () => {
          if (view.status !== 'UNCONFIRMED') {
            fail('NotAllowedInState', `retry is allowed only while the request is UNCONFIRMED, not ${view.status}`);
          }
        },
      },
    );
    for (;;) {
      view.status = 'PENDING';
      const deadline = Date.now() + confirmMs;
      // At least one read after each (re)start; then reads until the next would fall past the deadline.
      for (
        let wait = firstPollMs, first = true;
        first || Date.now() + wait <= deadline;
        wait = Math.min(wait * 2, maxPollMs)
      ) {
        first = false;
        view.nextPollAt = Date.now() + wait;
        publish();
        await sleep(wait, { summary: `request ${responseFile} is pending` });
        view.polls++;
        const request = await reader.readRequestByFile.executeWithOptions(
          { summary: `getAmRequestStatus ${responseFile}` },
          [{ csid, accountId, responseFile }],
        );
        if (request.decided) return request.processed ? finish('PROCESSED') : finish('REJECTED', request.error);
      }
      // Not established within the bound: visible, and waiting for staff instead of guessing.
      view.status = 'UNCONFIRMED';
      view.nextPollAt = undefined;
      view.error = `request ${responseFile} not decided after ${input.confirmTimeout ?? '2 days'}; staff: retry`;
      publish();
      const seen = retries;
      await condition(() => retries !== seen);
      view.error = undefined;
    }
  }
  const requestId = sent.requestIds[0];
  if (requestId === undefined) {
    fail('NoRequestId', `the response file ${sent.responseFile ?? ''} of update ${functionName} names no request`);
  }
  view.requestId = requestId;
  view.status = 'PENDING';
  publish();

  for (let wait = firstPollMs; ; wait = Math.min(wait * 2, maxPollMs)) {
    view.nextPollAt = Date.now() + wait;
    publish();
    await sleep(wait, { summary: `request ${requestId} is pending` });
    view.polls++;
    const request = await reader.readUpdateRequest.executeWithOptions({ summary: `getAmRequestStatus ${requestId}` }, [
      { csid, requestId },
    ]);
    if (request.decided) return request.processed ? finish('PROCESSED') : finish('REJECTED', request.error);
  }
}

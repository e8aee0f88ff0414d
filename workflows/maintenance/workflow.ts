/**
 * `accountMaintenance`: sends one update function for one account and polls getAmRequestStatus by
 * account on durable timers, matching the update's response file name, until the service decides
 * (PROCESSED or REJECTED); undecided past `confirmTimeout`, it waits in UNCONFIRMED for a staff `retry`.
 * A function the firm's type may not use is refused before anything is sent.
 */
import { NON_RETRYABLE_ERROR_TYPES } from '../../domain/error-types.js';
import {
  ApplicationFailure,
  condition,
  sleep,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  upsertSearchAttributes,
} from '@temporalio/workflow';
import { durationMs } from '../../domain/durations.js';
import type { ApplicationActivities, UpdateOutcome } from '../application/activities.js';
import type { MaintenanceActivities } from './activities.js';
import { listingRefusal, lookForRequest, lookPace, RequestPace } from '../requests.js';
import { EcaAccountId, EcaCsid, EcaRequestStatus, EcaUpdateFunction } from '../../domain/search-attributes.js';
import { refuseFunction } from './functions.js';
import { maintenanceRetryUpdate, maintenanceStateQuery } from './messages.js';
import type { MaintenanceInput, MaintenanceResult, MaintenanceView } from './messages.js';
import type { RequestOutcome } from '../application/activities.js';
import { requireStaffInput } from '../application/staff-input.js';
import type { EmptyRequest } from '../application/messages.js';
import type { Protocol } from '../../domain/protocols.js';

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
  const tracker = new MaintenanceTracker(input);
  setHandler(maintenanceStateQuery, () => tracker.view);
  tracker.publish();

  let sent: UpdateOutcome;
  try {
    sent = await send(input, tracker);
  } catch (error) {
    // The account's request listing holds an error entry: nothing can be looked up or confirmed.
    const refusal = listingRefusal(error);
    if (refusal !== undefined) return tracker.finish('UNCONFIRMED', refusal);
    throw error;
  }
  if (!sent.accepted) {
    // Received or not is unknown (a lost answer) and nothing new is listed: never sent again, shown to staff.
    if ('unknown' in sent) return tracker.finish('UNCONFIRMED', sent.unknown);
    return tracker.finish('REJECTED', sent.error);
  }
  if (sent.responseFile !== undefined) tracker.view.responseFile = sent.responseFile;
  return followByFile(input, tracker, sent.responseFile);
}

/** The view the query answers and the search attributes and details that show it. */
class MaintenanceTracker {
  readonly view: MaintenanceView;
  sentAt = Date.now();
  readonly firstPollMs: number;
  readonly maxPollMs: number;

  constructor(readonly input: MaintenanceInput) {
    const { csid, accountId, functionName } = input;
    this.maxPollMs = durationMs(input.maxPollInterval ?? '30 minutes');
    this.firstPollMs = input.firstPollInterval === undefined ? FIRST_POLL_MS : durationMs(input.firstPollInterval);
    this.view = { csid, accountId, functionName, status: 'SENDING', polls: 0 };
  }

  publish(): void {
    const { view } = this;
    upsertSearchAttributes([
      { key: EcaCsid, value: view.csid },
      { key: EcaAccountId, value: view.accountId },
      { key: EcaUpdateFunction, value: view.functionName },
      { key: EcaRequestStatus, value: view.status },
    ]);
    const lines = [
      `**${view.functionName}** for account ${view.accountId} · **${view.status}**`,
      `**Response file:** ${view.responseFile ?? '—'} · polls ${view.polls}`,
    ];
    if (view.nextPollAt !== undefined) lines.push(`**Next poll:** ${new Date(view.nextPollAt).toISOString()}`);
    if (view.error) lines.push(`**Reason:** ${view.error.replace(/\n/g, ' ')}`);
    setCurrentDetails(lines.join('\n'));
  }

  finish(status: MaintenanceResult['status'], error?: string): MaintenanceResult {
    const { view } = this;
    view.status = status;
    view.nextPollAt = undefined;
    if (error !== undefined) view.error = error;
    this.publish();
    return {
      csid: view.csid,
      accountId: view.accountId,
      functionName: view.functionName,
      status,
      ...(view.responseFile !== undefined && { responseFile: view.responseFile }),
      ...(error !== undefined && { error }),
      sentAt: this.sentAt,
      decidedAt: Date.now(),
      polls: view.polls,
    };
  }

  /**
   * Reads the request's status after a sleep, doubling, until decided or until the next sleep would end
   * past `until`; each next read is published. Undefined when not decided in time.
   */
  async follow(read: () => Promise<RequestOutcome>, what: string, until: number) {
    const pace = new RequestPace({ firstDelayMs: this.firstPollMs, maxDelayMs: this.maxPollMs, until });
    for (let delay: number | undefined = pace.first(); delay !== undefined; delay = pace.next()) {
      this.view.nextPollAt = Date.now() + delay;
      this.publish();
      await sleep(delay, { summary: `request ${what} is pending` });
      this.view.polls++;
      const request = await read();
      if (request.decided) return request;
    }
    return undefined;
  }
}

/** The protocol the request is sent on, named to each of its activities: its reads go where it was sent. */
function protocolOf(input: MaintenanceInput): { protocol: Protocol } {
  return { protocol: input.protocol ?? 'xml' };
}

/** Sends the update, after listing the account's requests so that a retry can find the one it sent. */
async function send(input: MaintenanceInput, tracker: MaintenanceTracker): Promise<UpdateOutcome> {
  const { csid, accountId, functionName } = input;
  const protocol = protocolOf(input);
  const known = await reader.listAccountRequests.executeWithOptions({ summary: 'getAmRequestStatus before update' }, [
    { csid, accountId, ...protocol },
  ]);
  tracker.sentAt = Date.now();
  const request = {
    csid,
    accountId,
    functionName,
    ...protocol,
    body: input.body,
    attributes: input.attributes,
    attachments: input.attachments ?? [],
    known,
  };
  const sent = await sender.sendUpdateFunction.executeWithOptions({ summary: `update ${functionName}` }, [request]);
  if (sent.accepted || !('unknown' in sent)) return sent;
  // Its outcome unknown: looked for, never sent again, for `lostAnswerWindow` (default 1 hour), then UNCONFIRMED.
  const pace = lookPace(FIRST_POLL_MS, durationMs(input.lostAnswerWindow ?? '1 hour'), Date.now());
  return lookForRequest(pace, { functionName, reason: sent.unknown }, () =>
    sender.sendUpdateFunction.executeWithOptions({ summary: `getAmRequestStatus (${functionName} in doubt)` }, [
      { ...request, lookOnly: true },
    ]),
  );
}

/**
 * Follows the request by its response file until decided; undecided past `confirmTimeout`, it waits in
 * UNCONFIRMED for a staff `retry` and then follows it again.
 */
async function followByFile(
  input: MaintenanceInput,
  tracker: MaintenanceTracker,
  responseFile: string | undefined,
): Promise<MaintenanceResult> {
  const { csid, accountId } = input;
  const view = tracker.view;
  if (responseFile === undefined) {
    return tracker.finish(
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
      validator: (request?: EmptyRequest) => {
        requireStaffInput('retry', request);
        if (view.status !== 'UNCONFIRMED') {
          fail('NotAllowedInState', `retry is allowed only while the request is UNCONFIRMED, not ${view.status}`);
        }
      },
    },
  );
  for (;;) {
    view.status = 'PENDING';
    // At least one read after each (re)start; then reads until the next would fall past the confirm timeout.
    const wait = await tracker.follow(
      () =>
        reader.readRequestByFile.executeWithOptions({ summary: `getAmRequestStatus ${responseFile}` }, [
          { csid, accountId, responseFile, ...protocolOf(input) },
        ]),
      responseFile,
      Date.now() + confirmMs,
    );
    if (wait) return wait.processed ? tracker.finish('PROCESSED') : tracker.finish('REJECTED', wait.error);
    // Not established within the bound: visible, and waiting for staff instead of guessing.
    view.status = 'UNCONFIRMED';
    view.nextPollAt = undefined;
    view.error = `request ${responseFile} not decided after ${input.confirmTimeout ?? '2 days'}; staff: retry`;
    tracker.publish();
    const seen = retries;
    await condition(() => retries !== seen);
    view.error = undefined;
  }
}

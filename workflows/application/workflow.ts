/**
 * `accountApplication`: one durable workflow per account application. It interprets the lifecycle
 * statechart: runs the effect of the current state as an activity or a durable wait, feeds the result
 * back as an event, and keeps search attributes, current details and the `state` query in step.
 */
import { NON_RETRYABLE_ERROR_TYPES } from '../../domain/error-types.js';
import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  allHandlersFinished,
  condition,
  continueAsNew,
  log,
  patched,
  metricMeter,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  startChild,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { durationMs } from '../../domain/durations.js';
import type { ApplicationActivities, CreateOutcome, UpdateOutcome } from './activities.js';
import {
  effectOf,
  lifecycleState,
  persistLifecycle,
  restoreLifecycle,
  startLifecycle,
  step,
} from '../lifecycle/index.js';
import { NO_OBSERVATION, observationFingerprint } from '../../domain/observation.js';
import type {
  BlockedStep,
  LifecycleEffect,
  LifecycleEvent,
  LifecycleSnapshot,
  UpdateFunction,
} from '../lifecycle/index.js';
import type { AccountSnapshot } from '../../domain/account.js';
import {
  EcaAccountId,
  EcaAccountStatus,
  EcaCsid,
  EcaExternalId,
  EcaLifecycleState,
  EcaObserved,
} from '../../domain/search-attributes.js';
import { renderDetails } from './details.js';
import {
  abandonUpdate,
  accountObservedSignal,
  pollNowSignal,
  provideDocumentsUpdate,
  resetUpdate,
  resubmitUpdate,
  retryUpdate,
  stateQuery,
} from './messages.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import type {
  AbandonRequest,
  AccountObservation,
  ApplicationInput,
  ApplicationResult,
  ApplicationStateView,
  StaffNotice,
  TransitionRecord,
} from './messages.js';
import { describeMessage, requireAbandonInput, requireDocumentsInput, requireResubmitInput } from './staff-input.js';
import { installStaffSignals } from './staff-signals.js';
import type { DocumentRef, FormDocument } from '../../domain/documents.js';
import { listingRefusal } from '../request-listing.js';
import { nextPollAt, nextSafetyPollAt, resolveSettings } from './settings.js';
import {
  PATCH_UPSERT_ON_CHANGE,
  PATCH_CONFIRM_BY_FILE,
  PATCH_STAFF_SIGNALS,
  PATCH_STATUS_SWEEP,
  PATCH_BLOCKED_STATE,
  PATCH_DOCUMENT_RETENTION,
} from '../patches.js';
import { documentRetention } from '../retention/workflow.js';
import { documentRetentionWorkflowId } from '../../domain/workflow-ids.js';

/** Calls to the service: transport failures retry with backoff, business refusals come back as results. */
const service = proxyActivities<ApplicationActivities>({
  startToCloseTimeout: '2 minutes',
  retry: {
    initialInterval: '5 seconds',
    backoffCoefficient: 2,
    maximumInterval: '10 minutes',
    // Key and document-store errors are retried until the configuration is fixed (activities/configuration-errors.ts).
    nonRetryableErrorTypes: [...NON_RETRYABLE_ERROR_TYPES],
  },
});

/** Polls of a request sent with update, from one minute apart up to this. */
const REQUEST_POLL_MAX_MS = 30 * 60_000;

const MAX_TRANSITIONS_KEPT = 200;

/** The step an effect stands for, as `blocked` records it. */
const BLOCKED_STEPS: Partial<Record<LifecycleEffect['kind'], BlockedStep>> = {
  validate: 'validate',
  create: 'create',
  poll: 'read',
  submitDocuments: 'DocumentSubmission',
  abandon: 'AbandonAccount',
  reset: 'ResetAbandonedAccount',
};

/** Longest failure message kept in `blocked` (it is shown in the state, the details and the CLI). */
const MAX_BLOCKED_REASON = 500;

/** The `BLOCKED` event for a failed step: the failure's type and message, never its details. */
function blockedEvent(step: BlockedStep, failure: ActivityFailure): LifecycleEvent {
  const cause = failure.cause;
  const errorType = cause instanceof ApplicationFailure ? (cause.type ?? 'Error') : (cause?.name ?? 'ActivityFailure');
  const message = cause?.message ?? failure.message;
  const reason = message.length > MAX_BLOCKED_REASON ? `${message.slice(0, MAX_BLOCKED_REASON)}…` : message;
  return { type: 'BLOCKED', step, errorType, reason, since: Date.now() };
}

/** The outcome of one update step: decided by the service, refused at once, or not established. */
type UpdateStep = { ok: true } | { ok: false; error: string } | { unconfirmed: string } | { superseded: true };

export async function accountApplication(input: ApplicationInput): Promise<ApplicationResult> {
  const settings = resolveSettings(input.settings);
  const { csid, externalId } = input;
  let snapshot: LifecycleSnapshot = input.carried
    ? restoreLifecycle(input.carried.lifecycle)
    : startLifecycle({ csid, externalId, application: input.application, documents: input.documents });
  const transitions: TransitionRecord[] = input.carried?.transitions ?? [
    { state: lifecycleState(snapshot), event: 'start', at: Date.now() },
  ];
  const runs = input.carried?.runs ?? 0;
  let lastPollAt = input.carried?.lastPollAt;
  let nextPoll: number | undefined;
  /** Bumped by every staff message, so that waits end and the loop re-reads the state. */
  let messages = 0;
  let pollRequested = input.carried?.pollRequested ?? false;
  /** Staff signals as taken (staff-signals.ts), shown in the current details. */
  let staffNotices: StaffNotice[] = [];
  /** Waits end on the status sweep's wake-ups rather than on poll slots (decided once, below). */
  let sweepMode = false;
  /** Fingerprint of the last account read, published as EcaObserved for the sweep to compare. */
  let observed = input.carried?.observed ?? NO_OBSERVATION;
  /** The newest wake-up of the status sweep. */
  let observation: AccountObservation | undefined;

  /** `eca_lifecycle_transitions` (see workers/metrics.ts); the SDK records nothing while replaying. */
  const transitionsMetric = metricMeter.createCounter(
    'eca_lifecycle_transitions',
    'transition',
    'Lifecycle state changes of account applications',
  );

  function apply(event: LifecycleEvent): void {
    const before = lifecycleState(snapshot);
    snapshot = step(snapshot, event);
    const after = lifecycleState(snapshot);
    if (after !== before) {
      transitions.push({ state: after, event: event.type, at: Date.now() });
      if (transitions.length > MAX_TRANSITIONS_KEPT) transitions.splice(0, transitions.length - MAX_TRANSITIONS_KEPT);
      log.info('lifecycle transition', { from: before, to: after, event: event.type });
      transitionsMetric.add(1, { from: before, to: after, event: event.type });
    }
    publish();
  }

  /** The search attributes last written, so that a poll that changes nothing writes nothing. */
  let published: string | undefined;

  function publish(): void {
    const { context } = snapshot;
    const attributes = [
      { key: EcaLifecycleState, value: lifecycleState(snapshot) },
      { key: EcaCsid, value: csid },
      { key: EcaExternalId, value: externalId },
      ...(context.accountId ? [{ key: EcaAccountId, value: context.accountId }] : []),
      ...(context.status ? [{ key: EcaAccountStatus, value: context.status }] : []),
      ...(sweepMode ? [{ key: EcaObserved, value: observed }] : []),
    ];
    const signature = JSON.stringify(attributes.map(({ key, value }) => [key.name, value]));
    // Histories recorded before this change upsert on every step; they replay down the old path.
    if (signature !== published || !patched(PATCH_UPSERT_ON_CHANGE)) upsertSearchAttributes(attributes);
    published = signature;
    setCurrentDetails(renderDetails(view()));
  }

  function view(): ApplicationStateView {
    const { context } = snapshot;
    return {
      csid,
      externalId,
      lifecycleState: lifecycleState(snapshot),
      done: snapshot.status === 'done',
      accountId: context.accountId,
      userName: context.userName,
      ...(context.credentials && { credentials: context.credentials }),
      status: context.status,
      stateText: context.stateText,
      pendingTasks: context.tasks,
      waitingDocuments: Object.keys(context.waitingDocuments),
      corrections: context.corrections,
      lastRefusal: context.lastRefusal,
      ...(context.abandonReason && ['abandoning', 'abandoned', 'closedAsAbandoned'].includes(lifecycleState(snapshot))
        ? { abandonReason: context.abandonReason }
        : {}),
      unconfirmed: context.unconfirmed,
      ...(context.blocked && { blocked: context.blocked }),
      lastPollAt,
      nextPollAt: nextPoll,
      transitions: [...transitions],
      runs,
      ...(staffNotices.length > 0 ? { staffNotices: [...staffNotices] } : {}),
    };
  }

  /** Why the lifecycle does not take a staff message now, or undefined when it does. */
  function refusal(event: LifecycleEvent): string | undefined {
    if (snapshot.can(event)) return undefined;
    return `${describeMessage(event.type)} is not allowed while the application is ${lifecycleState(snapshot)}`;
  }

  /** Staff messages are refused, with a typed failure, where the lifecycle does not take them. */
  function allowed(event: LifecycleEvent): void {
    const message = refusal(event);
    if (message) throw ApplicationFailure.create({ type: 'NotAllowedInState', message, nonRetryable: true });
  }

  function handleStaff(event: LifecycleEvent): ApplicationStateView {
    messages++;
    apply(event);
    return view();
  }

  /**
   * Sends one update function and waits until getAmRequestStatus decides it, on spec fields only. The
   * request is recorded in the lifecycle (known files before sending, then its response file), so a
   * retry after `unconfirmed` or a lost answer follows the same request and never sends a second one.
   */
  async function runUpdate(functionName: UpdateFunction, documents?: FormDocument[]): Promise<UpdateStep> {
    try {
      return await sendAndFollow(functionName, documents);
    } catch (error) {
      const refusal = listingRefusal(error);
      if (refusal !== undefined) return { unconfirmed: refusal };
      throw error;
    }
  }

  async function sendAndFollow(functionName: UpdateFunction, documents?: FormDocument[]): Promise<UpdateStep> {
    const account = { csid, accountId: snapshot.context.accountId ?? '' };
    // A staff message may move the lifecycle on while this step waits (abandon during a submission):
    // then this step's results are not applied and the new state's effect runs instead.
    const state = lifecycleState(snapshot);
    const superseded = () => lifecycleState(snapshot) !== state;
    // The request was prepared by an earlier run of this step (a staff retry after `unconfirmed`): that run
    // may have sent it, so the send looks for it first, whatever its attempt number.
    const mayHaveSent = snapshot.context.request?.functionName === functionName;
    if (!mayHaveSent) {
      const known = await service.listAccountRequests.executeWithOptions(
        { summary: `getAmRequestStatus before ${functionName}` },
        [account],
      );
      if (superseded()) return { superseded: true };
      apply({ type: 'REQUEST_PREPARED', functionName, known });
    }
    let responseFile = snapshot.context.request?.responseFile;
    if (responseFile === undefined) {
      const sent = await service.sendApplicationUpdate.executeWithOptions({ summary: `update ${functionName}` }, [
        { ...account, functionName, known: snapshot.context.request?.known ?? [], documents, mayHaveSent },
      ]);
      if (superseded()) return { superseded: true };
      if (!sent.accepted) return { ok: false, error: sent.error };
      if (sent.responseFile === undefined) {
        return {
          unconfirmed: `after a lost answer the account lists more than one new request; ${functionName} cannot be told apart`,
        };
      }
      responseFile = sent.responseFile;
      apply({ type: 'REQUEST_SENT', responseFile });
    }
    const deadline = Date.now() + durationMs(settings.requestConfirmTimeout);
    for (let wait = 60_000; ; wait = Math.min(wait * 2, REQUEST_POLL_MAX_MS)) {
      const request = await service.readRequestByFile.executeWithOptions(
        { summary: `getAmRequestStatus ${responseFile}` },
        [{ ...account, responseFile }],
      );
      if (superseded()) return { superseded: true };
      if (request.decided) {
        if (request.processed) return { ok: true };
        return (await alreadyInEffect(functionName)) ? { ok: true } : { ok: false, error: request.error };
      }
      if (Date.now() + wait > deadline) {
        return {
          unconfirmed: `request ${responseFile} (${functionName}) is ${request.status} after ${String(settings.requestConfirmTimeout)}`,
        };
      }
      await sleep(wait, { summary: `request ${responseFile} is ${request.status}` });
    }
  }

  /**
   * A REJECTED AbandonAccount or ResetAbandonedAccount may be the refusal of a second copy whose first was
   * processed (sent again after a lost answer). The account status says which: A (spec: "Abandoned: the
   * application was deleted") after an abandon, anything but A after a reset, means the function took effect.
   */
  async function alreadyInEffect(functionName: UpdateFunction): Promise<boolean> {
    if (functionName !== 'AbandonAccount' && functionName !== 'ResetAbandonedAccount') return false;
    const account = await service.readAccount.executeWithOptions(
      { summary: `getAccountStatus after a rejected ${functionName}` },
      [{ csid, accountId: snapshot.context.accountId ?? '' }],
    );
    return functionName === 'AbandonAccount' ? account.status === 'A' : account.status !== 'A';
  }

  /** Creates the account (never twice); a processed file whose account is not found yet is looked up again. */
  async function runCreate(): Promise<CreateOutcome> {
    const context = snapshot.context;
    for (let attempt = 1; ; attempt++) {
      const result = await service.createAccount.executeWithOptions({ summary: 'create (idempotent)' }, [
        {
          csid,
          externalId,
          application: context.application,
          documents: context.createDocuments,
          ...(context.settledFiles?.length ? { settledFiles: context.settledFiles } : {}),
        },
      ]);
      if (result.created || !('unconfirmed' in result) || attempt >= settings.createConfirmAttempts) return result;
      const wait = durationMs(settings.createConfirmInterval) * 2 ** (attempt - 1);
      await sleep(wait, { summary: `account of ${result.unconfirmed.responseFile} not found yet` });
    }
  }

  /** An account read (its own or the sweep's) fed to the lifecycle. */
  function observe(account: AccountSnapshot): void {
    lastPollAt = Date.now();
    observed = observationFingerprint(account);
    apply({ type: 'STATUS', account });
  }

  /** Reads the account now (a poll slot, `pollNow`, a safety poll). */
  async function readNow(account: { csid: string; accountId: string }): Promise<void> {
    pollRequested = false;
    nextPoll = undefined;
    const status = await service.readAccount.executeWithOptions({ summary: 'getAccountStatus + getPendingTasks' }, [
      account,
    ]);
    observe(status);
  }

  /**
   * `sweep` mode: waits for the sweep's wake-up, a staff message or the safety poll. A wake-up is taken
   * only when the sweep read the account after this wait began: an older read may predate this
   * application's own last step (a submission, say), and the sweep wakes it again at its next slot.
   */
  async function awaitChange(account: { csid: string; accountId: string }, seen: number) {
    const waitStartedAt = Date.now();
    const fresh = () => (observation && observation.observedAt > waitStartedAt ? observation : undefined);
    if (!pollRequested) {
      nextPoll = nextSafetyPollAt(waitStartedAt, settings);
      publish();
      const summary = `waiting for the status sweep; own read at ${new Date(nextPoll).toISOString()}`;
      const woken = await condition(() => messages !== seen || fresh() !== undefined, nextPoll - Date.now(), {
        summary,
      });
      if (woken && !pollRequested) {
        // A staff message may have moved the lifecycle on: the loop re-reads the state.
        const taken = fresh();
        if (taken) {
          nextPoll = undefined;
          observe(taken.account);
        }
        return;
      }
    }
    await readNow(account);
  }

  /** Histories recorded before PATCH_CONFIRM_BY_FILE: waits on the request ids an update's response named. */
  async function settle(outcome: UpdateOutcome): Promise<{ ok: true } | { ok: false; error: string }> {
    if (!outcome.accepted) return { ok: false, error: outcome.error };
    for (const requestId of outcome.requestIds) {
      for (let wait = 60_000; ; wait = Math.min(wait * 2, REQUEST_POLL_MAX_MS)) {
        const request = await service.readUpdateRequest.executeWithOptions(
          { summary: `getAmRequestStatus ${requestId}` },
          [{ csid, requestId }],
        );
        if (request.decided) {
          if (!request.processed) return { ok: false, error: request.error };
          break;
        }
        await sleep(wait, { summary: `request ${requestId} is ${request.status}` });
      }
    }
    return { ok: true };
  }

  /** Leaves a `documentRetention` workflow behind that deletes the application's documents in due time. */
  async function startDocumentRetention(retentionMs: number): Promise<void> {
    try {
      await startChild(documentRetention, {
        workflowId: documentRetentionWorkflowId(csid, externalId),
        parentClosePolicy: ParentClosePolicy.ABANDON,
        args: [
          {
            csid,
            externalId,
            owner: applicationWorkflowId(csid, externalId),
            finishedAt: Date.now(),
            retentionMs,
          },
        ],
      });
    } catch (error) {
      // Already started (this workflow was reset to an earlier point and finished again): it stands.
      if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    }
  }

  setHandler(stateQuery, view);
  const pollNow = () => {
    pollRequested = true;
    messages++;
  };
  // Histories recorded before staff signals may hold a signal of one of these names that was never
  // handled: they replay with `pollNow` alone.
  if (patched(PATCH_STAFF_SIGNALS)) {
    staffNotices = installStaffSignals({ refusal, handle: handleStaff, pollNow, publish });
  } else {
    setHandler(pollNowSignal, pollNow);
  }
  setHandler(abandonUpdate, (request) => handleStaff({ type: 'ABANDON', reason: request?.reason }), {
    validator: (request?: AbandonRequest) => {
      requireAbandonInput(request);
      allowed({ type: 'ABANDON', reason: request?.reason });
    },
  });
  setHandler(resubmitUpdate, (application) => handleStaff({ type: 'RESUBMIT', application }), {
    validator: (application: DocumentRef) => {
      requireResubmitInput(application);
      allowed({ type: 'RESUBMIT', application });
    },
  });
  setHandler(provideDocumentsUpdate, (documents) => handleStaff({ type: 'PROVIDE_DOCUMENTS', documents }), {
    validator: (documents: FormDocument[]) => {
      requireDocumentsInput(documents);
      allowed({ type: 'PROVIDE_DOCUMENTS', documents });
    },
  });
  setHandler(resetUpdate, () => handleStaff({ type: 'RESET' }), { validator: () => allowed({ type: 'RESET' }) });
  setHandler(retryUpdate, () => handleStaff({ type: 'RETRY' }), { validator: () => allowed({ type: 'RETRY' }) });
  setHandler(accountObservedSignal, (incoming) => {
    // Per-application polling takes no wake-ups; out-of-order deliveries keep the newest.
    if (!sweepMode || !(incoming.observedAt > (observation?.observedAt ?? 0))) return;
    observation = incoming;
  });

  sweepMode = settings.statusSource === 'sweep' && patched(PATCH_STATUS_SWEEP);
  publish();

  for (;;) {
    const effect = effectOf(snapshot);
    const context = snapshot.context;
    const account = { csid, accountId: context.accountId ?? '' };
    const seen = messages;
    nextPoll = undefined;

    const stateBefore = lifecycleState(snapshot);
    try {
      switch (effect.kind) {
        case 'done':
          if (settings.documentRetention !== null && patched(PATCH_DOCUMENT_RETENTION)) {
            await startDocumentRetention(durationMs(settings.documentRetention));
          }
          await condition(allHandlersFinished);
          return { outcome: effect.outcome, accountId: context.accountId, status: context.status, transitions };

        case 'validate': {
          const result = await service.validateApplication.executeWithOptions({ summary: 'validateXML' }, [
            { csid, externalId, application: context.application },
          ]);
          apply(result.valid ? { type: 'VALIDATED' } : { type: 'VALIDATION_FAILED', errors: result.errors });
          break;
        }

        case 'create': {
          const result = await runCreate();
          if (result.created) {
            apply({
              type: 'CREATED',
              accountId: result.accountId,
              userName: result.userName,
              ...(result.responseRef && { credentials: result.responseRef }),
            });
          } else if ('unconfirmed' in result) apply({ type: 'CREATE_UNCONFIRMED', ...result.unconfirmed });
          else apply({ type: 'CREATE_REFUSED', errors: result.errors, settledFiles: result.settledFiles });
          break;
        }

        case 'submitDocuments': {
          if (patched(PATCH_CONFIRM_BY_FILE)) {
            const step = await runUpdate('DocumentSubmission', effect.documents);
            if ('superseded' in step) break;
            apply(
              'unconfirmed' in step
                ? { type: 'REQUEST_UNCONFIRMED', reason: step.unconfirmed, functionName: 'DocumentSubmission' }
                : step.ok
                  ? { type: 'DOCUMENTS_SUBMITTED', documents: effect.documents }
                  : { type: 'DOCUMENTS_REFUSED', error: step.error },
            );
            break;
          }
          const forms = effect.documents.map((document) => document.formNumber).join(', ');
          const result = await service.submitAccountDocuments.executeWithOptions(
            { summary: `update DocumentSubmission: forms ${forms}` },
            [{ ...account, documents: effect.documents }],
          );
          const settled = await settle(result);
          apply(
            settled.ok
              ? { type: 'DOCUMENTS_SUBMITTED', documents: effect.documents }
              : { type: 'DOCUMENTS_REFUSED', error: settled.error },
          );
          break;
        }

        case 'abandon': {
          if (patched(PATCH_CONFIRM_BY_FILE)) {
            const step = await runUpdate('AbandonAccount');
            if ('superseded' in step) break;
            apply(
              'unconfirmed' in step
                ? { type: 'REQUEST_UNCONFIRMED', reason: step.unconfirmed, functionName: 'AbandonAccount' }
                : step.ok
                  ? { type: 'ABANDON_CONFIRMED' }
                  : { type: 'ABANDON_REFUSED', error: step.error },
            );
            break;
          }
          const result = await service.abandonAccount.executeWithOptions({ summary: 'update AbandonAccount' }, [
            account,
          ]);
          const settled = await settle(result);
          apply(settled.ok ? { type: 'ABANDON_CONFIRMED' } : { type: 'ABANDON_REFUSED', error: settled.error });
          break;
        }

        case 'reset': {
          if (patched(PATCH_CONFIRM_BY_FILE)) {
            const step = await runUpdate('ResetAbandonedAccount');
            if ('superseded' in step) break;
            apply(
              'unconfirmed' in step
                ? { type: 'REQUEST_UNCONFIRMED', reason: step.unconfirmed, functionName: 'ResetAbandonedAccount' }
                : step.ok
                  ? { type: 'RESET_CONFIRMED' }
                  : { type: 'RESET_REFUSED', error: step.error },
            );
            break;
          }
          const result = await service.resetAccount.executeWithOptions({ summary: 'update ResetAbandonedAccount' }, [
            account,
          ]);
          const settled = await settle(result);
          apply(settled.ok ? { type: 'RESET_CONFIRMED' } : { type: 'RESET_REFUSED', error: settled.error });
          break;
        }

        case 'poll': {
          if (sweepMode) {
            await awaitChange(account, seen);
            break;
          }
          if (!pollRequested) {
            nextPoll = nextPollAt(Date.now(), effect.cadence, settings);
            publish();
            const summary = `next ${effect.cadence} poll at ${new Date(nextPoll).toISOString()}`;
            const woken = await condition(() => messages !== seen, nextPoll - Date.now(), { summary });
            // A staff message may have moved the lifecycle on: re-read the state before polling.
            if (woken && !pollRequested) break;
          }
          await readNow(account);
          break;
        }

        case 'awaitStaff':
          await condition(() => messages !== seen);
          break;

        case 'awaitReset': {
          const enteredAt = transitions.at(-1)?.at ?? Date.now();
          const retentionEnds = enteredAt + durationMs(settings.abandonedRetention);
          const woken = await condition(() => messages !== seen, Math.max(retentionEnds - Date.now(), 0), {
            summary: `abandoned: retention ends ${new Date(retentionEnds).toISOString()}`,
          });
          if (!woken) apply({ type: 'RETENTION_EXPIRED' });
          break;
        }
      }
    } catch (error) {
      const blockedStep = BLOCKED_STEPS[effect.kind];
      if (!(error instanceof ActivityFailure) || blockedStep === undefined || !patched(PATCH_BLOCKED_STATE))
        throw error;
      // A staff message moved the lifecycle on while the step ran: the new state's effect runs instead.
      if (lifecycleState(snapshot) === stateBefore) {
        log.warn('step blocked', { step: blockedStep, error: String(error.cause?.message ?? error.message) });
        apply(blockedEvent(blockedStep, error));
      }
    }

    if (shouldContinueAsNew(settings.continueAsNewAfterEvents)) {
      await condition(allHandlersFinished);
      log.info('continuing as new', { state: lifecycleState(snapshot), events: workflowInfo().historyLength });
      await continueAsNew<typeof accountApplication>({
        ...input,
        carried: {
          lifecycle: persistLifecycle(snapshot),
          transitions,
          lastPollAt,
          runs: runs + 1,
          observed,
          ...(pollRequested && { pollRequested }),
        },
      });
    }
  }
}

function shouldContinueAsNew(maxEvents: number): boolean {
  const info = workflowInfo();
  return info.continueAsNewSuggested || info.historyLength >= maxEvents;
}

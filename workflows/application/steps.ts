/**
 * The application workflow's steps that need more than one call: create (looked up again while its
 * account is not found), the document retention left behind, and `blocked` for a step that fails in
 * a way no retry mends.
 */
import { ActivityFailure, ApplicationFailure, log, sleep, workflowInfo } from '@temporalio/workflow';
import { applicationWorkflowId, documentRetentionWorkflowId } from '../../domain/workflow-ids.js';
import type { ApplicationState } from '../../domain/application-states.js';
import { lifecycleState, step } from '../lifecycle/index.js';
import type { BlockedStep, LifecycleEffect, LifecycleEvent } from '../lifecycle/index.js';
import type { CreatedEvent, CreateOutcome, RideReport } from './activities.js';
import { eventsOfStep, finishApplication } from './events.js';
import type { ApplicationRun } from './run.js';
import { service } from './service.js';
import { lookPaceOf } from './settings.js';

/**
 * A step's failure: an activity failure of a step that can stop in `blocked` puts the application there
 * (unless a staff message moved the lifecycle on while the step ran); anything else is thrown again.
 */
export function blockOrThrow(run: ApplicationRun, effect: LifecycleEffect, stateBefore: string, error: unknown): void {
  const blockedStep = BLOCKED_STEPS[effect.kind];
  if (!(error instanceof ActivityFailure) || blockedStep === undefined) throw error;
  // A staff message moved the lifecycle on while the step ran: the new state's effect runs instead.
  if (lifecycleState(run.snapshot) === stateBefore) {
    log.warn('step blocked', { step: blockedStep, error: String(error.cause?.message ?? error.message) });
    run.apply(blockedEvent(blockedStep, error));
  }
}

/** The lifecycle event of a create's outcome (an unknown one has become `unconfirmed` in `runCreate`). */
export function createEvent(result: Exclude<CreateOutcome, { unknown: unknown }>): LifecycleEvent {
  if (result.created) {
    return {
      type: 'CREATED',
      accountId: result.accountId,
      userName: result.userName,
      ...(result.responseRef && { credentials: result.responseRef }),
    };
  }
  if ('unconfirmed' in result) return { type: 'CREATE_UNCONFIRMED', ...result.unconfirmed };
  return { type: 'CREATE_REFUSED', errors: result.errors, settledFiles: result.settledFiles };
}

/**
 * Creates the account, never twice. A create whose outcome is not established (its answer lost, or its
 * processed file's account not found yet) is looked up again with backoff, never sent again, for
 * `lostAnswerWindow`; then the application stops in `unconfirmed` with what was looked at.
 */
export async function runCreate(run: ApplicationRun): Promise<Exclude<CreateOutcome, { unknown: unknown }>> {
  const began = Date.now();
  const pace = lookPaceOf(run.settings, began);
  for (let looks = 1; ; looks++) {
    const context = run.snapshot.context;
    const lookOnly = context.createMayHaveBeenSent !== undefined;
    const events = run.outbox.ride();
    const created = createdEvent(run);
    let result: (CreateOutcome & RideReport) | undefined;
    try {
      result = await service.createAccount.executeWithOptions(
        { summary: lookOnly ? 'getResponseFile (create in doubt)' : 'create (idempotent)' },
        [
          {
            csid: run.csid,
            externalId: run.externalId,
            application: context.application,
            documents: context.createDocuments,
            ...(context.settledFiles?.length ? { settledFiles: context.settledFiles } : {}),
            ...(lookOnly && { lookOnly }),
            ...(events && { events }),
            ...(created && { created }),
          },
        ],
      );
    } finally {
      run.outbox.rode(events, result?.eventsWritten === true);
    }
    if (result.created || 'errors' in result) return result;
    // Not established (a send in doubt, or a processed file whose account is not matched yet): from now on
    // every call only looks, whatever getResponseFile lists meanwhile.
    if (!lookOnly) {
      run.apply({
        type: 'CREATE_MAY_HAVE_BEEN_SENT',
        at: ('unknown' in result && result.unknown.sentAt) || Date.now(),
        reason:
          'unknown' in result
            ? result.unknown.reason
            : `processed as ${result.unconfirmed.responseFile}, account not found yet`,
      });
    }
    const delay = pace.next();
    if (delay === undefined) return stillUnknown(run, result, looks, began);
    const what =
      'unknown' in result
        ? 'create in doubt, not listed yet'
        : `account of ${result.unconfirmed.responseFile} not found yet`;
    await sleep(delay, { summary: what });
  }
}

/**
 * The `created` event the workflow makes when the create answers an account, numbered next, for
 * the create to write itself (activities/event-riders.ts): the application waits after it, so no step would
 * carry it. Made by the lifecycle itself, so that it is the event the answer's step makes (run.ts `apply`).
 * The number stays free while the create runs: `creating` takes no staff message and has no deadline, so
 * nothing else makes an event meanwhile (a change there must keep it so, or give up this ride).
 */
function createdEvent(run: ApplicationRun): CreatedEvent | undefined {
  const before = run.snapshot;
  const probe = { type: 'CREATED', accountId: '' } as const;
  const after = step(before, probe);
  const drafts = eventsOfStep(
    probe,
    { state: lifecycleState(before) as ApplicationState, context: before.context },
    { state: lifecycleState(after) as ApplicationState, context: after.context },
  );
  if (drafts.length !== 1 || drafts[0]!.type !== 'application.created') return undefined;
  return { ...drafts[0]!, application: run.outbox.application, seq: run.outbox.lastSeq + 1 };
}

/** The `unconfirmed` outcome of a create still in doubt at the end of the window, with what staff can do. */
function stillUnknown(
  run: ApplicationRun,
  result: Extract<CreateOutcome, { unknown: unknown } | { unconfirmed: unknown }>,
  looks: number,
  began: number,
): Extract<CreateOutcome, { unconfirmed: unknown }> {
  const window = `${looks} look(s) over ${Math.round((Date.now() - began) / 60_000)} min`;
  if ('unconfirmed' in result) {
    return {
      created: false,
      unconfirmed: { ...result.unconfirmed, reason: `${result.unconfirmed.reason}; ${window}` },
    };
  }
  const sent = run.snapshot.context.createMayHaveBeenSent;
  const at = sent ? new Date(sent.at).toISOString() : 'earlier';
  return {
    created: false,
    unconfirmed: {
      responseFile: '',
      reason:
        `a create sent ${at} may have been processed (${sent?.reason ?? result.unknown.reason}); getResponseFile ` +
        `listed no file for the external id in ${window}. Ask the brokerage: if the application was not received, ` +
        'resubmit (create is sent again); otherwise retry once it is listed',
    },
  };
}

/**
 * The application's last activity writes its last events and starts the `documentRetention`
 * workflow (`retentionMs`; none when undefined), which runs on after the application closes: no child
 * workflow, and no workflow task of the application for it.
 */
export async function finish(run: ApplicationRun, retentionMs: number | undefined): Promise<void> {
  const { csid, externalId } = run;
  // Without a retention to start, events a write under way carries need no activity: the loop waits for it.
  const events = retentionMs === undefined && !run.outbox.unclaimed ? undefined : run.outbox.ride();
  if (!events && retentionMs === undefined) return;
  // The retention workflow, and the owner of the application's documents: its workflow.
  const ids =
    retentionMs === undefined
      ? undefined
      : { workflowId: documentRetentionWorkflowId(csid, externalId), owner: applicationWorkflowId(csid, externalId) };
  let finished = false;
  try {
    await finishApplication.executeWithOptions({ summary: ids ? 'last events, document retention' : 'last events' }, [
      {
        events: events ?? [],
        ...(ids &&
          retentionMs !== undefined && {
            retention: {
              workflowId: ids.workflowId,
              taskQueue: workflowInfo().taskQueue,
              input: { csid, externalId, owner: ids.owner, finishedAt: Date.now(), retentionMs },
            },
          }),
      },
    ]);
    finished = true;
  } finally {
    run.outbox.rode(events, finished);
  }
}

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

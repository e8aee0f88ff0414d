/**
 * The application workflow's steps that need more than one call: create (looked up again while its
 * account is not found), the document retention left behind, and `blocked` for a step that fails in
 * a way no retry mends.
 */
import {
  ActivityFailure,
  ApplicationFailure,
  ParentClosePolicy,
  log,
  patched,
  sleep,
  startChild,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import { durationMs } from '../../domain/durations.js';
import { applicationWorkflowId, documentRetentionWorkflowId } from '../../domain/workflow-ids.js';
import { lifecycleState } from '../lifecycle/index.js';
import type { BlockedStep, LifecycleEffect, LifecycleEvent } from '../lifecycle/index.js';
import { PATCH_BLOCKED_STATE } from '../patches.js';
import { documentRetention } from '../retention/workflow.js';
import type { CreateOutcome } from './activities.js';
import type { ApplicationRun } from './run.js';
import { service } from './service.js';

/**
 * A step's failure: an activity failure of a step that can stop in `blocked` puts the application there
 * (unless a staff message moved the lifecycle on while the step ran); anything else is thrown again.
 */
export function blockOrThrow(run: ApplicationRun, effect: LifecycleEffect, stateBefore: string, error: unknown): void {
  const blockedStep = BLOCKED_STEPS[effect.kind];
  if (!(error instanceof ActivityFailure) || blockedStep === undefined || !patched(PATCH_BLOCKED_STATE)) throw error;
  // A staff message moved the lifecycle on while the step ran: the new state's effect runs instead.
  if (lifecycleState(run.snapshot) === stateBefore) {
    log.warn('step blocked', { step: blockedStep, error: String(error.cause?.message ?? error.message) });
    run.apply(blockedEvent(blockedStep, error));
  }
}

/** The lifecycle event of a create's outcome. */
export function createEvent(result: CreateOutcome): LifecycleEvent {
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

/** Creates the account (never twice); a processed file whose account is not found yet is looked up again. */
export async function runCreate(run: ApplicationRun): Promise<CreateOutcome> {
  const context = run.snapshot.context;
  for (let attempt = 1; ; attempt++) {
    const result = await service.createAccount.executeWithOptions({ summary: 'create (idempotent)' }, [
      {
        csid: run.csid,
        externalId: run.externalId,
        application: context.application,
        documents: context.createDocuments,
        ...(context.settledFiles?.length ? { settledFiles: context.settledFiles } : {}),
      },
    ]);
    if (result.created || !('unconfirmed' in result) || attempt >= run.settings.createConfirmAttempts) return result;
    const wait = durationMs(run.settings.createConfirmInterval) * 2 ** (attempt - 1);
    await sleep(wait, { summary: `account of ${result.unconfirmed.responseFile} not found yet` });
  }
}

/** Leaves a `documentRetention` workflow behind that deletes the application's documents in due time. */
export async function startDocumentRetention(run: ApplicationRun, retentionMs: number): Promise<void> {
  const { csid, externalId } = run;
  try {
    await startChild(documentRetention, {
      workflowId: documentRetentionWorkflowId(csid, externalId),
      parentClosePolicy: ParentClosePolicy.ABANDON,
      args: [{ csid, externalId, owner: applicationWorkflowId(csid, externalId), finishedAt: Date.now(), retentionMs }],
    });
  } catch (error) {
    // Already started (this workflow was reset to an earlier point and finished again): it stands.
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
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

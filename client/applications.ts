/**
 * The typed API onboarding systems and staff call: one account application = one workflow.
 * Workflow code is imported as types and message definitions only.
 */
import { WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import { shielded, within } from './abort.js';
import type { WorkflowHandle } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { DocumentRef } from '../domain/documents.js';
import type { accountApplication } from '../workflows/application/workflow.js';
import {
  abandonUpdate,
  DOCUMENT_REJECTED,
  pollNowSignal,
  provideDocumentsUpdate,
  resetUpdate,
  resubmitUpdate,
  retryUpdate,
  stateQuery,
} from '../workflows/application/messages.js';
import { ACCOUNT_APPLICATION_WORKFLOW, applicationWorkflowId, DEFAULT_TASK_QUEUE } from '../domain/workflow-ids.js';
import type { ApplicationInput, ApplicationStateView, RejectedFile } from '../workflows/application/messages.js';
import {
  EcaAccountId,
  EcaCsid,
  EcaExternalId,
  EcaLifecycleState,
  visibilityString,
} from '../domain/search-attributes.js';
import { readApplicationXml, storeApplication, storeDocuments } from './documents.js';
import { canonicalXmlSha256, sameApplication } from './canonical-xml.js';
import { startOnce } from './start-once.js';
import { ensureStatusSweep } from './sweep.js';
import type { EngineContext } from './context.js';
import { settingsProblems } from '../workflows/application/settings.js';
import type { DocumentInput } from './documents.js';
import {
  ApplicationConflictError,
  ApplicationFinishedError,
  DocumentRejectedError,
  EngineError,
  InvalidInputError,
  NotAllowedInStateError,
  UnknownApplicationError,
} from './errors.js';

export type ApplicationHandle = WorkflowHandle<typeof accountApplication>;

export interface StartApplicationInput {
  /** The application XML: text, bytes or a file path. Its `Customer@external_id` names the application. */
  applicationXml: Uint8Array | string;
  /** Overrides the external id read from the XML (they must agree when both are given). */
  externalId?: string;
  /** PDFs that go with create (tax form; agreements when the day's submission did not take them). */
  documents?: DocumentInput[];
  settings?: ApplicationInput['settings'];
}

export interface StartedApplication {
  handle: ApplicationHandle;
  workflowId: string;
  externalId: string;
  /** The application was already running (or finished): nothing new was started. */
  existed: boolean;
  /**
   * Its state as this call left it, with no further call: an existing application's as it answered the
   * conflict check; a new one's as started (`validating`, no transition yet: the workflow has not run its
   * first task). `getState` reads it later.
   */
  state: ApplicationStateView;
}

/**
 * Starts the workflow of an application, idempotently: its id is derived from the CSID and the
 * external id, a running duplicate is refused by the server (conflict policy FAIL) and a completed one
 * is never started again; either way the caller gets the existing one. A run that did not complete
 * (terminated, failed, timed out) may be started again (reuse policy ALLOW_DUPLICATE_FAILED_ONLY), so
 * no application is left at a dead end: the new run's create looks for the earlier run's file by
 * external id before anything is sent, and takes over its account instead of making a second one.
 */
export async function startApplication(ctx: EngineContext, input: StartApplicationInput): Promise<StartedApplication> {
  return within(ctx, async () => {
    // Refused before anything is stored or started (the workflow checks them again in its first task).
    const problems = settingsProblems(input.settings ?? ctx.settings);
    if (problems.length) throw new InvalidInputError('settings', problems.join('; '));
    // Once its documents are stored, the start runs to its end even when the caller's signal aborts:
    // documents are never left without the workflow that owns them.
    const { handle, workflowId, externalId, ref, existed } = await shielded(ctx, () => storeAndStart(ctx, input));
    if (!existed) return { handle, workflowId, externalId, existed, state: startingView(ctx.csid, externalId, ref) };
    // The same external id on another application is a conflict, never silently the old application; so is
    // a workflow of another firm's (checked by its EcaCsid before, by its state here).
    const state = await message(externalId, () => handle.query(stateQuery));
    if (state.csid !== ctx.csid || !sameApplication(state.application, ref)) {
      throw new ApplicationConflictError(externalId, workflowId);
    }
    return { handle, workflowId, externalId, existed, state };
  });
}

async function storeAndStart(ctx: EngineContext, input: StartApplicationInput) {
  const { ref, summary } = await storeApplication(ctx.store, input.applicationXml, ctx.csid);
  const externalId = input.externalId ?? summary.externalId!;
  if (input.externalId && summary.externalId !== input.externalId) {
    throw new InvalidInputError(
      'externalId',
      `"${input.externalId}" differs from the XML's external_id "${summary.externalId}"`,
    );
  }
  const workflowId = applicationWorkflowId(ctx.csid, externalId);
  const documents = await storeDocuments(ctx.store, input.documents ?? [], workflowId);
  const settings = input.settings ?? ctx.settings;
  // Waiting applications wake on the firm's status sweep.
  await ensureStatusSweep({ ...ctx, settings });
  const { handle, existed } = await startOnce<typeof accountApplication>(ctx, ACCOUNT_APPLICATION_WORKFLOW, {
    workflowId,
    workflowIdReusePolicy: 'ALLOW_DUPLICATE_FAILED_ONLY',
    args: [{ csid: ctx.csid, externalId, application: ref, documents, settings }],
    typedSearchAttributes: [
      { key: EcaCsid, value: ctx.csid },
      { key: EcaExternalId, value: externalId },
      { key: EcaLifecycleState, value: 'validating' },
    ],
    staticSummary: `Account application ${externalId}`,
  });
  return { handle, workflowId, externalId, ref, existed };
}

/** Whether a workflow is there under `workflowId` and is the firm's (its EcaCsid). */
async function isFirms(ctx: EngineContext, workflowId: string): Promise<boolean> {
  try {
    const description = await ctx.client.workflow.getHandle(workflowId).describe();
    return description.typedSearchAttributes.get(EcaCsid) === ctx.csid;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}

/** A new application's state before its workflow's first task. */
function startingView(csid: string, externalId: string, application: DocumentRef): ApplicationStateView {
  return {
    csid,
    externalId,
    lifecycleState: 'validating',
    done: false,
    application: {
      sha1: application.sha1,
      length: application.length,
      ...(application.canonicalSha256 && { canonicalSha256: application.canonicalSha256 }),
    },
    pendingTasks: [],
    waitingDocuments: [],
    corrections: [],
    transitions: [],
    runs: 0,
  };
}

/**
 * Finds an application of the context's firm (its CSID) by external id, account id or workflow id.
 * Account ids are looked up through the `EcaAccountId` search attribute, within the firm; a workflow
 * id is taken only when the workflow belongs to the firm.
 */
export async function findApplication(ctx: EngineContext, reference: string): Promise<ApplicationHandle> {
  return within(ctx, async () => {
    const workflowId = workflowIdOf(ctx, reference);
    if (await isFirms(ctx, workflowId)) return ctx.client.workflow.getHandle<typeof accountApplication>(workflowId);
    const query = [
      `WorkflowType = '${ACCOUNT_APPLICATION_WORKFLOW}'`,
      `${EcaCsid.name} = ${visibilityString(ctx.csid)}`,
      `${EcaAccountId.name} = ${visibilityString(reference)}`,
    ].join(' AND ');
    for await (const execution of ctx.client.workflow.list({ query, pageSize: 1 })) {
      return ctx.client.workflow.getHandle<typeof accountApplication>(execution.workflowId);
    }
    throw new UnknownApplicationError(reference);
  });
}

/** Turns the workflow's refusals into the client's typed errors. */
async function message<T>(reference: string, send: () => Promise<T>): Promise<T> {
  try {
    return await send();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new ApplicationFinishedError(reference);
    if (error instanceof WorkflowUpdateFailedError && error.cause instanceof ApplicationFailure) {
      if (error.cause.type === 'NotAllowedInState') throw new NotAllowedInStateError(error.cause.message);
      if (error.cause.type === 'InvalidArgument') throw new InvalidInputError(reference, error.cause.message);
      if (error.cause.type === DOCUMENT_REJECTED) {
        throw new DocumentRejectedError(rejectedFilesOf(error.cause.details), error.cause.message);
      }
    }
    if (isClosedWorkflowError(error)) throw new ApplicationFinishedError(reference);
    throw error;
  }
}

/** The forms a `DocumentRejected` failure names in its details (messages.ts `RejectedFile`). */
function rejectedFilesOf(details: unknown[] | null | undefined): RejectedFile[] {
  const [files] = details ?? [];
  if (!Array.isArray(files)) return [];
  return files.filter(
    (file: unknown): file is RejectedFile =>
      typeof (file as RejectedFile | null)?.formNumber === 'string' &&
      typeof (file as RejectedFile).formName === 'string' &&
      ['string', 'undefined'].includes(typeof (file as RejectedFile).reason),
  );
}

function isClosedWorkflowError(error: unknown): boolean {
  return error instanceof Error && /workflow execution already completed|already completed/i.test(error.message);
}

/**
 * The workflow id a reference names within the context's firm: a workflow id of the firm as it is, any
 * other reference as an external id. Checked first: Temporal refuses such ids with an internal error.
 */
function workflowIdOf(ctx: EngineContext, reference: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (reference.length === 0 || reference.length > 255 || /[\x00-\x1f\x7f]/.test(reference)) {
    throw new InvalidInputError(
      'reference',
      'give an external id, account id or workflow id (1-255 printable characters)',
    );
  }
  return reference.startsWith(applicationWorkflowId(ctx.csid, ''))
    ? reference
    : applicationWorkflowId(ctx.csid, reference);
}

/**
 * An application's state. By external id or workflow id (the usual references) it is one query, whose answer's
 * CSID says whether the workflow is the firm's. Anything else, and a query that fails, goes the way of
 * `findApplication`, which checks the firm first: another firm's workflow is never reported on, not even
 * by its error.
 */
export async function getState(ctx: EngineContext, reference: string): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    const workflowId = workflowIdOf(ctx, reference);
    let failure: Error | undefined;
    try {
      const view = await ctx.client.workflow.getHandle(workflowId).query(stateQuery);
      if (view.csid === ctx.csid) return view;
    } catch (error) {
      // A workflow is there that did not answer: whose it is, findApplication says.
      if (!(error instanceof WorkflowNotFoundError)) failure = error as Error;
    }
    const handle = await findApplication(ctx, reference);
    // The firm's own workflow failed the query: its error is the answer (it is not asked twice).
    if (failure !== undefined && handle.workflowId === workflowId) throw failure;
    return handle.query(stateQuery);
  });
}

export async function abandon(ctx: EngineContext, reference: string, reason?: string): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    const handle = await findApplication(ctx, reference);
    return message(reference, () => handle.executeUpdate(abandonUpdate, { args: [{ reason }] }));
  });
}

export async function resubmit(
  ctx: EngineContext,
  reference: string,
  applicationXml: Uint8Array | string,
): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    const handle = await findApplication(ctx, reference);
    const { bytes, summary } = await readApplicationXml(applicationXml);
    const state = await handle.query(stateQuery);
    if (summary.externalId !== state.externalId) {
      throw new InvalidInputError(
        'application XML',
        `external_id "${summary.externalId}" is not this application's ("${state.externalId}")`,
      );
    }
    // The application's document (owned by its workflow), with its meaning's digest: a later start of the
    // external id compares it.
    const ref = {
      ...(await ctx.store.put(bytes, { owner: handle.workflowId })),
      canonicalSha256: canonicalXmlSha256(bytes),
    };
    // A store write cannot be stopped half-way: the signal is looked at before the next step.
    ctx.signal?.throwIfAborted();
    return message(reference, () => handle.executeUpdate(resubmitUpdate, { args: [ref] }));
  });
}

export async function provideDocuments(
  ctx: EngineContext,
  reference: string,
  documents: DocumentInput[],
): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    if (documents.length === 0) throw new InvalidInputError('documents', 'give at least one PDF');
    const handle = await findApplication(ctx, reference);
    const stored = await storeDocuments(ctx.store, documents, handle.workflowId);
    ctx.signal?.throwIfAborted();
    return message(reference, () => handle.executeUpdate(provideDocumentsUpdate, { args: [stored] }));
  });
}

export async function reset(ctx: EngineContext, reference: string): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    const handle = await findApplication(ctx, reference);
    return message(reference, () => handle.executeUpdate(resetUpdate, { args: [{}] }));
  });
}

/**
 * Looks again at an application whose create or update could not be confirmed (state `unconfirmed`),
 * or runs the step of a `blocked` application again once its cause is mended: the same file or
 * request is followed, nothing is sent twice.
 */
export async function retry(ctx: EngineContext, reference: string): Promise<ApplicationStateView> {
  return within(ctx, async () => {
    const handle = await findApplication(ctx, reference);
    return message(reference, () => handle.executeUpdate(retryUpdate, { args: [{}] }));
  });
}

export async function pollNow(ctx: EngineContext, reference: string): Promise<void> {
  return within(ctx, async () => {
    const handle = await findApplication(ctx, reference);
    await message(reference, () => handle.signal(pollNowSignal, {}));
  });
}

export { DEFAULT_TASK_QUEUE, EngineError };
/** What an application answers (`getState`, the actions) and ends with (its handle's `result()`). */
export type { ApplicationResult, ApplicationStateView } from '../workflows/application/messages.js';
export { APPLICATION_STATES, hasTag, STATE_TAGS, stateClasses } from '../domain/application-states.js';
export type { ApplicationState, StateTag, TaggedState } from '../domain/application-states.js';

/**
 * The lifecycle of one account application, as a pure XState v5 statechart.
 *
 * It decides, it does not act: the `accountApplication` workflow feeds it events (results of
 * activities, staff messages, timers) through XState's pure `transition()` and runs the effect that
 * each state names (see `effects.ts`). The machine never reads a clock and starts no actors or
 * delayed events, so its snapshot is plain data that survives replay and continue-as-new.
 *
 * Transitions of the service's own table:
 *   a pending application --update AbandonAccount--> A            (pending.* --ABANDON--> abandoning --> abandoned)
 *   A --update ResetAbandonedAccount--> reset                      (abandoned --RESET--> resetting --> pending)
 *   N, P --approval queue processed--> O by the next business day  (pending.* --STATUS[isOpen]--> open)
 * The others are ours: validation before create, correction, document submission, portal tasks,
 * compliance rejection (status R), retention of an abandoned application.
 */
import { assign, setup } from 'xstate';
import { documentPlan, isPortalTask } from './tasks.js';
import type { DocumentRef, FormDocument } from '../../domain/documents.js';
import type { AccountSnapshot, TaskView } from '../../domain/account.js';

export interface LifecycleInput {
  csid: string;
  externalId: string;
  application: DocumentRef;
  /** PDFs sent with create (tax form, and agreements when the day's submission did not take them). */
  documents?: FormDocument[];
}

export interface LifecycleContext {
  csid: string;
  externalId: string;
  /** The application XML now in force (replaced by `RESUBMIT`). */
  application: DocumentRef;
  /** Documents sent with create. */
  createDocuments: FormDocument[];
  accountId?: string;
  userName?: string;
  /**
   * The create's response file in the document store (users and their temporary passwords): handed out
   * once to staff (`eca password`), then deleted from the store; deleted with the application's other
   * documents after its retention if nobody took it.
   */
  credentials?: DocumentRef;
  status?: string;
  stateText?: string;
  tasks: TaskView[];
  /** Documents provided by staff and not sent yet, by form number. */
  waitingDocuments: Record<string, FormDocument>;
  /** SHA-1 of the last document sent per form number. */
  submittedDocuments: Record<string, string>;
  /** Why the application needs correction (validation errors, create refusal). */
  corrections: string[];
  /** The last refusal of a request to the service that did not end the lifecycle. */
  lastRefusal?: string;
  /** Who asked for abandonment and why, as given. */
  abandonReason?: string;
  /**
   * Create response files of this external id that made no account (failure entries, or declared so by
   * staff with a resubmission): the next create may run despite them. Every other file means the
   * application is never created again. (Absent in snapshots carried from before it existed.)
   */
  settledFiles?: string[];
  /**
   * The update request in progress: what getAmRequestStatus listed for the account before it was sent
   * (`known`), and its response file once the service answered. Kept until the request is decided, so
   * a retry after `unconfirmed` follows the same request instead of sending another.
   */
  request?: { functionName: UpdateFunction; known: string[]; responseFile?: string };
  /** What could not be confirmed, while the application is `unconfirmed`. */
  unconfirmed?: { step: UnconfirmedStep; reason: string; responseFile?: string };
  /** The step that failed in a way no retry mends, while the application is `blocked`. */
  blocked?: BlockedStepRecord;
}

/** The steps that may stop in `blocked`, and where `RETRY` goes back to (`read`: a status read). */
export type BlockedStep = 'validate' | 'create' | 'read' | UpdateFunction;

/** Why a step stopped: what failed, since when, and what staff can do about it. */
export interface BlockedStepRecord {
  step: BlockedStep;
  /** The failure's type (`DocumentNotFound`, `EcaSchemaError`, `EcaRequestError`...). */
  errorType: string;
  /** The failure's message: identifiers and fixed text only, never personal data. */
  reason: string;
  /** Workflow time the application stopped, ms since the epoch. */
  since: number;
}

/** The update functions the lifecycle sends and confirms. */
export type UpdateFunction = 'AbandonAccount' | 'ResetAbandonedAccount' | 'DocumentSubmission';

/** The steps whose outcome may stay unconfirmed, and where `RETRY` goes back to. */
export type UnconfirmedStep = 'create' | UpdateFunction;

export type LifecycleEvent =
  // results of the workflow's activities
  | { type: 'VALIDATED' }
  | { type: 'VALIDATION_FAILED'; errors: string[] }
  | { type: 'CREATED'; accountId: string; userName?: string; credentials?: DocumentRef }
  | { type: 'CREATE_REFUSED'; errors: string[]; settledFiles?: string[] }
  | { type: 'CREATE_UNCONFIRMED'; responseFile: string; reason: string }
  | { type: 'REQUEST_PREPARED'; functionName: UpdateFunction; known: string[] }
  | { type: 'REQUEST_SENT'; responseFile: string }
  | { type: 'REQUEST_UNCONFIRMED'; reason: string; functionName?: UpdateFunction }
  | { type: 'STATUS'; account: AccountSnapshot }
  | { type: 'DOCUMENTS_SUBMITTED'; documents: FormDocument[] }
  | { type: 'DOCUMENTS_REFUSED'; error: string }
  | { type: 'ABANDON_CONFIRMED' }
  | { type: 'ABANDON_REFUSED'; error: string }
  | { type: 'RESET_CONFIRMED' }
  | { type: 'RESET_REFUSED'; error: string }
  | ({ type: 'BLOCKED' } & BlockedStepRecord)
  // staff messages
  | { type: 'RESUBMIT'; application: DocumentRef }
  | { type: 'PROVIDE_DOCUMENTS'; documents: FormDocument[] }
  | { type: 'ABANDON'; reason?: string }
  | { type: 'RESET' }
  | { type: 'RETRY' }
  // timers
  | { type: 'RETENTION_EXPIRED' };

export type LifecycleEventType = LifecycleEvent['type'];

function plan(context: LifecycleContext) {
  return documentPlan(context.tasks, context.waitingDocuments, context.submittedDocuments);
}

export const lifecycleMachine = setup({
  types: {
    context: {} as LifecycleContext,
    events: {} as LifecycleEvent,
    input: {} as LifecycleInput,
  },
  guards: {
    isOpen: ({ context }) => context.status === 'O',
    isRejected: ({ context }) => context.status === 'R',
    isClosed: ({ context }) => context.status === 'C',
    isAbandonedAtBrokerage: ({ context }) => context.status === 'A',
    hasDocumentsToSubmit: ({ context }) => plan(context).toSubmit.length > 0,
    isMissingDocuments: ({ context }) => plan(context).missing.length > 0,
    hasPortalTasks: ({ context }) => context.tasks.some(isPortalTask),
    isPendingApproval: ({ context }) => context.stateText === 'Pending Approval',
    hasAccount: ({ context }) => context.accountId !== undefined,
    createUnconfirmed: ({ context }) => context.unconfirmed?.step === 'create',
    abandonUnconfirmed: ({ context }) => context.unconfirmed?.step === 'AbandonAccount',
    resetUnconfirmed: ({ context }) => context.unconfirmed?.step === 'ResetAbandonedAccount',
    documentsUnconfirmed: ({ context }) => context.unconfirmed?.step === 'DocumentSubmission',
    blockedAt: ({ context }, step: BlockedStep) => context.blocked?.step === step,
    blockedBeforeAccount: ({ context }) => context.accountId === undefined,
  },
  actions: {
    recordCorrections: assign({
      corrections: ({ event }) =>
        event.type === 'VALIDATION_FAILED' || event.type === 'CREATE_REFUSED' ? event.errors : [],
      settledFiles: ({ context, event }) =>
        event.type === 'CREATE_REFUSED' && event.settledFiles
          ? [...new Set([...(context.settledFiles ?? []), ...event.settledFiles])]
          : context.settledFiles,
    }),
    recordCreateUnconfirmed: assign({
      unconfirmed: ({ event }) =>
        event.type === 'CREATE_UNCONFIRMED'
          ? { step: 'create' as const, reason: event.reason, responseFile: event.responseFile }
          : undefined,
    }),
    /** Staff resubmit after an unconfirmed create: they declare its response file made no account. */
    settleUnconfirmedFile: assign({
      settledFiles: ({ context }) =>
        context.unconfirmed?.responseFile
          ? [...new Set([...(context.settledFiles ?? []), context.unconfirmed.responseFile])]
          : context.settledFiles,
      unconfirmed: () => undefined,
    }),
    recordRequestPrepared: assign({
      request: ({ event, context }) =>
        event.type === 'REQUEST_PREPARED' ? { functionName: event.functionName, known: event.known } : context.request,
    }),
    recordRequestSent: assign({
      request: ({ event, context }) =>
        event.type === 'REQUEST_SENT' && context.request
          ? { ...context.request, responseFile: event.responseFile }
          : context.request,
    }),
    recordRequestUnconfirmed: assign({
      // The step is the request in progress, or the one named by the event when none was prepared yet
      // (its listing failed before the request was recorded).
      unconfirmed: ({ event, context }) => {
        if (event.type !== 'REQUEST_UNCONFIRMED') return context.unconfirmed;
        const step = context.request?.functionName ?? event.functionName;
        if (step === undefined) return context.unconfirmed;
        const responseFile = context.request?.responseFile;
        return { step, reason: event.reason, ...(responseFile !== undefined && { responseFile }) };
      },
    }),
    /** The request was decided (or refused at once): the next update starts afresh. */
    clearRequest: assign({ request: () => undefined }),
    clearUnconfirmed: assign({ unconfirmed: () => undefined }),
    recordBlocked: assign({
      blocked: ({ event, context }) => {
        if (event.type !== 'BLOCKED') return context.blocked;
        const { step, errorType, reason, since } = event;
        return { step, errorType, reason, since };
      },
    }),
    clearBlocked: assign({ blocked: () => undefined }),
    acceptResubmission: assign({
      application: ({ context, event }) => (event.type === 'RESUBMIT' ? event.application : context.application),
      corrections: () => [],
    }),
    recordAccount: assign(({ context, event }) => {
      if (event.type !== 'CREATED') return {};
      const submitted = { ...context.submittedDocuments };
      for (const document of context.createDocuments) submitted[document.formNumber] = document.sha1;
      return {
        accountId: event.accountId,
        userName: event.userName,
        submittedDocuments: submitted,
        ...(event.credentials && { credentials: event.credentials }),
      };
    }),
    recordStatus: assign(({ event }) =>
      event.type === 'STATUS'
        ? { status: event.account.status, stateText: event.account.stateText, tasks: event.account.tasks }
        : {},
    ),
    holdDocuments: assign({
      waitingDocuments: ({ context, event }) => {
        if (event.type !== 'PROVIDE_DOCUMENTS') return context.waitingDocuments;
        const waiting = { ...context.waitingDocuments };
        for (const document of event.documents) waiting[document.formNumber] = document;
        return waiting;
      },
    }),
    recordSubmission: assign(({ context, event }) => {
      if (event.type !== 'DOCUMENTS_SUBMITTED') return {};
      const waiting = { ...context.waitingDocuments };
      const submitted = { ...context.submittedDocuments };
      for (const document of event.documents) {
        if (waiting[document.formNumber]?.sha1 === document.sha1) delete waiting[document.formNumber];
        submitted[document.formNumber] = document.sha1;
      }
      return { waitingDocuments: waiting, submittedDocuments: submitted, lastRefusal: undefined };
    }),
    recordRefusal: assign({
      lastRefusal: ({ event }) =>
        event.type === 'DOCUMENTS_REFUSED' || event.type === 'ABANDON_REFUSED' || event.type === 'RESET_REFUSED'
          ? event.error
          : undefined,
    }),
    /** The service processed AbandonAccount: the application is deleted (status A). */
    markAbandoned: assign({ status: () => 'A' }),
    recordAbandonReason: assign({
      abandonReason: ({ event }) => (event.type === 'ABANDON' ? event.reason : undefined),
    }),
  },
}).createMachine({
  id: 'accountApplication',
  context: ({ input }) => ({
    csid: input.csid,
    externalId: input.externalId,
    application: input.application,
    createDocuments: input.documents ?? [],
    tasks: [],
    waitingDocuments: {},
    submittedDocuments: {},
    corrections: [],
    settledFiles: [],
  }),
  initial: 'validating',
  states: {
    /** validateXML: structural checks before anything is created. */
    validating: {
      on: {
        VALIDATED: 'creating',
        VALIDATION_FAILED: { target: 'needsCorrection', actions: 'recordCorrections' },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
        // Nothing exists at the brokerage yet: abandoning ends the lifecycle at once.
        ABANDON: { target: 'closedAsAbandoned', actions: 'recordAbandonReason' },
      },
    },
    /** create, idempotent by external id; abandon waits until the account exists. */
    creating: {
      on: {
        CREATED: { target: 'pending', actions: 'recordAccount' },
        CREATE_REFUSED: { target: 'needsCorrection', actions: 'recordCorrections' },
        CREATE_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordCreateUnconfirmed' },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
    },
    /**
     * The outcome of a create or an update could not be established from the service's answers within
     * the bound: nothing is guessed and nothing is sent again until staff act. `retry` looks again (and
     * follows the same request); `abandon` abandons the account, or ends the application when no
     * account is known; `resubmit` (create only) declares the earlier file made no account.
     */
    unconfirmed: {
      tags: ['waitingForStaff'],
      on: {
        RETRY: [
          { guard: 'createUnconfirmed', target: 'creating', actions: 'clearUnconfirmed' },
          { guard: 'abandonUnconfirmed', target: 'abandoning', actions: 'clearUnconfirmed' },
          { guard: 'resetUnconfirmed', target: 'resetting', actions: 'clearUnconfirmed' },
          { guard: 'documentsUnconfirmed', target: 'pending.submittingDocuments', actions: 'clearUnconfirmed' },
        ],
        RESUBMIT: {
          guard: 'createUnconfirmed',
          target: 'validating',
          actions: ['settleUnconfirmedFile', 'acceptResubmission'],
        },
        ABANDON: [
          // The unconfirmed request is an AbandonAccount: follow it, never send a second one.
          { guard: 'abandonUnconfirmed', target: 'abandoning', actions: ['recordAbandonReason', 'clearUnconfirmed'] },
          {
            guard: 'hasAccount',
            target: 'abandoning',
            actions: ['recordAbandonReason', 'clearUnconfirmed', 'clearRequest'],
          },
          { target: 'closedAsAbandoned', actions: ['recordAbandonReason', 'clearUnconfirmed'] },
        ],
      },
    },
    /**
     * A step failed in a way the engine cannot mend by retrying (a document gone from the store, keys
     * wrong for longer than the configured bound, an answer of the service it cannot read, a request it
     * refuses): nothing more is sent until staff act. `retry` runs the step again (an update follows the
     * request it may have sent); `resubmit` replaces the application before it has an account;
     * `abandon` abandons the account, or ends the application when no account is known.
     */
    blocked: {
      tags: ['waitingForStaff'],
      on: {
        RETRY: [
          { guard: { type: 'blockedAt', params: 'validate' }, target: 'validating', actions: 'clearBlocked' },
          { guard: { type: 'blockedAt', params: 'create' }, target: 'creating', actions: 'clearBlocked' },
          { guard: { type: 'blockedAt', params: 'read' }, target: 'pending', actions: 'clearBlocked' },
          {
            guard: { type: 'blockedAt', params: 'DocumentSubmission' },
            target: 'pending.submittingDocuments',
            actions: 'clearBlocked',
          },
          { guard: { type: 'blockedAt', params: 'AbandonAccount' }, target: 'abandoning', actions: 'clearBlocked' },
          {
            guard: { type: 'blockedAt', params: 'ResetAbandonedAccount' },
            target: 'resetting',
            actions: 'clearBlocked',
          },
        ],
        RESUBMIT: {
          guard: 'blockedBeforeAccount',
          target: 'validating',
          actions: ['clearBlocked', 'acceptResubmission'],
        },
        ABANDON: [
          // The blocked step is an AbandonAccount: follow its request, never send a second one.
          {
            guard: { type: 'blockedAt', params: 'AbandonAccount' },
            target: 'abandoning',
            actions: ['recordAbandonReason', 'clearBlocked'],
          },
          {
            guard: 'hasAccount',
            target: 'abandoning',
            actions: ['recordAbandonReason', 'clearBlocked', 'clearRequest'],
          },
          { target: 'closedAsAbandoned', actions: ['recordAbandonReason', 'clearBlocked'] },
        ],
      },
    },
    /** Waits for staff: a corrected application, or abandonment. */
    needsCorrection: {
      tags: ['waitingForStaff'],
      on: {
        RESUBMIT: { target: 'validating', actions: 'acceptResubmission' },
        ABANDON: { target: 'closedAsAbandoned', actions: 'recordAbandonReason' },
      },
    },
    /** The account exists and is neither open nor rejected: the workflow polls it. */
    pending: {
      initial: 'deciding',
      on: {
        STATUS: { target: '.deciding', actions: 'recordStatus' },
        PROVIDE_DOCUMENTS: { target: '.deciding', actions: 'holdDocuments' },
        ABANDON: { target: 'abandoning', actions: 'recordAbandonReason' },
        // A status read or a document submission failed in a way no retry mends.
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
      states: {
        /** Reads the last status and tasks and chooses what the application waits for. */
        deciding: {
          always: [
            { guard: 'isOpen', target: '#accountApplication.open' },
            { guard: 'isRejected', target: '#accountApplication.rejected' },
            { guard: 'isClosed', target: '#accountApplication.closed' },
            { guard: 'isAbandonedAtBrokerage', target: '#accountApplication.abandoned' },
            { guard: 'hasDocumentsToSubmit', target: 'submittingDocuments' },
            { guard: 'isMissingDocuments', target: 'needsDocuments' },
            { guard: 'hasPortalTasks', target: 'awaitingClient' },
            { guard: 'isPendingApproval', target: 'awaitingApproval' },
            { target: 'tracking' },
          ],
        },
        /** Under review, or waiting for the next status: polls at the tracking interval. */
        tracking: { tags: ['polling'] },
        /** update with DocumentSubmission for the documents we hold. */
        submittingDocuments: {
          on: {
            // A poll answered while documents are being sent is stale: the next one decides.
            STATUS: { actions: 'recordStatus' },
            REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
            REQUEST_SENT: { actions: 'recordRequestSent' },
            REQUEST_UNCONFIRMED: { target: '#accountApplication.unconfirmed', actions: 'recordRequestUnconfirmed' },
            DOCUMENTS_SUBMITTED: { target: 'tracking', actions: ['recordSubmission', 'clearRequest'] },
            DOCUMENTS_REFUSED: { target: 'needsDocuments', actions: ['recordRefusal', 'clearRequest'] },
          },
        },
        /** A task wants a document we do not have (or one was rejected): waits for provideDocuments. */
        needsDocuments: { tags: ['polling', 'waitingForStaff'] },
        /** A `to complete` task is done in the hosted portal by the client or the firm. */
        awaitingClient: { tags: ['polling'] },
        /** In the approval queue: opened by the next business day. */
        awaitingApproval: { tags: ['polling'] },
      },
    },
    /** update with AbandonAccount. */
    abandoning: {
      on: {
        REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
        REQUEST_SENT: { actions: 'recordRequestSent' },
        REQUEST_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordRequestUnconfirmed' },
        ABANDON_CONFIRMED: { target: 'abandoned', actions: ['markAbandoned', 'clearRequest'] },
        ABANDON_REFUSED: { target: 'pending', actions: ['recordRefusal', 'clearRequest'] },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
    },
    /** Status A: waits for a reset until the retention period ends. */
    abandoned: {
      tags: ['waitingForStaff'],
      on: {
        RESET: 'resetting',
        RETENTION_EXPIRED: 'closedAsAbandoned',
      },
    },
    /** update with ResetAbandonedAccount. */
    resetting: {
      on: {
        REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
        REQUEST_SENT: { actions: 'recordRequestSent' },
        REQUEST_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordRequestUnconfirmed' },
        RESET_CONFIRMED: { target: 'pending.tracking', actions: 'clearRequest' },
        RESET_REFUSED: { target: 'abandoned', actions: ['recordRefusal', 'clearRequest'] },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
    },
    open: { type: 'final' },
    rejected: { type: 'final' },
    /** Status C seen before the lifecycle ended (closed at the brokerage). */
    closed: { type: 'final' },
    closedAsAbandoned: { type: 'final' },
  },
});

export type LifecycleMachine = typeof lifecycleMachine;

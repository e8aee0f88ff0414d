/**
 * The lifecycle of one account application, as a pure XState v5 statechart.
 *
 * It decides, it does not act: the `accountApplication` workflow feeds it events (results of activities, staff
 * messages, timers) through XState's pure `transition()` and runs the effect that each state names (see
 * `effects.ts`). The machine never reads a clock and starts no actors or delayed events, so its snapshot is plain
 * data that survives replay and continue-as-new. Each state's `tags` are its classes (domain/application-states.ts:
 * who moves next, whether the sweep reads it, whether deadlines apply); they take part in no transition.
 *
 * Transitions of the service's own table:
 *   a pending application --update AbandonAccount--> A            (pending.* --ABANDON--> abandoning --> abandoned)
 *   A --update ResetAbandonedAccount--> reset                      (abandoned --RESET--> resetting --> pending)
 *   N, P --approval queue processed--> O by the next business day  (pending.* --STATUS[isOpen]--> open)
 * The others are ours: validation before create, correction, document submission, portal tasks,
 * compliance rejection (status R), retention of an abandoned application.
 */
import { assertEvent, assign, setup } from 'xstate';
import { documentPlan, isPortalTask } from './tasks.js';
import type { BlockedStep, LifecycleContext, LifecycleEvent, LifecycleInput } from './types.js';
import { STATE_TAGS, type StateTag } from '../../domain/application-states.js';

function plan(context: LifecycleContext) {
  return documentPlan(context.tasks, context.waitingDocuments, context.submittedDocuments);
}

/**
 * `abandon` in `unconfirmed` or `blocked`: follows the AbandonAccount that stopped there (`following`),
 * abandons the account when one exists (a request in progress is dropped), or ends the application when
 * none does; the stop's record is cleared (`clear`).
 */
function abandonWhileStopped(
  following: 'abandonUnconfirmed' | { type: 'blockedAt'; params: 'AbandonAccount' },
  clear: 'clearUnconfirmed' | 'clearBlocked',
) {
  return [
    { guard: following, target: 'abandoning', actions: ['recordAbandonReason', clear] },
    { guard: 'hasAccount', target: 'abandoning', actions: ['recordAbandonReason', clear, 'clearRequest'] },
    { target: 'closedAsAbandoned', actions: ['recordAbandonReason', clear] },
  ] as const;
}

export const lifecycleMachine = setup({
  types: {
    context: {} as LifecycleContext,
    events: {} as LifecycleEvent,
    input: {} as LifecycleInput,
    tags: {} as StateTag,
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
      corrections: ({ event }) => {
        assertEvent(event, ['VALIDATION_FAILED', 'CREATE_REFUSED']);
        return event.errors;
      },
      settledFiles: ({ context, event }) =>
        event.type === 'CREATE_REFUSED' && event.settledFiles
          ? [...new Set([...(context.settledFiles ?? []), ...event.settledFiles])]
          : context.settledFiles,
      // A failure entry answers a create that may have been sent: it made no account.
      createMayHaveBeenSent: ({ context, event }) =>
        event.type === 'CREATE_REFUSED' ? undefined : context.createMayHaveBeenSent,
    }),
    recordCreateMayHaveBeenSent: assign({
      createMayHaveBeenSent: ({ event }) => {
        assertEvent(event, 'CREATE_MAY_HAVE_BEEN_SENT');
        return { at: event.at, reason: event.reason };
      },
    }),
    recordCreateUnconfirmed: assign({
      unconfirmed: ({ event }) => {
        assertEvent(event, 'CREATE_UNCONFIRMED');
        return { step: 'create' as const, reason: event.reason, responseFile: event.responseFile };
      },
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
      request: ({ event }) => {
        assertEvent(event, 'REQUEST_PREPARED');
        return { functionName: event.functionName, known: event.known };
      },
    }),
    recordRequestSent: assign({
      request: ({ event, context }) => {
        assertEvent(event, 'REQUEST_SENT');
        if (!context.request) return undefined;
        // Found: in doubt no more.
        const { inDoubt: _found, ...request } = context.request;
        return { ...request, responseFile: event.responseFile };
      },
    }),
    /** The request may have been received (its answer lost): every step of it only looks until the doubt ends. */
    recordRequestInDoubt: assign({
      request: ({ context }) => context.request && { ...context.request, inDoubt: true },
    }),
    recordRequestUnconfirmed: assign({
      // Looked for over the whole window: the doubt is the staff's now (their retry sends when nothing is listed).
      request: ({ event, context }) => {
        assertEvent(event, 'REQUEST_UNCONFIRMED');
        if (!event.lookedUp || !context.request) return context.request;
        const { inDoubt: _ended, ...request } = context.request;
        return request;
      },
      // The step is the request in progress, or the one named by the event when none was prepared yet
      // (its listing failed before the request was recorded).
      unconfirmed: ({ event, context }) => {
        assertEvent(event, 'REQUEST_UNCONFIRMED');
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
      blocked: ({ event }) => {
        assertEvent(event, 'BLOCKED');
        const { step, errorType, reason, since } = event;
        return { step, errorType, reason, since };
      },
    }),
    clearBlocked: assign({ blocked: () => undefined }),
    /** Staff replace the application; before an account exists they declare any create in doubt made none. */
    acceptResubmission: assign({
      application: ({ event }) => {
        assertEvent(event, 'RESUBMIT');
        return event.application;
      },
      corrections: () => [],
      createMayHaveBeenSent: () => undefined,
    }),
    recordAccount: assign(({ context, event }) => {
      assertEvent(event, 'CREATED');
      const submitted = { ...context.submittedDocuments };
      for (const document of context.createDocuments) submitted[document.formNumber] = document.sha1;
      return {
        accountId: event.accountId,
        userName: event.userName,
        submittedDocuments: submitted,
        ...(event.credentials && { credentials: event.credentials }),
      };
    }),
    recordStatus: assign(({ event }) => {
      assertEvent(event, 'STATUS');
      return { status: event.account.status, stateText: event.account.stateText, tasks: event.account.tasks };
    }),
    holdDocuments: assign({
      waitingDocuments: ({ context, event }) => {
        assertEvent(event, 'PROVIDE_DOCUMENTS');
        const waiting = { ...context.waitingDocuments };
        for (const document of event.documents) waiting[document.formNumber] = document;
        return waiting;
      },
    }),
    recordSubmission: assign(({ context, event }) => {
      assertEvent(event, 'DOCUMENTS_SUBMITTED');
      const waiting = { ...context.waitingDocuments };
      const submitted = { ...context.submittedDocuments };
      for (const document of event.documents) {
        if (waiting[document.formNumber]?.sha1 === document.sha1) delete waiting[document.formNumber];
        submitted[document.formNumber] = document.sha1;
      }
      return { waitingDocuments: waiting, submittedDocuments: submitted, lastRefusal: undefined };
    }),
    recordRefusal: assign({
      lastRefusal: ({ event }) => {
        assertEvent(event, ['DOCUMENTS_REFUSED', 'ABANDON_REFUSED', 'RESET_REFUSED']);
        return event.error;
      },
    }),
    /** The service processed AbandonAccount: the application is deleted (status A). */
    markAbandoned: assign({ status: () => 'A' }),
    recordAbandonReason: assign({
      abandonReason: ({ event }) => {
        assertEvent(event, 'ABANDON');
        return event.reason;
      },
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
      tags: STATE_TAGS.validating,
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
      tags: STATE_TAGS.creating,
      on: {
        CREATED: { target: 'pending', actions: 'recordAccount' },
        CREATE_REFUSED: { target: 'needsCorrection', actions: 'recordCorrections' },
        CREATE_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordCreateUnconfirmed' },
        // Recorded while the step looks for it: a retry, a new run or continue-as-new never sends another.
        CREATE_MAY_HAVE_BEEN_SENT: { actions: 'recordCreateMayHaveBeenSent' },
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
      tags: STATE_TAGS.unconfirmed,
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
        // The unconfirmed request is an AbandonAccount: follow it, never send a second one.
        ABANDON: abandonWhileStopped('abandonUnconfirmed', 'clearUnconfirmed'),
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
      tags: STATE_TAGS.blocked,
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
        // The blocked step is an AbandonAccount: follow its request, never send a second one.
        ABANDON: abandonWhileStopped({ type: 'blockedAt', params: 'AbandonAccount' }, 'clearBlocked'),
      },
    },
    /** Waits for staff: a corrected application, or abandonment. */
    needsCorrection: {
      tags: STATE_TAGS.needsCorrection,
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
        tracking: { tags: STATE_TAGS.tracking },
        /** update with DocumentSubmission for the documents we hold. */
        submittingDocuments: {
          tags: STATE_TAGS.submittingDocuments,
          on: {
            // A poll answered while documents are being sent is stale: the next one decides.
            STATUS: { actions: 'recordStatus' },
            REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
            REQUEST_SENT: { actions: 'recordRequestSent' },
            REQUEST_IN_DOUBT: { actions: 'recordRequestInDoubt' },
            REQUEST_UNCONFIRMED: { target: '#accountApplication.unconfirmed', actions: 'recordRequestUnconfirmed' },
            DOCUMENTS_SUBMITTED: { target: 'tracking', actions: ['recordSubmission', 'clearRequest'] },
            DOCUMENTS_REFUSED: { target: 'needsDocuments', actions: ['recordRefusal', 'clearRequest'] },
          },
        },
        /** A task wants a document we do not have (or one was rejected): waits for provideDocuments. */
        needsDocuments: { tags: STATE_TAGS.needsDocuments },
        /** A `to complete` task is done in the hosted portal by the client or the firm. */
        awaitingClient: { tags: STATE_TAGS.awaitingClient },
        /** In the approval queue: opened by the next business day. */
        awaitingApproval: { tags: STATE_TAGS.awaitingApproval },
      },
    },
    /** update with AbandonAccount. */
    abandoning: {
      tags: STATE_TAGS.abandoning,
      on: {
        REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
        REQUEST_SENT: { actions: 'recordRequestSent' },
        REQUEST_IN_DOUBT: { actions: 'recordRequestInDoubt' },
        REQUEST_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordRequestUnconfirmed' },
        ABANDON_CONFIRMED: { target: 'abandoned', actions: ['markAbandoned', 'clearRequest'] },
        ABANDON_REFUSED: { target: 'pending', actions: ['recordRefusal', 'clearRequest'] },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
    },
    /** Status A: waits for a reset until the retention period ends. */
    abandoned: {
      tags: STATE_TAGS.abandoned,
      on: { RESET: 'resetting', RETENTION_EXPIRED: 'closedAsAbandoned' },
    },
    /** update with ResetAbandonedAccount. */
    resetting: {
      tags: STATE_TAGS.resetting,
      on: {
        REQUEST_PREPARED: { actions: 'recordRequestPrepared' },
        REQUEST_SENT: { actions: 'recordRequestSent' },
        REQUEST_IN_DOUBT: { actions: 'recordRequestInDoubt' },
        REQUEST_UNCONFIRMED: { target: 'unconfirmed', actions: 'recordRequestUnconfirmed' },
        RESET_CONFIRMED: { target: 'pending.tracking', actions: 'clearRequest' },
        RESET_REFUSED: { target: 'abandoned', actions: ['recordRefusal', 'clearRequest'] },
        BLOCKED: { target: '#accountApplication.blocked', actions: 'recordBlocked' },
      },
    },
    open: { type: 'final', tags: STATE_TAGS.open },
    rejected: { type: 'final', tags: STATE_TAGS.rejected },
    /** Status C seen before the lifecycle ended (closed at the brokerage). */
    closed: { type: 'final', tags: STATE_TAGS.closed },
    closedAsAbandoned: { type: 'final', tags: STATE_TAGS.closedAsAbandoned },
  },
});

export type LifecycleMachine = typeof lifecycleMachine;

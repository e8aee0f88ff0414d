/**
 * The lifecycle's data: its input, its context (plain, serialisable: carried through continue-as-new
 * and shown by the `state` query) and the events the workflow feeds it.
 */
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
   * (`known`), its response file once the service answered, and whether it may have been received
   * without an answer (`inDoubt`: every step of it only looks, until the window ends). Kept until the request is decided, so
   * a retry after `unconfirmed` follows the same request instead of sending another.
   */
  request?: { functionName: UpdateFunction; known: string[]; responseFile?: string; inDoubt?: boolean };
  /**
   * A create may have been processed without its answer (lost in transit, or an attempt that ended
   * without one): from then on the engine only looks it up and never sends another, until staff resubmit
   * (they declare it made no account) or the service answers with a failure entry.
   */
  createMayHaveBeenSent?: { at: number; reason: string };
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
  | { type: 'CREATE_MAY_HAVE_BEEN_SENT'; at: number; reason: string }
  | { type: 'REQUEST_PREPARED'; functionName: UpdateFunction; known: string[] }
  | { type: 'REQUEST_SENT'; responseFile: string }
  | { type: 'REQUEST_IN_DOUBT' }
  /** `lookedUp`: the request in doubt was looked for over the whole window (the doubt passes to staff). */
  | { type: 'REQUEST_UNCONFIRMED'; reason: string; functionName?: UpdateFunction; lookedUp?: boolean }
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

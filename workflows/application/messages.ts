/**
 * Messages of the `accountApplication` workflow: what onboarding systems, staff and ops send it and
 * read from it. Definitions only, so the client can import them without workflow code.
 */
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { ApplicationState } from '../../domain/application-states.js';
import type { BlockedStepRecord, LifecycleOutcome, PersistedLifecycle } from '../lifecycle/index.js';
import type { DocumentRef, FormDocument } from '../../domain/documents.js';
import type { AccountSnapshot, TaskView } from '../../domain/account.js';
import type { SettingsOverrides } from './settings.js';
import type { DeadlineState, Escalation } from '../../domain/deadlines.js';

export interface ApplicationInput {
  csid: string;
  externalId: string;
  /** The application XML, in the document store. */
  application: DocumentRef;
  /** PDFs that go with create (tax form; agreements when the day's submission did not take them). */
  documents?: FormDocument[];
  settings?: SettingsOverrides;
  /** Set by the workflow itself when it continues as new. */
  carried?: CarriedState;
}

export interface TransitionRecord {
  /** Leaf state entered (`tracking`, `needsDocuments`...). */
  state: string;
  /** Event that led there. */
  event: string;
  /** Workflow time, ms since the epoch. */
  at: number;
}

export interface CarriedState {
  lifecycle: PersistedLifecycle;
  transitions: TransitionRecord[];
  lastPollAt?: number;
  runs: number;
  /** Fingerprint of the last account read (`sweep` mode; see domain/observation.ts). */
  observed?: string;
  /** A `pollNow` received and not yet served when the run continued as new: the next run reads first. */
  pollRequested?: boolean;
  /** The number of the application's last lifecycle event (events.ts): the next run goes on from it. */
  eventSeq?: number;
  /** The waiting state's entry whose deadline is watched, and its last mark told (deadlines.ts). */
  deadline?: { entry: number; markAt?: number };
  /** When the account read the application last took began (`sweep` mode; waits.ts). */
  readFrom?: number;
  /** The sweep's latest wake-up, taken or not: a run that continues as new still weighs it (waits.ts). */
  observation?: AccountObservation;
  /** When the last update the application sent (documents, abandon, reset) was decided (waits.ts). */
  updatedAt?: number;
}

/**
 * What the firm's status sweep read of an application's account, sent to the application when it
 * differs from what the application last read (signal `accountObserved`).
 */
export interface AccountObservation {
  account: AccountSnapshot;
  /** The account read (the sweep sends it since its snapshot): a wake-up for another account is ignored. */
  accountId?: string;
  /** When the sweep's reads began (ms since the epoch): an observation older than the application's wait is ignored. */
  observedAt: number;
  /** When they ended: a wake-up that differs and ended after the application's own read began makes it read again. */
  readUntil?: number;
}

/** The status sweep's wake-up: the account changed at the brokerage. Taken only while the application waits. */
export const accountObservedSignal = defineSignal<[AccountObservation]>('accountObserved');

export interface ApplicationResult {
  outcome: LifecycleOutcome;
  accountId?: string;
  status?: string;
  transitions: TransitionRecord[];
}

/** What the `state` query answers: enough for a person to see where the application stands. */
export interface ApplicationStateView {
  csid: string;
  externalId: string;
  lifecycleState: ApplicationState;
  done: boolean;
  /**
   * Which application XML the application runs on (the last resubmitted one): its SHA-1 and length, and
   * the SHA-256 of its canonical form when the client recorded one (2.0 on), so that a start with the same
   * external id tells the same application (the same bytes, or the same meaning) from a different one.
   */
  application: { sha1: string; length: number; canonicalSha256?: string };
  accountId?: string;
  userName?: string;
  /** Where the create's users and temporary passwords are kept until staff take them (`eca password`). */
  credentials?: DocumentRef;
  status?: string;
  stateText?: string;
  pendingTasks: TaskView[];
  /**
   * Form numbers of documents provided and not sent yet. A held file that is the very one the brokerage
   * rejected for its form is not among them: it is no document to send (workflows/lifecycle/tasks.ts).
   */
  waitingDocuments: string[];
  corrections: string[];
  lastRefusal?: string;
  /** The reason staff gave with `abandon`, once the application is abandoning, abandoned or closed as abandoned. */
  abandonReason?: string;
  /** What could not be confirmed and why, while the application is `unconfirmed`. */
  unconfirmed?: { step: string; reason: string; responseFile?: string };
  /**
   * A write that may have been received without an answer, until it is found or staff act: a create
   * (`resubmit` declares it made no account and sends it again) or an update request (only looked for).
   */
  inDoubt?: { step: string; since?: number; reason?: string };
  /** The step that failed in a way no retry mends, while the application is `blocked`: what failed and since when. */
  blocked?: BlockedStepRecord;
  lastPollAt?: number;
  nextPollAt?: number;
  transitions: TransitionRecord[];
  /** How many times the workflow continued as new. */
  runs: number;
  /** Staff signals received by this run, the newest last (a signal cannot answer: this is its answer). */
  staffNotices?: StaffNotice[];
  /** The deadline of the waiting state (workflows/application/deadlines.ts), while it waits in one that has one. */
  deadline?: DeadlineView;
}

/** Where a waiting application stands with its deadline (the state query, current details). */
export interface DeadlineView {
  state: DeadlineState;
  /** When the deadline falls, ms since the epoch. */
  due: number;
  /** The next reminder, if one is still to come. */
  nextReminderAt?: number;
  /** The deadline has passed. */
  overdue: boolean;
  escalation: Escalation;
}

/** A staff signal as it was taken: accepted, refused (why), or of a name the workflow does not know. */
export interface StaffNotice {
  /** Workflow time, ms since the epoch. */
  at: number;
  /** The signal's name. */
  name: string;
  outcome: 'accepted' | 'refused' | 'unknown';
  detail?: string;
}

/**
 * A form whose provided PDF is the very file the brokerage rejected: the details of the `DocumentRejected`
 * failure that refuses `provideDocuments` (its message names the forms alone; the brokerage's words travel
 * here, in a payload the codec encrypts).
 */
export interface RejectedFile {
  formNumber: string;
  formName: string;
  /** The brokerage's reason for the rejection, as the task gives it. */
  reason?: string;
}

/** The failure type that refuses a provided PDF that is the very file the brokerage rejected. */
export const DOCUMENT_REJECTED = 'DocumentRejected';

export interface AbandonRequest {
  reason?: string;
}

/**
 * The input of a staff message that takes no options (`reset`, `retry`, `pollNow`): `{}`. Every staff
 * message carries an input, so that a client's payload codec always has something to encrypt: in strict
 * codec mode a message without one, or with a plaintext one, is refused (staff-input.ts).
 */
export type EmptyRequest = Record<string, never>;

export const stateQuery = defineQuery<ApplicationStateView>('state');
export const pollNowSignal = defineSignal<[EmptyRequest]>('pollNow');
/** The staff messages that need no document also as signals (see staff-signals.ts); updates answer, signals do not. */
export const abandonSignal = defineSignal<[AbandonRequest]>('abandon');
export const resetSignal = defineSignal<[EmptyRequest]>('reset');
export const retrySignal = defineSignal<[EmptyRequest]>('retry');
export const abandonUpdate = defineUpdate<ApplicationStateView, [AbandonRequest]>('abandon');
export const resubmitUpdate = defineUpdate<ApplicationStateView, [DocumentRef]>('resubmit');
export const provideDocumentsUpdate = defineUpdate<ApplicationStateView, [FormDocument[]]>('provideDocuments');
export const resetUpdate = defineUpdate<ApplicationStateView, [EmptyRequest]>('reset');
/**
 * Looks again at a create or update whose outcome could not be established (state `unconfirmed`), or
 * runs a step that stopped in `blocked` again once its cause is mended.
 */
export const retryUpdate = defineUpdate<ApplicationStateView, [EmptyRequest]>('retry');

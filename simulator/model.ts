/** The simulated brokerage's records. Plain JSON-compatible data, so that a snapshot is `JSON.stringify`. */
import type { JsonWebKey } from 'node:crypto';
import type { ClockSnapshot } from './clock.js';

export type AccountStatus = 'A' | 'N' | 'O' | 'C' | 'P' | 'R';
export type TaskAction = 'to send' | 'to complete' | 'to sign';
export type RequestOutcome = 'PROCESSED' | 'REJECTED';

/**
 * Fully disclosed and advisor firms share one availability column of the update function table,
 * non-disclosed firms have the other.
 */
export type FirmType = 'advisor' | 'fully-disclosed' | 'non-disclosed';

/**
 * What create does with an external id it already made an account for. The spec does not say, so the default is
 * the hardest answer for the caller, a second account; `already-processed` answers as the brokerage's own files
 * show: a response file whose application has Status `Already processed` and names no new account.
 */
export const REPEATED_EXTERNAL_ID_ANSWERS = ['second-account', 'already-processed'] as const;
export type RepeatedExternalId = (typeof REPEATED_EXTERNAL_ID_ANSWERS)[number];

export interface FirmRecord {
  csid: string;
  /** Used in file names, so it carries no spaces. */
  name: string;
  masterAccount: string;
  firmType: FirmType;
  publicKey: string;
  /** IPs from which SSO URLs may be opened in QA. */
  qaWhitelist: string[];
  /**
   * Every submitDocuments the simulator processed: simulated day, report file name and the forms it accepted
   * (used by that day's creates of the customers rule 4 covers; absent in state written before they were kept).
   */
  documentSubmissions?: Array<{
    day: string;
    reportFile: string;
    accepted?: Array<{ formNumber: string; fileName: string }>;
  }>;
}

export interface ReceivedFile {
  fileName: string;
  sha1: string;
  length: number;
  receivedAt: number;
}

export interface TaskRecord {
  formNumber: string;
  formName: string;
  action: TaskAction;
  isRequiredForTrading: boolean;
  isOnlineTask: boolean;
  isRequiredForApproval: boolean;
  taskNumber: number;
  /** Pending-task state text; kept for completed tasks too, for the record. */
  state: string;
  complete: boolean;
  completedAt?: number;
  /** When the next automatic step of this task happens (review decision, portal completion). */
  dueAt?: number;
  /** The scenario rejects the next received document of this task with this reason. */
  rejectNextWith?: string;
  files: ReceivedFile[];
}

/**
 * Where an application stands. `new` and `tasks` are the waiting phases before review; the account
 * status and state text are derived from the phase and the tasks.
 */
export type Phase = 'new' | 'tasks' | 'review' | 'approval' | 'open' | 'rejected' | 'abandoned' | 'closed';

export interface AccountRecord {
  accountId: string;
  csid: string;
  externalId: string;
  scenario: string;
  customerType: string;
  userName: string;
  createdAt: number;
  batchId: number;
  requestFileName: string;
  responseFileName: string;
  phase: Phase;
  phaseSince: number;
  /** Derived from phase and tasks by the lifecycle, stored so that reads cost nothing. */
  status: AccountStatus;
  stateText?: string;
  /** When the phase itself moves on; undefined while waiting on tasks or in a final phase. */
  phaseDueAt?: number;
  /** Earliest time anything about this account changes by itself: lets reads skip settled accounts. */
  nextChangeAt?: number;
  openedAt?: number;
  /** The phase to return to is always the scenario's start; this counts resets for the `stalled` scenario. */
  resets: number;
  tasks: TaskRecord[];
  languages?: { lang1: string; lang2?: string };
  /**
   * The user has not yet replaced the password assigned at creation (spec, Authentication 7: on first access by
   * SSO the user enters it and sets a permanent one); cleared only when the portal's first-access step is passed.
   */
  temporaryPasswordPending: boolean;
  /** The password assigned at creation, as a digest (see portal-passwords.ts); gone once it is replaced. */
  temporaryPasswordDigest?: string;
  /** The user's permanent password, as a digest: asked again for withdrawal pages (Authentication 8). */
  passwordDigest?: string;
  /** File names of the PDFs the create archive carried (tax form; agreements when not submitted that day). */
  createAttachments?: string[];
  /** Made through the Web API (`POST /gw/api/v1/accounts`); the XML service's create when absent. */
  via?: 'webapi';
}

/** A create result kept per external id for getResponseFile. */
export interface ResponseFileRecord {
  csid: string;
  externalId: string;
  /** The account the application made; absent when the application failed (see `error`). */
  accountId?: string;
  /** Why the application made no account. */
  error?: string;
  name: string;
  createdAt: number;
  /** Plain response XML; encrypted to the firm on each read. */
  xml: string;
}

export interface UpdateRequestRecord {
  requestId: string;
  csid: string;
  accountId?: string;
  functionName: string;
  submittedAt: number;
  decidedAt: number;
  outcome: RequestOutcome;
  error?: string;
  fileName: string;
  /** Names of the files in the firm's archive (its request XML, its PDFs), listed after `fileName`. */
  archiveFiles?: string[];
  /** Received through the Web API (`PATCH /gw/api/v1/accounts`); the XML service's update when absent. */
  via?: 'webapi';
}

export interface ArchivedForm {
  formNumber: string;
  fileName: string;
  sha1: string;
  length: number;
  archivedAt: number;
}

export interface Counters {
  account: number;
  batch: number;
  request: number;
  fileSequence: number;
  master: number;
}

export interface Snapshot {
  version: 1;
  clock: ClockSnapshot;
  counters: Counters;
  firms: FirmRecord[];
  accounts: AccountRecord[];
  responseFiles: ResponseFileRecord[];
  requests: UpdateRequestRecord[];
  forms: ArchivedForm[];
  scenarioAssignments: Record<string, string>;
  /** The Web API's registered clients (simulator/webapi/authority.ts); absent in state written before. */
  webapiClients?: Array<{
    clientId: string;
    csid: string;
    kid: string;
    publicKey: string | JsonWebKey;
    scopes?: string[];
  }>;
}

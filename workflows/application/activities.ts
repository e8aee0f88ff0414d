/**
 * The activities the application workflow calls, as types only: the workflow imports this file for
 * `proxyActivities`, the worker supplies an implementation (`createApplicationActivities`).
 * Every input and output is a reference or a short, non-personal text: never XML, PDFs or passwords.
 */
import type { DocumentRef, FormDocument } from '../../domain/documents.js';
import type { AccountSnapshot } from '../../domain/account.js';
import type { EventDraft, NewEvent } from '../../domain/events.js';
import type { DocumentRetentionInput } from '../retention/messages.js';
import type { DeadlinePolicy } from '../../domain/deadlines.js';
import type { Protocol } from '../../domain/protocols.js';

export interface ApplicationRef {
  csid: string;
  externalId: string;
}

export interface AccountRef {
  csid: string;
  accountId: string;
}

/**
 * A request's reads with the protocol it was sent on (maintenance: the protocol of its body); without
 * `protocol`, the application's (activities/protocol-router.ts).
 */
export type RequestRef = AccountRef & { protocol?: Protocol };

/**
 * Events the workflow made and hands to the activity it schedules next, which writes them to the event log
 * before anything else (workflows/application/events.ts): they are in history, as the activity's input,
 * before they are written, and they cost no activity of their own.
 */
export interface RidingEvents {
  events?: NewEvent[];
}

/**
 * Whether the activity wrote the events it carried. A step never fails for its events: when the event log
 * is away it goes on, says so, and the workflow writes them alone (retried until the log is back).
 */
export interface RideReport {
  eventsWritten?: boolean;
}

/**
 * The event of a create's success, numbered `seq`, as the workflow will make it: the activity writes it
 * (with the account id and its own time) once it has the account, and answers it in `events`.
 */
export interface CreatedEvent extends EventDraft {
  /** The application's key and the event's number (NewEvent). */
  application: string;
  seq: number;
}

export type ValidationOutcome = { valid: true; batchId?: string } | { valid: false; errors: string[] };

export type CreateOutcome =
  | {
      created: true;
      accountId: string;
      userName?: string;
      /** Set when the account was found by external id instead of created by this call. */
      recovered: boolean;
      /** The response file name (getResponseFile `name`) the account was matched on. */
      responseFile?: string;
      /** The decrypted response file, in the document store (it may hold a temporary password). */
      responseRef?: DocumentRef;
      /** File names of the PDFs the create archive carried (forms, never personal data). */
      attachedFiles?: string[];
      /** The `created` event as the event log holds it, when the input asked for it (`created`). */
      events?: NewEvent[];
    }
  | {
      created: false;
      errors: string[];
      /**
       * Response files of this external id that made no account (getResponseFile failure entries):
       * a resubmitted application may be created again despite them.
       */
      settledFiles?: string[];
    }
  | {
      created: false;
      /**
       * A processed response file exists for the external id, but no account could be matched to it
       * (getAccountStatus over the creation days + getFileDetails). The application is never created again.
       */
      unconfirmed: { responseFile: string; reason: string };
    }
  | {
      created: false;
      /**
       * Whether the service processed a create is not known: its answer was lost (`sentAt`: when it was
       * sent), or an earlier attempt may have sent one, and getResponseFile lists nothing for the external id
       * yet. Nothing is sent again: the workflow looks again (`lookOnly`) until its window ends.
       */
      unknown: { reason: string; sentAt?: number };
    };

/** The staff-visible steps of an update that the application workflow confirms. */
export type ApplicationUpdateFunction = 'AbandonAccount' | 'ResetAbandonedAccount' | 'DocumentSubmission';

/**
 * A request sent with update: accepted for processing or refused at once. `responseFile` (the update's
 * `fileData.name`) is what getAmRequestStatus lists the request under.
 */
export type UpdateOutcome =
  /**
   * Filed: under `responseFile` when known. `inEffect`: no listing names the request, but its effect shows in
   * spec fields (activities/request-status.ts confirmedByEffect), so it is done and never sent again.
   */
  | { accepted: true; responseFile?: string; recovered?: boolean; inEffect?: boolean }
  | { accepted: false; error: string }
  /**
   * Whether the service received the request is not known (its answer was lost, or an earlier attempt may
   * have sent it) and getAmRequestStatus lists no new file for it yet: nothing is sent again.
   */
  | { accepted: false; unknown: string };

/** How the service decided a request sent with update (getAmRequestStatus). */
export type RequestOutcome =
  | { decided: true; processed: true }
  | { decided: true; processed: false; error: string }
  | { decided: false; status: string };

export interface ApplicationActivities {
  validateApplication(
    input: ApplicationRef & RidingEvents & { application: DocumentRef },
  ): Promise<ValidationOutcome & RideReport>;
  /**
   * Idempotent by external id: before every attempt, getResponseFile; a processed file not in
   * `settledFiles` means the application is never created again, only its account looked up.
   */
  createAccount(
    input: ApplicationRef &
      RidingEvents & {
        application: DocumentRef;
        documents: FormDocument[];
        settledFiles?: string[];
        /** An earlier create may have been processed: look it up, never send (answers `unknown` when not listed). */
        lookOnly?: boolean;
        /** The event of the account's creation, written by the activity once it has the account (activities/event-riders.ts). */
        created?: CreatedEvent;
      },
  ): Promise<CreateOutcome & RideReport>;
  /** Status and pending tasks; concurrent reads are merged into one call per CSID. */
  readAccount(input: AccountRef): Promise<AccountSnapshot>;
  /**
   * The file names getAmRequestStatus lists for the account now: taken before an update is sent. A
   * per-account error entry fails with the non-retryable `RequestListingRefused` (it would hide requests).
   */
  listAccountRequests(input: RequestRef): Promise<string[]>;
  /**
   * Sends one update function for the account, never twice (activities/write-attempt.ts). First it looks
   * for the request an earlier attempt made (a file getAmRequestStatus lists that is not in `known`) when
   * an earlier activity attempt may have sent it, when staff retry a step that may have sent it
   * (`mayHaveSent`), or when the workflow only looks (`lookOnly`, after an unknown outcome). Nothing
   * listed: `lookOnly` and a retried attempt without proof that nothing was sent answer `unknown`; a staff
   * retry sends. A per-account error in that listing fails with the non-retryable `RequestListingRefused`.
   */
  sendApplicationUpdate(
    input: AccountRef & {
      functionName: ApplicationUpdateFunction;
      known: string[];
      documents?: FormDocument[];
      mayHaveSent?: boolean;
      lookOnly?: boolean;
    },
  ): Promise<UpdateOutcome>;
  /**
   * One read of getAmRequestStatus by account, matched on the update's response file name. Not decided
   * there, an AbandonAccount or ResetAbandonedAccount (`functionName`) is confirmed by getAccountStatus `status`,
   * a DocumentSubmission of `forms` by the pending tasks of those forms (activities/request-status.ts).
   */
  readRequestByFile(
    input: RequestRef & { responseFile: string; functionName?: ApplicationUpdateFunction; forms?: string[] },
  ): Promise<RequestOutcome>;
}

/** The application's lifecycle events, written to the event log (activities/events.ts). */
export interface EventActivities {
  /** Appends events, leaving those the log already holds (same application and number). */
  recordEvents(input: { events: NewEvent[] }): Promise<{ written: number }>;
  /**
   * The last activity of a finished application: writes its last events, then starts the `documentRetention`
   * workflow (`retention`), an already started one left as it is.
   */
  finishApplication(input: {
    events: NewEvent[];
    retention?: { workflowId: string; taskQueue: string; input: DocumentRetentionInput };
  }): Promise<{ written: number; retention?: 'started' | 'already started' }>;
}

/** The firm's deadline policy, its own entries over the defaults (activities/deadline-policies.ts). */
export interface DeadlineActivities {
  readDeadlinePolicy(input: { csid: string }): Promise<DeadlinePolicy>;
}

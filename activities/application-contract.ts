/**
 * The activities the application workflow calls, as types only: the workflow imports this file for
 * `proxyActivities`, the worker supplies an implementation (`createApplicationActivities`).
 * Every input and output is a reference or a short, non-personal text: never XML, PDFs or passwords.
 */
import type { AccountSnapshot, DocumentRef, FormDocument } from '../workflows/lifecycle/types.js';

export interface ApplicationRef {
  csid: string;
  externalId: string;
}

export interface AccountRef {
  csid: string;
  accountId: string;
}

export type ValidationOutcome = { valid: true; batchId?: string } | { valid: false; errors: string[] };

export type CreateOutcome =
  | {
      created: true;
      accountId: string;
      userName?: string;
      /** Set when the account was found by external id instead of created by this call. */
      recovered: boolean;
      /** The decrypted response file, in the document store (it may hold a temporary password). */
      responseRef?: DocumentRef;
      /** File names of the PDFs the create archive carried (forms, never personal data). */
      attachedFiles?: string[];
    }
  | { created: false; errors: string[] };

/** A request sent with update: accepted for processing (request ids to follow) or refused at once. */
export type UpdateOutcome =
  { accepted: true; requestIds: string[]; responseFile?: string } | { accepted: false; error: string };

/** How the service decided a request sent with update (getAmRequestStatus). */
export type RequestOutcome =
  | { decided: true; processed: true }
  | { decided: true; processed: false; error: string }
  | { decided: false; status: string };

export interface ApplicationActivities {
  validateApplication(input: ApplicationRef & { application: DocumentRef }): Promise<ValidationOutcome>;
  /** Idempotent by external id: looks the application up before every attempt. */
  createAccount(
    input: ApplicationRef & { application: DocumentRef; documents: FormDocument[] },
  ): Promise<CreateOutcome>;
  /** Status and pending tasks; concurrent reads are merged into one call per CSID. */
  readAccount(input: AccountRef): Promise<AccountSnapshot>;
  submitAccountDocuments(input: AccountRef & { documents: FormDocument[] }): Promise<UpdateOutcome>;
  abandonAccount(input: AccountRef): Promise<UpdateOutcome>;
  resetAccount(input: AccountRef): Promise<UpdateOutcome>;
  /** One read of a request's status (getAmRequestStatus by request_id); the workflow polls until decided. */
  readUpdateRequest(input: { csid: string; requestId: string }): Promise<RequestOutcome>;
}

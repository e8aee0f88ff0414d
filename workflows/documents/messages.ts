/**
 * The daily document submission: ids, inputs and results of `dailyDocuments` (one workflow per firm
 * and day) and `dailyDocumentsTrigger` (what the firm's Temporal Schedule starts). Definitions only,
 * so the client and the activities can import them without workflow code.
 */
import { defineQuery } from '@temporalio/workflow';

/** The spec's grace period after a form is updated upstream: 7 calendar days. */
export const GRACE_PERIOD_DAYS = 7;

export interface DailyDocumentsInput {
  csid: string;
  /** Directory with `forms.json` and the firm's PDFs, readable by the workers. */
  formsDir: string;
  /** IANA time zone of the firm's day (the schedule's); UTC when not given. */
  timeZone?: string;
  /** `yyyy-mm-dd`; the trigger sets it, a manual start may leave it to the workflow's start time. */
  day?: string;
}

/**
 * `none`: every form accepted. `checksum-mismatch`: the brokerage's archived form differs from ours
 * (it changed upstream or ours was altered): replace it within the grace period. `refused`: the
 * submission or a form was refused for another reason. `not-submitted`: nothing was sent today.
 * `unconfirmed`: the answer was lost and the spec offers no look-up, so it was not sent again; today's
 * creates carry every PDF.
 */
export type DocumentsAlert = 'none' | 'checksum-mismatch' | 'refused' | 'not-submitted' | 'unconfirmed';

export interface FormResult {
  formNumber: string;
  fileName: string;
  sha1: string;
  /** `Accepted`, or the reason the brokerage gave. */
  status: string;
  accepted: boolean;
  /** The form's SHA-1 on the previous recorded day, when the file changed since. */
  changedFrom?: string;
}

/** A form to replace: the brokerage reported a different SHA-1 for it. */
export interface FormReplacement {
  formNumber: string;
  fileName: string;
  /** SHA-1 the brokerage archived, when the report gives it. */
  stored?: string;
  /** SHA-1 we sent. */
  received: string;
  /** First day the mismatch was reported (carried from earlier days' records). */
  since: string;
  /** Last day of the grace period: `since` + 7 calendar days. */
  replaceBy: string;
}

export interface DailyDocumentsResult {
  csid: string;
  day: string;
  timeZone: string;
  /** The brokerage processed the submission (a report came back). */
  submitted: boolean;
  /** Every agreement and disclosure was accepted: the day's applications carry only their tax forms. */
  accepted: boolean;
  alert: DocumentsAlert;
  /** Name of the brokerage's report file. */
  reportFile?: string;
  /** Why nothing was processed, when `submitted` is false. */
  error?: string;
  /** Agreements and disclosures sent (tax forms never are). */
  forms: FormResult[];
  /** Forms that must be replaced, and by when. */
  replacements: FormReplacement[];
}

export interface DailyDocumentsTriggerResult {
  day: string;
  workflowId: string;
  /** False when the day's workflow had already run (a second firing of the schedule on one day). */
  ran: boolean;
  result?: DailyDocumentsResult;
}

/** Where the day's workflow stands (also rendered as its current details). */
export interface DailyDocumentsView {
  csid: string;
  day?: string;
  step: 'gathering' | 'submitting' | 'recording' | 'done';
  result?: DailyDocumentsResult;
}

export const dailyDocumentsStateQuery = defineQuery<DailyDocumentsView>('dailyDocumentsState');

/**
 * What the engine reads of an account at the brokerage, normalised from getAccountStatus and
 * getPendingTasks: the shape the lifecycle, the status sweep and the client's views share.
 */

/** A pending task as the lifecycle needs it (normalised from getPendingTasks). */
export interface TaskView {
  formNumber: string;
  formName: string;
  /** `to send`, `to complete`, `to sign`, or an unknown value kept as sent. */
  action: string;
  /** Normalised state: `To Be Sent`, `To Be Signed`, `To Be Submitted`, `To Be Completed`, `Received- Being Processed`, `Rejected`, or unknown. */
  state?: string;
  /** The reason when the state is `Rejected <reason>`. */
  reason?: string;
  isRequiredForApproval?: boolean;
  isOnlineTask?: boolean;
  /**
   * Where the Web API tells more: the task's page (an online task's form, an identity verification) for the
   * account holder, shown as sent and never followed by the engine; it decides nothing, so it is not part of
   * an observation's fingerprint (observation.ts).
   */
  url?: string;
  /** Until when that page works (an identity verification's expiry), as the Web API sent it. */
  urlExpiresAt?: string;
}

/**
 * An account's status as the brokerage sends it, and as applications are listed by it: one capital letter.
 * The XML service sends A N O C P R; the Web API's document lists 14 letters and leaves the letter open.
 */
export const ACCOUNT_STATUS_LETTER = /^[A-Z]$/;
export const ACCOUNT_STATUS_LETTER_RULE =
  'one capital letter, as the brokerage sends it: A N O C P R, and on the Web API also E F I J L M Q W';

/** What one poll of the service says about an account. */
export interface AccountSnapshot {
  /** A status code (A N O C P R), or an unknown value kept as the service sent it. */
  status: string;
  /** Application state text (`Incomplete Application`, `Documents Required`, `Under Review`, `Pending Approval`). */
  stateText?: string;
  /**
   * Not filled any more: getAccountStatus `description` is the wording of the status, which decides
   * nothing (activities/status.ts). Reads recorded in histories before hold it, and
   * observationFingerprint still hashes it so that their replays compute what they computed.
   */
  description?: string;
  tasks: TaskView[];
}

/**
 * The data the application lifecycle works on. Plain, serialisable shapes: they travel through
 * workflow history, continue-as-new and queries, so they never hold documents or personal data,
 * only references to them.
 */

/** A file kept in the document store, named by content: the history carries this, never the bytes. */
export interface DocumentRef {
  /** SHA-1 (lower-case hex) of the content. */
  sha1: string;
  /** Length in bytes. */
  length: number;
  /** Opaque store reference (for the filesystem store, the SHA-1 path). */
  ref: string;
}

/** The largest PDF the engine takes: checked by the client before storing and by the workflow's validators. */
export const MAX_DOCUMENT_BYTES = 20 * 1024 * 1024;

/** A PDF's name in the archive and the request XML: a plain name ending in .pdf. */
export const PDF_FILE_NAME = /^[\w.() -]+\.pdf$/i;

/** A PDF for a form of the brokerage: what `provideDocuments` sends and what submission attaches. */
export interface FormDocument extends DocumentRef {
  formNumber: string;
  fileName: string;
}

/** Account status codes of the service. */
export type AccountStatusCode = 'A' | 'N' | 'O' | 'C' | 'P' | 'R';

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
}

/** What one poll of the service says about an account. */
export interface AccountSnapshot {
  /** A status code (A N O C P R), or an unknown value kept as the service sent it. */
  status: string;
  /** Application state text (`Incomplete Application`, `Documents Required`, `Under Review`, `Pending Approval`). */
  stateText?: string;
  description?: string;
  tasks: TaskView[];
}

/**
 * Documents as the engine passes them around: references into the document store (never the bytes),
 * shared by the client, the workflows, the activities and the store. Plain, serialisable shapes: they
 * travel through workflow history, continue-as-new and queries.
 */

/** A file kept in the document store, named by content: the history carries this, never the bytes. */
export interface DocumentRef {
  /** SHA-1 (lower-case hex) of the content. */
  sha1: string;
  /** Length in bytes. */
  length: number;
  /** Opaque store reference (for the filesystem store, the SHA-1 path). */
  ref: string;
  /**
   * An application XML's only: SHA-256 (lower-case hex) of its canonical form (client/canonical-xml.ts), which
   * tells the same application written differently from another. Absent on PDFs.
   */
  canonicalSha256?: string;
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

/** What releasing an owner's documents did (the store's `release`, the retention workflow's activity). */
export interface ReleaseReport {
  /** Documents deleted: no other owner holds them. */
  deleted: number;
  /** Documents another owner still holds, or stored without an owner too. */
  kept: number;
}

/** What the brokerage's report of a day's submission says of one form. */
export interface ReportedForm {
  formNumber: string;
  fileName: string;
  status: string;
  accepted: boolean;
  checksumMismatch?: { stored: string; received: string };
}

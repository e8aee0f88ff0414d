import type { FormDocument } from '../../domain/documents.js';
import type { TaskView } from '../../domain/account.js';

/** Task states that ask for a document sent with update (DocumentSubmission). */
const DOCUMENT_STATES = new Set(['To Be Sent', 'To Be Signed', 'To Be Submitted']);
const DOCUMENT_ACTIONS = new Set(['to send', 'to sign']);

export function isRejected(task: TaskView): boolean {
  return task.state === 'Rejected';
}

export function isUnderReview(task: TaskView): boolean {
  return task.state === 'Received- Being Processed';
}

/** The task wants a document from us: `to send` / `to sign`, or one of the "to be sent" states, or a rejected document. */
export function wantsDocument(task: TaskView): boolean {
  if (isUnderReview(task)) return false;
  if (isRejected(task)) return true;
  if (task.state !== undefined && DOCUMENT_STATES.has(task.state)) return true;
  return task.state === undefined && DOCUMENT_ACTIONS.has(task.action);
}

/** The task is done in the hosted portal by the client or the firm. */
export function isPortalTask(task: TaskView): boolean {
  return !isUnderReview(task) && (task.action === 'to complete' || task.state === 'To Be Completed');
}

/**
 * Whether approval waits for the task. Spec, pending task: "isRequiredForApproval | boolean | true: the account
 * is not approved until the task is done". The field may be absent from a response; absent is read as required
 * (the conservative reading: an application never stops waiting for a document approval might need). Only an
 * explicit false releases the task.
 */
export function blocksApproval(task: TaskView): boolean {
  return task.isRequiredForApproval !== false;
}

/**
 * The document is the very file the brokerage rejected for the task: the task is rejected and the document's
 * SHA-1 is the one last sent for its form. Sent again, it would be rejected again: it is neither submitted
 * nor counted as provided, and staff are refused it (`provideDocuments`).
 */
export function isRejectedFile(
  task: TaskView,
  document: Pick<FormDocument, 'formNumber' | 'sha1'>,
  submitted: Readonly<Record<string, string>>,
): boolean {
  return isRejected(task) && task.formNumber === document.formNumber && submitted[task.formNumber] === document.sha1;
}

/**
 * Documents we hold for the tasks that want one. A task counts as served when a document for its form
 * is waiting to be sent, or when we already sent one and the brokerage has not rejected it (its task
 * list may lag behind our submission by a poll). Only a task that blocks approval ({@link blocksApproval})
 * is `missing` (makes the application wait for documents); a document held for any wanting task,
 * required for approval or not, is still submitted.
 */
export function documentPlan(
  tasks: readonly TaskView[],
  waiting: Readonly<Record<string, FormDocument>>,
  submitted: Readonly<Record<string, string>>,
): { toSubmit: FormDocument[]; missing: TaskView[] } {
  const toSubmit: FormDocument[] = [];
  const missing: TaskView[] = [];
  for (const task of tasks.filter(wantsDocument)) {
    const document = waiting[task.formNumber];
    if (document && !isRejectedFile(task, document, submitted)) toSubmit.push(document);
    else if (blocksApproval(task) && (submitted[task.formNumber] === undefined || isRejected(task))) {
      missing.push(task);
    }
  }
  return { toSubmit, missing };
}

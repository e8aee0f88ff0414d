/**
 * The documents an application waits for, by form, derived from what its state view already carries: the
 * brokerage's pending tasks (getPendingTasks, spec "Pending task") and the forms whose PDF the engine holds
 * and has not sent yet. A client reads what to provide from it without reading task states itself.
 *
 * Which tasks are documents is the lifecycle's own rule (workflows/lifecycle/tasks.ts `wantsDocument`):
 * `to send` / `to sign` (a PDF sent with update, DocumentSubmission), the "to be sent" states, a rejected
 * document. A `to complete` task (`To Be Completed`: done in the hosted portal by the client or the firm) is
 * no document; a task `Received- Being Processed` is one the brokerage has (under review).
 */
import type { TaskView } from '../domain/account.js';
import { blocksApproval, isRejected, isUnderReview, wantsDocument } from '../workflows/lifecycle/tasks.js';

/** Where a document stands: asked for, held to send, with the brokerage, or rejected by it. */
export const APPLICATION_DOCUMENT_STATES = ['requested', 'provided', 'submitted', 'rejected'] as const;
export type DocumentState = (typeof APPLICATION_DOCUMENT_STATES)[number];

export interface ApplicationDocument {
  formNumber: string;
  formName: string;
  /** The task's action as the brokerage lists it (`to send`, `to sign`). */
  action: string;
  state: DocumentState;
  /** The brokerage's reason, when it rejected the form's last document (kept while a new one waits to be sent). */
  rejectionReason?: string;
  /** A PDF for the form is in hand: held to send (`provided`) or with the brokerage (`submitted`). */
  provided: boolean;
  /** The account is not approved until the task is done (absent in the task: read as required). */
  requiredForApproval: boolean;
}

/** A task the brokerage has a document for, under review: a document task unless done in the portal. */
const isSubmitted = (task: TaskView) => isUnderReview(task) && task.action !== 'to complete';

function stateOf(task: TaskView, held: boolean): DocumentState {
  if (isSubmitted(task)) return 'submitted';
  if (held) return 'provided';
  return isRejected(task) ? 'rejected' : 'requested';
}

/**
 * The application's documents, one per document task in the brokerage's order. The task list may lag behind
 * a submission by one status read: a form just sent can show as `requested` until the next read.
 */
export function applicationDocuments(view: {
  pendingTasks: readonly TaskView[];
  waitingDocuments: readonly string[];
}): ApplicationDocument[] {
  const waiting = new Set(view.waitingDocuments);
  return view.pendingTasks
    .filter((task) => wantsDocument(task) || isSubmitted(task))
    .map((task) => {
      const state = stateOf(task, waiting.has(task.formNumber));
      return {
        formNumber: task.formNumber,
        formName: task.formName,
        action: task.action,
        state,
        ...(isRejected(task) && task.reason !== undefined && { rejectionReason: task.reason }),
        provided: state === 'provided' || state === 'submitted',
        requiredForApproval: blocksApproval(task),
      };
    });
}

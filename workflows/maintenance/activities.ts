/**
 * The activity of the account maintenance workflow, as types only (the status reads reuse the
 * application activities' `readUpdateRequest`).
 */
import type { DocumentRef } from '../../domain/documents.js';
import type { MaintenanceAttachment } from './messages.js';
import type { UpdateOutcome } from '../application/activities.js';

export interface UpdateFunctionRequest {
  csid: string;
  accountId: string;
  functionName: string;
  /** The function element's content, an XML fragment in the document store. */
  body?: DocumentRef;
  attributes?: Record<string, string>;
  attachments: MaintenanceAttachment[];
  /**
   * The file names getAmRequestStatus listed for the account before the first attempt: a retry that
   * finds another file adopts it as the earlier attempt's request instead of sending again. Absent in
   * histories recorded before; such a retry sends again.
   */
  known?: string[];
}

export interface MaintenanceActivities {
  /**
   * Wraps the body in the update request XML and sends it with its attachments. A retry first looks
   * for the request an earlier attempt may have made (a file getAmRequestStatus lists for the account
   * that is not in `known`), so that an answer lost in transit does not send the function twice.
   */
  sendUpdateFunction(input: UpdateFunctionRequest): Promise<UpdateOutcome & { recovered?: boolean }>;
}

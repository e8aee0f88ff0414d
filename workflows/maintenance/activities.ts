/**
 * The activity of the account maintenance workflow, as types only (the status reads reuse the
 * application activities' `listAccountRequests` and `readRequestByFile`).
 */
import type { DocumentRef } from '../../domain/documents.js';
import type { MaintenanceAttachment } from './messages.js';
import type { UpdateOutcome } from '../application/activities.js';
import type { Protocol } from '../../domain/protocols.js';

export interface UpdateFunctionRequest {
  csid: string;
  accountId: string;
  functionName: string;
  /** The protocol: the XML service (the default) or the Web API, where `body` is the member's JSON. */
  protocol?: Protocol;
  /** The function element's content, an XML fragment in the document store. */
  body?: DocumentRef;
  attributes?: Record<string, string>;
  attachments: MaintenanceAttachment[];
  /**
   * The file names getAmRequestStatus listed for the account before the first attempt: a retry that
   * finds another file adopts it as the earlier attempt's request instead of sending again.
   */
  known: string[];
  /** An earlier send may have been received (its outcome unknown): look for it, never send (activities/write-attempt.ts). */
  lookOnly?: boolean;
}

export interface MaintenanceActivities {
  /**
   * Wraps the body in the update request XML and sends it with its attachments, never twice: an attempt
   * after one that may have sent it (and `lookOnly`) looks for that request (a response file
   * getAmRequestStatus lists for the account that is not in `known`) and answers `unknown` when none is
   * listed yet.
   */
  sendUpdateFunction(input: UpdateFunctionRequest): Promise<UpdateOutcome & { recovered?: boolean }>;
}

/**
 * The engine's workflow types, ids and task queue: the names every tool (client, workers, activities,
 * the Temporal UI's searches) finds a workflow by. Plain values, safe in the workflow sandbox.
 */

/** The task queue the engine's workers poll unless configured otherwise. */
export const DEFAULT_TASK_QUEUE = 'eca-onboarding';

export const ACCOUNT_APPLICATION_WORKFLOW = 'accountApplication';
export const ACCOUNT_MAINTENANCE_WORKFLOW = 'accountMaintenance';
export const DAILY_DOCUMENTS_WORKFLOW = 'dailyDocuments';
export const DAILY_DOCUMENTS_TRIGGER_WORKFLOW = 'dailyDocumentsTrigger';
export const DOCUMENT_RETENTION_WORKFLOW = 'documentRetention';
export const FIRM_STATUS_SWEEP_WORKFLOW = 'firmStatusSweep';
export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDelivery';

/** `application-<CSID>-<externalId>`: one workflow per application, found by every tool. */
export function applicationWorkflowId(csid: string, externalId: string): string {
  return `application-${csid}-${externalId}`;
}

/** `documents-retention-<CSID>-<externalId>`: one per finished application. */
export function documentRetentionWorkflowId(csid: string, externalId: string): string {
  return `documents-retention-${csid}-${externalId}`;
}

export function sweepWorkflowId(csid: string): string {
  return `status-sweep-${csid}`;
}

/** `webhook-delivery-<endpointId>`: one delivery workflow per webhook endpoint (its id is unique across firms). */
export function webhookDeliveryWorkflowId(endpointId: string): string {
  return `webhook-delivery-${endpointId}`;
}

/**
 * `maintenance-<CSID>-<accountId>-<requestKey>`: the caller's request key makes a start idempotent
 * (the same key twice is the same request, never a second update).
 */
export function maintenanceWorkflowId(csid: string, accountId: string, requestKey: string): string {
  return `maintenance-${csid}-${accountId}-${requestKey}`;
}

/** `documents-<CSID>-<yyyy-mm-dd>`: at most one submission per firm and day. */
export function documentsWorkflowId(csid: string, day: string): string {
  return `documents-${csid}-${day}`;
}

/** `daily-documents-<CSID>`: the firm's schedule. */
export function dailyDocumentsScheduleId(csid: string): string {
  return `daily-documents-${csid}`;
}

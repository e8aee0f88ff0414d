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

/*
 * Ids of one firm's workflows and schedules: `<kind>:<part>:…:<last>`. Every part before the last is
 * escaped (`%` → `%25`, `:` → `%3A`), so that it holds no `:`: the parts are read back from the id alone,
 * and no two (CSID, id) pairs give the same id, whatever characters a CSID, an external id or a request
 * key holds (a `-` between parts would give firm `A-X`'s `1` and firm `A`'s `X-1` the same id).
 */

/** A part of an id before its last one: `%` and `:` escaped (`%25`, `%3A`), everything else as it is. */
export function escapeIdPart(part: string): string {
  return part.replace(/%/g, '%25').replace(/:/g, '%3A');
}

/** The part `escapeIdPart` made, or undefined when `escaped` is no such part. */
function unescapeIdPart(escaped: string): string | undefined {
  if (/%(?!25|3A)/.test(escaped)) return undefined;
  return escaped.replace(/%3A/g, ':').replace(/%25/g, '%');
}

function firmId(kind: string, parts: readonly string[]): string {
  const last = parts.length - 1;
  return [kind, ...parts.map((part, index) => (index < last ? escapeIdPart(part) : part))].join(':');
}

/** The kinds of the firm-scoped ids and how many parts each has (the CSID first). */
const FIRM_ID_PARTS: Readonly<Record<string, number>> = {
  application: 2,
  'documents-retention': 2,
  maintenance: 3,
  documents: 2,
  'daily-documents': 1,
  'status-sweep': 1,
};

/** A firm-scoped id read back: its kind and its parts (the CSID first), or undefined. */
function parseFirmId(id: string): { kind: string; parts: string[] } | undefined {
  const colon = id.indexOf(':');
  if (colon < 0) return undefined;
  const kind = id.slice(0, colon);
  if (!Object.hasOwn(FIRM_ID_PARTS, kind)) return undefined;
  const count = FIRM_ID_PARTS[kind]!;
  const parts: string[] = [];
  let rest = id.slice(colon + 1);
  while (parts.length < count - 1) {
    const next = rest.indexOf(':');
    const part = next < 0 ? undefined : unescapeIdPart(rest.slice(0, next));
    if (part === undefined) return undefined;
    parts.push(part);
    rest = rest.slice(next + 1);
  }
  parts.push(rest);
  return { kind, parts };
}

/**
 * The CSID a firm-scoped id of today's form names (`application:<CSID>:<externalId>`,
 * `status-sweep:<CSID>`...), or undefined for any other id (webhook deliveries, anything).
 */
export function csidOfWorkflowId(id: string): string | undefined {
  return parseFirmId(id)?.parts[0];
}

/** `application:<CSID>:<externalId>`: one workflow per application, found by every tool. */
export function applicationWorkflowId(csid: string, externalId: string): string {
  return firmId('application', [csid, externalId]);
}

/** `documents-retention:<CSID>:<externalId>`: one per finished application. */
export function documentRetentionWorkflowId(csid: string, externalId: string): string {
  return firmId('documents-retention', [csid, externalId]);
}

/** `status-sweep:<CSID>`: the firm's status sweep. */
export function sweepWorkflowId(csid: string): string {
  return firmId('status-sweep', [csid]);
}

/** `webhook-delivery-<endpointId>`: one delivery workflow per webhook endpoint (its id is unique across firms). */
export function webhookDeliveryWorkflowId(endpointId: string): string {
  return `webhook-delivery-${endpointId}`;
}

/**
 * `maintenance:<CSID>:<accountId>:<requestKey>`: the caller's request key makes a start idempotent
 * (the same key twice is the same request, never a second update).
 */
export function maintenanceWorkflowId(csid: string, accountId: string, requestKey: string): string {
  return firmId('maintenance', [csid, accountId, requestKey]);
}

/** `documents:<CSID>:<yyyy-mm-dd>`: at most one submission per firm and day. */
export function documentsWorkflowId(csid: string, day: string): string {
  return firmId('documents', [csid, day]);
}

/** `daily-documents:<CSID>`: the firm's schedule. */
export function dailyDocumentsScheduleId(csid: string): string {
  return firmId('daily-documents', [csid]);
}

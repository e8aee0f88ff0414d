/**
 * The brokerage's writers of response files: the submitDocuments report and the create response file (in the
 * brokerage's format, which eca/report-xml.ts reads), both under a `Process/Execution` header.
 */
import { ACCEPTED_STATUS } from '../../eca/report-xml.js';
import type { CreateResponseStatusName } from '../../eca/report-xml.js';
import { formatSlashTimestamp } from '../../eca/types.js';
import { buildXml } from '../../eca/xml-tree.js';
import type { XmlElementSpec } from '../../eca/xml-tree.js';

export interface ExecutionInput {
  version?: string;
  /** Written `YYYY/MM/DD HH:MM:SS` (UTC) when a Date; a string is written as given. */
  executionDate?: Date | string;
  processFile?: string;
  client?: string;
  clientMasterAcct?: string;
}

export function executionElements(input: ExecutionInput): XmlElementSpec[] {
  const children: XmlElementSpec[] = [];
  const date = input.executionDate instanceof Date ? formatSlashTimestamp(input.executionDate) : input.executionDate;
  if (date !== undefined) children.push({ name: 'Execution_Date', text: date });
  if (input.processFile !== undefined) children.push({ name: 'Process_File', text: input.processFile });
  if (input.client !== undefined) children.push({ name: 'Client', text: input.client });
  if (input.clientMasterAcct !== undefined) children.push({ name: 'Client_Master_Acct', text: input.clientMasterAcct });
  if (children.length === 0 && input.version === undefined) return [];
  return [{ name: 'Execution', attributes: { ECA_XML_XSD_Version: input.version }, children }];
}

/**
 * The `Status` text of a document whose checksum differs from the archived original. The spec fixes only its
 * content (file name, stored and received SHA-1), not the order or the labels of the values:
 *
 * `File <file_name> has a different SHA-1 checksum: stored <stored>, received <received>`, or with `receivedFirst`
 * (setting `checksum-received-first`) the received value first, unlabelled:
 * `File <file_name> has a different SHA-1 checksum (<received> / <stored>)`.
 */
export function formatChecksumMismatchStatus(
  fileName: string,
  stored: string,
  received: string,
  receivedFirst = false,
): string {
  return receivedFirst
    ? `File ${fileName} has a different SHA-1 checksum (${received.toLowerCase()} / ${stored.toLowerCase()})`
    : `File ${fileName} has a different SHA-1 checksum: stored ${stored.toLowerCase()}, received ${received.toLowerCase()}`;
}

export interface ReportDocumentInput {
  formNumber: string;
  fileName: string;
  /** The status text; `Accepted` when neither it nor `checksumMismatch` is given. */
  status?: string;
  /** Writes the checksum-mismatch status text (overrides `status`). */
  checksumMismatch?: { stored: string; received: string };
}

export interface DocumentsReportInput extends ExecutionInput {
  /** When set, documents are written under `DocumentSubmission@ib_acct` (the failing-report layout). */
  accountId?: string;
  /** Checksum-mismatch texts give the received SHA-1 first, unlabelled (`checksum-received-first`). */
  checksumReceivedFirst?: boolean;
  documents: ReportDocumentInput[];
}

/** Writes a submitDocuments report (the brokerage side). */
export function buildDocumentsReport(input: DocumentsReportInput): string {
  const documents: XmlElementSpec[] = input.documents.map((document) => ({
    name: 'Document',
    attributes: {
      Form_Number: document.formNumber,
      File_Name: document.fileName,
      Status: document.checksumMismatch
        ? formatChecksumMismatchStatus(
            document.fileName,
            document.checksumMismatch.stored,
            document.checksumMismatch.received,
            input.checksumReceivedFirst,
          )
        : (document.status ?? ACCEPTED_STATUS),
    },
  }));
  const container: XmlElementSpec =
    input.accountId !== undefined
      ? {
          name: 'DocumentSubmission',
          attributes: { ib_acct: input.accountId },
          children: [{ name: 'Documents', children: documents }],
        }
      : { name: 'ProcessDocuments', children: [{ name: 'Documents', children: documents }] };
  return buildXml({ name: 'Process', children: [...executionElements(input), container] });
}

export interface CreateResponseApplicationInput {
  externalId: string;
  status: CreateResponseStatusName;
  errors?: string[];
  /** Accounts opened for the application, each with its status code. */
  accounts?: Array<{ accountId: string; status: string }>;
  /** Users created for the application; the id and a temporary password are optional per user. */
  users?: Array<{ userName: string; userId?: string; temporaryPassword?: string }>;
  /** The legal entities (account holders) recorded for the application. */
  entities?: Array<{ entityId: string; externalId?: string }>;
  pendingTasks?: Array<{
    formNumber: string;
    formName: string;
    action: string;
    isRequiredForApproval: boolean;
    isRequiredForTrading: boolean;
    isOnlineTask: boolean;
    state?: string;
  }>;
}

export interface CreateResponseInput extends ExecutionInput {
  applications: CreateResponseApplicationInput[];
}

/** A list element (`Users`, `Accounts`, …) when there is something to list. */
function list(name: string, items: XmlElementSpec[]): XmlElementSpec[] {
  return items.length > 0 ? [{ name, children: items }] : [];
}

function createApplicationElement(application: CreateResponseApplicationInput): XmlElementSpec {
  const users = (application.users ?? []).map((user) => ({
    name: 'User',
    attributes: { user_id: user.userId, password: user.temporaryPassword },
    text: user.userName,
  }));
  const accounts = (application.accounts ?? []).map((account) => ({
    name: 'Account',
    attributes: { status: account.status },
    text: account.accountId,
  }));
  const entities = (application.entities ?? []).map((entity) => ({
    name: 'Entity',
    attributes: { entity_id: entity.entityId, external_id: entity.externalId },
  }));
  const errors = (application.errors ?? []).map((text) => ({ name: 'Error', text }));
  const tasks = (application.pendingTasks ?? []).map((task) => ({
    name: 'Task',
    attributes: {
      Form_Number: task.formNumber,
      Form_Name: task.formName,
      Action: task.action,
      Is_Required_For_Approval: String(task.isRequiredForApproval),
      Is_Required_For_Trading: String(task.isRequiredForTrading),
      Is_Online_Task: String(task.isOnlineTask),
      State: task.state,
    },
  }));
  return {
    name: 'Application',
    attributes: { External_ID: application.externalId, Status: application.status },
    children: [
      ...list('Users', users),
      ...list('Accounts', accounts),
      ...list('Entities', entities),
      ...list('Errors', errors),
      ...list('Pending_Tasks', tasks),
    ],
  };
}

/** Writes a create response file in the brokerage's format (eca's parseCreateResponseXml reads it). */
export function buildCreateResponseXml(input: CreateResponseInput): string {
  return buildXml({
    name: 'Process',
    children: [
      ...executionElements(input),
      { name: 'Applications', children: input.applications.map(createApplicationElement) },
    ],
  });
}

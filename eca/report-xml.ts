/**
 * Response files of the file operations, as the firm reads them:
 *
 * - the submitDocuments report: `Process` / `Execution` / `ProcessDocuments/Documents/Document` or
 *   `DocumentSubmission@ib_acct/…`, with `Status` = `Accepted` or a reason;
 * - the create response file (format defined here, the spec does not show it), see {@link parseCreateResponseXml}.
 *
 * Readers match local element names and ignore namespaces. The brokerage's writers of these files live with the
 * simulator (simulator/formats/report-xml.ts).
 */
import { EcaSchemaError } from './errors.js';
import { SecretString } from './secret.js';
import { parseTimestamp } from './types.js';
import type { Timestamp } from './types.js';
import { attr, childrenNamed, descend, firstChild, parseXmlTree } from './xml-tree.js';
import type { XmlNode } from './xml-tree.js';

// ---------------------------------------------------------------------------------------------------------------
// Execution header shared by response files

export interface ExecutionInfo {
  /** `ECA_XML_XSD_Version`, seen as `DD-Mon-YYYY`. */
  version?: string;
  executionDate?: Timestamp;
  processFile?: string;
  client?: string;
  clientMasterAcct?: string;
}

function childText(node: XmlNode | undefined, name: string): string | undefined {
  const text = firstChild(node, name)?.text;
  return text === undefined || text === '' ? undefined : text;
}

function parseExecution(root: XmlNode): ExecutionInfo {
  const execution = firstChild(root, 'Execution');
  const info: ExecutionInfo = {};
  const version = attr(execution, 'ECA_XML_XSD_Version');
  if (version !== undefined) info.version = version;
  const date = childText(execution, 'Execution_Date');
  if (date !== undefined) info.executionDate = parseTimestamp(date);
  const processFile = childText(execution, 'Process_File');
  if (processFile !== undefined) info.processFile = processFile;
  const client = childText(execution, 'Client');
  if (client !== undefined) info.client = client;
  const master = childText(execution, 'Client_Master_Acct');
  if (master !== undefined) info.clientMasterAcct = master;
  return info;
}

// ---------------------------------------------------------------------------------------------------------------
// submitDocuments report

export const ACCEPTED_STATUS = 'Accepted';

/**
 * Reads the checksum-mismatch `Status` text of a document whose checksum differs from the archived original. The
 * spec fixes only its content (file name, stored and received SHA-1), so this library defines the wording (see the
 * simulator's `formatChecksumMismatchStatus`) and also tolerates other wordings that label the two values "stored"
 * and "received".
 */
export function parseChecksumMismatch(status: string): { stored: string; received: string } | undefined {
  if (!/checksum/i.test(status)) return undefined;
  const stored = /stored(?:\s+(?:checksum|value|sha-?1))?\s*[:=]?\s*([0-9a-fA-F]{40})\b/i.exec(status)?.[1];
  const received = /received(?:\s+(?:checksum|value|sha-?1))?\s*[:=]?\s*([0-9a-fA-F]{40})\b/i.exec(status)?.[1];
  if (stored !== undefined && received !== undefined) {
    return { stored: stored.toLowerCase(), received: received.toLowerCase() };
  }
  // Unlabelled wording: two digests in order (stored first, as the spec lists them).
  const digests = status.match(/\b[0-9a-fA-F]{40}\b/g);
  if (digests?.length === 2 && digests[0] !== undefined && digests[1] !== undefined) {
    return { stored: digests[0].toLowerCase(), received: digests[1].toLowerCase() };
  }
  return undefined;
}

export interface ReportDocument {
  formNumber: string;
  fileName: string;
  status: string;
  accepted: boolean;
  /** The status text when not accepted. */
  reason?: string;
  checksumMismatch?: { stored: string; received: string };
  /** `ib_acct` of the enclosing DocumentSubmission element, in that layout. */
  accountId?: string;
}

export interface DocumentsReport extends ExecutionInfo {
  /** `ib_acct` of the (first) DocumentSubmission element, in that layout. */
  accountId?: string;
  documents: ReportDocument[];
}

function reportDocuments(container: XmlNode, path: string, accountId: string | undefined): ReportDocument[] {
  // Entries are read under `Documents` and, tolerantly, directly under the container.
  const entries = [
    ...childrenNamed(container, 'Document'),
    ...childrenNamed(container, 'Documents').flatMap((list) => childrenNamed(list, 'Document')),
  ];
  return entries.map((entry, index) => {
    const at = `${path}/Document[${index + 1}]`;
    const status = attr(entry, 'Status') ?? entry.text;
    if (!status) throw new EcaSchemaError(`${at}@Status`, 'attribute is missing');
    const accepted = status.trim().toLowerCase() === ACCEPTED_STATUS.toLowerCase();
    const document: ReportDocument = {
      formNumber: attr(entry, 'Form_Number') ?? '',
      fileName: attr(entry, 'File_Name') ?? '',
      status,
      accepted,
    };
    if (!accepted) {
      document.reason = status;
      const mismatch = parseChecksumMismatch(status);
      if (mismatch) document.checksumMismatch = mismatch;
    }
    if (accountId !== undefined) document.accountId = accountId;
    return document;
  });
}

/** Reads a submitDocuments report in either layout. */
export function parseDocumentsReport(xml: string): DocumentsReport {
  const root = parseXmlTree(xml, 'Process');
  if (root.name !== 'Process') throw new EcaSchemaError(root.name, 'expected root element Process');
  const report: DocumentsReport = { ...parseExecution(root), documents: [] };
  for (const container of childrenNamed(root, 'ProcessDocuments')) {
    report.documents.push(...reportDocuments(container, 'Process/ProcessDocuments', undefined));
  }
  for (const container of childrenNamed(root, 'DocumentSubmission')) {
    const accountId = attr(container, 'ib_acct');
    if (accountId !== undefined) report.accountId ??= accountId;
    report.documents.push(...reportDocuments(container, 'Process/DocumentSubmission', accountId));
  }
  return report;
}

// ---------------------------------------------------------------------------------------------------------------
// create response file (format defined by this library)

/**
 * The create response file. The spec says only that it reports success or errors per application, the user name of
 * each created user and possibly a temporary password, linked by external id; this library fixes the layout in the
 * brokerage's report style:
 *
 * ```xml
 * <Process>
 *   <Execution ECA_XML_XSD_Version="01-Jan-2024">
 *     <Execution_Date>2024/05/01 10:00:00</Execution_Date>
 *     <Process_File>Firm_2024-05-01_0001_0001.xml</Process_File>
 *     <Client>Firm</Client>
 *     <Client_Master_Acct>F1234567</Client_Master_Acct>
 *   </Execution>
 *   <Applications>
 *     <Application External_ID="EXT-1" Status="Success">
 *       <Accounts><Account>U1234567</Account></Accounts>
 *       <Users><User user_name="jdoex1a123" password="…"/></Users>
 *     </Application>
 *     <Application External_ID="EXT-2" Status="Error">
 *       <Errors><Error>Application 1: AccountHolder 1: missing first name</Error></Errors>
 *     </Application>
 *   </Applications>
 * </Process>
 * ```
 */
export const CREATE_RESPONSE_STATUSES = ['Success', 'Error'] as const;
export type CreateResponseStatusName = (typeof CREATE_RESPONSE_STATUSES)[number];

export type CreateResponseStatus = { raw: string } & (
  { known: true; status: CreateResponseStatusName } | { known: false; status: string }
);

export interface CreatedUser {
  userName: string;
  /** SECRET: the temporary password assigned at creation. Never log it; `reveal()` only where it is handed over. */
  temporaryPassword?: SecretString;
}

export interface CreateResponseApplication {
  externalId: string;
  status: CreateResponseStatus;
  /** True only for a known `Success` status. */
  succeeded: boolean;
  errors: string[];
  /** First account id, for the usual one-account application. */
  accountId?: string;
  accountIds: string[];
  /** First user name, for the usual one-user application. */
  userName?: string;
  /** SECRET: the first user's temporary password; see {@link CreatedUser.temporaryPassword}. */
  temporaryPassword?: SecretString;
  users: CreatedUser[];
}

export interface CreateResponse extends ExecutionInfo {
  applications: CreateResponseApplication[];
}

function parseCreateStatus(raw: string): CreateResponseStatus {
  const match = CREATE_RESPONSE_STATUSES.find((status) => status.toLowerCase() === raw.trim().toLowerCase());
  return match ? { raw, known: true, status: match } : { raw, known: false, status: raw.trim() };
}

export function parseCreateResponseXml(xml: string): CreateResponse {
  const root = parseXmlTree(xml, 'Process');
  if (root.name !== 'Process') throw new EcaSchemaError(root.name, 'expected root element Process');
  const applications = childrenNamed(firstChild(root, 'Applications'), 'Application').map((node, index) => {
    const at = `Process/Applications/Application[${index + 1}]`;
    const externalId = attr(node, 'External_ID');
    if (externalId === undefined) throw new EcaSchemaError(`${at}@External_ID`, 'attribute is missing');
    const status = parseCreateStatus(attr(node, 'Status') ?? '');
    const accountIds = childrenNamed(firstChild(node, 'Accounts'), 'Account')
      .map((account) => account.text || attr(account, 'id') || '')
      .filter((id) => id !== '');
    const users: CreatedUser[] = childrenNamed(firstChild(node, 'Users'), 'User').flatMap((user) => {
      const userName = attr(user, 'user_name');
      if (userName === undefined) return [];
      const password = user.attributes.password;
      return [password ? { userName, temporaryPassword: new SecretString(password) } : { userName }];
    });
    const errors = childrenNamed(firstChild(node, 'Errors'), 'Error')
      .map((error) => error.text)
      .filter((text) => text !== '');
    const application: CreateResponseApplication = {
      externalId,
      status,
      succeeded: status.known && status.status === 'Success',
      errors,
      accountIds,
      users,
    };
    if (accountIds[0] !== undefined) application.accountId = accountIds[0];
    const firstUser = users[0];
    if (firstUser !== undefined) {
      application.userName = firstUser.userName;
      if (firstUser.temporaryPassword) application.temporaryPassword = firstUser.temporaryPassword;
    }
    return application;
  });
  return { ...parseExecution(root), applications };
}

/** The local names along a path, for readers that need a nested element of an update request. */
export function findElement(node: XmlNode, ...names: string[]): XmlNode | undefined {
  return descend(node, ...names);
}

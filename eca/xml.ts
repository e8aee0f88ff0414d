/**
 * Request and response XML of the file operations:
 *
 * - submitDocuments request: `AcctMgmtRequests` (import-schema namespace) / `ProcessDocuments` / `Document` /
 *   `AttachedFile`, and the same documents under `DocumentSubmission@ib_acct` for the update operation;
 * - update requests in general: `AcctMgmtRequests` / `<FunctionName ib_acct="…">body</FunctionName>`;
 * - the submitDocuments report: `Process` / `Execution` / `ProcessDocuments/Documents/Document` or
 *   `DocumentSubmission@ib_acct/…`, with `Status` = `Accepted` or a reason;
 * - the create response file (format defined here, the spec does not show it), see {@link buildCreateResponseXml}.
 *
 * Builders write what the brokerage reads (and what the simulator parses); parsers read what the brokerage writes.
 * Readers match local element names and ignore namespaces.
 */
import { checkFileName } from './archive.js';
import type { AttachmentDigest } from './archive.js';
import { EcaRequestError, EcaSchemaError } from './errors.js';
import { SecretString } from './secret.js';
import { formatCompactTimestamp, formatSlashTimestamp, parseTimestamp } from './types.js';
import type { Timestamp } from './types.js';
import {
  attr,
  buildXml,
  childrenNamed,
  descend,
  escapeXml,
  firstChild,
  isXmlName,
  parseXmlTree,
  xmlWellFormednessError,
} from './xml-tree.js';
import type { XmlElementSpec, XmlNode } from './xml-tree.js';

export type { XmlNode } from './xml-tree.js';
export { parseXmlTree, xmlWellFormednessError } from './xml-tree.js';
export {
  APPLICATION_XML_EXAMPLE,
  CUSTOMER_TYPES,
  ISO_3166_ALPHA3,
  parseApplication,
  parseApplications,
  validateApplicationStructure,
} from './application.js';
export type { ApplicationSummary, ApplicationHolder, ApplicationAccount, CustomerType } from './application.js';

/**
 * Placeholder for the brokerage's import-schema namespace (`{import_schema_namespace}` in the spec): a deployment
 * passes the real one (client option `importNamespace`). Readers ignore namespaces, so any value round-trips.
 */
export const DEFAULT_IMPORT_NAMESPACE = 'urn:eca-onboarding:import-schema';

export const REQUESTS_ROOT = 'AcctMgmtRequests';

// ---------------------------------------------------------------------------------------------------------------
// Document requests (submitDocuments, update/DocumentSubmission)

export interface DocumentInput {
  /** Form number of the pending task or document. */
  formNumber: string;
  /** When the customer executed (signed) the agreement; written `YYYYMMDDHHMMSS` in UTC. */
  execTs: Date | string;
  /** Login time of the session in which the client acknowledged the agreement. */
  execLoginTs: Date | string;
  files: AttachmentDigest[];
}

function compactTimestamp(value: Date | string, parameter: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new EcaRequestError(parameter, 'invalid date');
    return formatCompactTimestamp(value);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{14}$/.test(text)) {
      if (parseTimestamp(text).date) return text;
      throw new EcaRequestError(parameter, 'not a valid YYYYMMDDHHMMSS timestamp');
    }
    // ISO-8601 text with an explicit zone (or Z) is unambiguous; bare local times are not accepted.
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
      const date = new Date(text);
      if (!Number.isNaN(date.getTime())) return formatCompactTimestamp(date);
    }
  }
  throw new EcaRequestError(parameter, 'expected a Date, YYYYMMDDHHMMSS or an ISO-8601 time with zone');
}

function documentElements(documents: DocumentInput[], parameter: string): XmlElementSpec[] {
  if (!Array.isArray(documents) || documents.length === 0) {
    throw new EcaRequestError(parameter, 'at least one document is required');
  }
  return documents.map((document, index) => {
    const at = `${parameter}[${index}]`;
    if (typeof document.formNumber !== 'string' || document.formNumber.trim() === '') {
      throw new EcaRequestError(`${at}.formNumber`, 'form number is required');
    }
    if (!Array.isArray(document.files) || document.files.length === 0) {
      throw new EcaRequestError(`${at}.files`, 'each document needs at least one attached file');
    }
    return {
      name: 'Document',
      attributes: {
        form_no: document.formNumber.trim(),
        exec_ts: compactTimestamp(document.execTs, `${at}.execTs`),
        exec_login_ts: compactTimestamp(document.execLoginTs, `${at}.execLoginTs`),
      },
      children: document.files.map((file, fileIndex) => {
        const fileAt = `${at}.files[${fileIndex}]`;
        checkFileName(file.fileName, `${fileAt}.fileName`);
        if (typeof file.sha1 !== 'string' || !/^[0-9a-fA-F]{40}$/.test(file.sha1)) {
          throw new EcaRequestError(`${fileAt}.sha1`, 'expected 40 hexadecimal digits');
        }
        if (!Number.isSafeInteger(file.length) || file.length < 0) {
          throw new EcaRequestError(`${fileAt}.length`, 'expected a non-negative integer byte count');
        }
        return {
          name: 'AttachedFile',
          attributes: {
            file_name: file.fileName,
            sha1_checksum: file.sha1.toLowerCase(),
            file_length: String(file.length),
          },
        };
      }),
    };
  });
}

function requestsRoot(namespace: string | undefined, children: XmlElementSpec[]): XmlElementSpec {
  return { name: REQUESTS_ROOT, attributes: { xmlns: namespace ?? DEFAULT_IMPORT_NAMESPACE }, children };
}

/** The submitDocuments request file: `AcctMgmtRequests/ProcessDocuments/Document/AttachedFile`. */
export function buildSubmitDocumentsXml(input: { namespace?: string; documents: DocumentInput[] }): string {
  return buildXml(
    requestsRoot(input.namespace, [
      { name: 'ProcessDocuments', children: documentElements(input.documents, 'documents') },
    ]),
  );
}

function checkAccountId(accountId: unknown, parameter = 'accountId'): string {
  if (typeof accountId !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(accountId.trim())) {
    throw new EcaRequestError(parameter, 'expected an account number');
  }
  return accountId.trim();
}

/** The update request that submits documents of a pending application: `AcctMgmtRequests/DocumentSubmission@ib_acct/…`. */
export function buildDocumentSubmissionXml(input: {
  namespace?: string;
  accountId: string;
  documents: DocumentInput[];
}): string {
  return buildXml(
    requestsRoot(input.namespace, [
      {
        name: 'DocumentSubmission',
        attributes: { ib_acct: checkAccountId(input.accountId) },
        children: documentElements(input.documents, 'documents'),
      },
    ]),
  );
}

/**
 * An update request of any function: `<AcctMgmtRequests xmlns="…"><FunctionName ib_acct="U123" …>bodyXml</FunctionName></AcctMgmtRequests>`.
 * `bodyXml` is the function's content as an XML fragment (may be empty, e.g. AbandonAccount); it must be
 * well-formed. `attributes` are written on the function element after `ib_acct`.
 */
export function buildUpdateRequestXml(input: {
  namespace?: string;
  accountId?: string;
  functionName: string;
  bodyXml?: string;
  attributes?: Record<string, string>;
}): string {
  if (typeof input.functionName !== 'string' || !isXmlName(input.functionName)) {
    throw new EcaRequestError('functionName', 'expected an XML element name such as AbandonAccount');
  }
  const attributes: Array<[string, string]> = [];
  if (input.accountId !== undefined) attributes.push(['ib_acct', checkAccountId(input.accountId)]);
  for (const [name, value] of Object.entries(input.attributes ?? {})) {
    if (!isXmlName(name) || name === 'ib_acct' || name === 'xmlns') {
      throw new EcaRequestError(`attributes.${name}`, 'not an allowed attribute name');
    }
    attributes.push([name, value]);
  }
  const body = input.bodyXml?.trim() ?? '';
  if (body !== '') {
    const problem = xmlWellFormednessError(`<fragment>${body}</fragment>`);
    if (problem) throw new EcaRequestError('bodyXml', problem.replace('the XML', 'the body fragment'));
  }
  const attributeText = attributes.map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
  const element =
    body === ''
      ? `<${input.functionName}${attributeText}/>`
      : `<${input.functionName}${attributeText}>${body}</${input.functionName}>`;
  const namespace = escapeXml(input.namespace ?? DEFAULT_IMPORT_NAMESPACE);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${REQUESTS_ROOT} xmlns="${namespace}">${element}</${REQUESTS_ROOT}>\n`;
}

export interface ParsedAttachedFile {
  fileName: string;
  sha1: string;
  /** Byte length as written; NaN when the text is not an integer. */
  length: number;
}

export interface ParsedDocument {
  formNumber: string;
  execTs: Timestamp;
  execLoginTs: Timestamp;
  files: ParsedAttachedFile[];
}

function requiredAttr(node: XmlNode, name: string, path: string): string {
  const value = attr(node, name);
  if (value === undefined) throw new EcaSchemaError(`${path}@${name}`, 'attribute is missing');
  return value;
}

function parseDocuments(container: XmlNode, path: string): ParsedDocument[] {
  return childrenNamed(container, 'Document').map((document, index) => {
    const at = `${path}/Document[${index + 1}]`;
    return {
      formNumber: requiredAttr(document, 'form_no', at),
      execTs: parseTimestamp(requiredAttr(document, 'exec_ts', at)),
      execLoginTs: parseTimestamp(requiredAttr(document, 'exec_login_ts', at)),
      files: childrenNamed(document, 'AttachedFile').map((file, fileIndex) => {
        const fileAt = `${at}/AttachedFile[${fileIndex + 1}]`;
        const lengthText = requiredAttr(file, 'file_length', fileAt);
        return {
          fileName: requiredAttr(file, 'file_name', fileAt),
          sha1: requiredAttr(file, 'sha1_checksum', fileAt).toLowerCase(),
          length: /^\d+$/.test(lengthText) ? Number(lengthText) : Number.NaN,
        };
      }),
    };
  });
}

function requestsRootOf(xml: string): XmlNode {
  const root = parseXmlTree(xml, REQUESTS_ROOT);
  if (root.name !== REQUESTS_ROOT) throw new EcaSchemaError(root.name, `expected root element ${REQUESTS_ROOT}`);
  return root;
}

/** Reads a submitDocuments request file (the brokerage side). */
export function parseSubmitDocumentsXml(xml: string): { documents: ParsedDocument[] } {
  const root = requestsRootOf(xml);
  const container = firstChild(root, 'ProcessDocuments');
  if (!container) throw new EcaSchemaError(`${REQUESTS_ROOT}/ProcessDocuments`, 'element is missing');
  const documents = parseDocuments(container, `${REQUESTS_ROOT}/ProcessDocuments`);
  if (documents.length === 0) throw new EcaSchemaError(`${REQUESTS_ROOT}/ProcessDocuments/Document`, 'no documents');
  return { documents };
}

export interface ParsedUpdateRequest {
  functionName: string;
  accountId?: string;
  /** Attributes of the function element (ib_acct included). */
  attributes: Record<string, string>;
  /** Documents, for DocumentSubmission. */
  documents?: ParsedDocument[];
  /** The function element itself, for functions whose content the caller interprets. */
  element: XmlNode;
}

/** Reads an update request file (the brokerage side): one entry per function element under the root. */
export function parseUpdateRequestXml(xml: string): ParsedUpdateRequest[] {
  const root = requestsRootOf(xml);
  return root.children.map((element, index) => {
    const accountId = attr(element, 'ib_acct');
    const request: ParsedUpdateRequest = {
      functionName: element.name,
      attributes: { ...element.attributes },
      element,
    };
    if (accountId !== undefined) request.accountId = accountId;
    if (element.name === 'DocumentSubmission') {
      request.documents = parseDocuments(element, `${REQUESTS_ROOT}/DocumentSubmission[${index + 1}]`);
    }
    return request;
  });
}

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

export interface ExecutionInput {
  version?: string;
  /** Written `YYYY/MM/DD HH:MM:SS` (UTC) when a Date; a string is written as given. */
  executionDate?: Date | string;
  processFile?: string;
  client?: string;
  clientMasterAcct?: string;
}

function executionElements(input: ExecutionInput): XmlElementSpec[] {
  const children: XmlElementSpec[] = [];
  const date = input.executionDate instanceof Date ? formatSlashTimestamp(input.executionDate) : input.executionDate;
  if (date !== undefined) children.push({ name: 'Execution_Date', text: date });
  if (input.processFile !== undefined) children.push({ name: 'Process_File', text: input.processFile });
  if (input.client !== undefined) children.push({ name: 'Client', text: input.client });
  if (input.clientMasterAcct !== undefined) children.push({ name: 'Client_Master_Acct', text: input.clientMasterAcct });
  if (children.length === 0 && input.version === undefined) return [];
  return [{ name: 'Execution', attributes: { ECA_XML_XSD_Version: input.version }, children }];
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
 * The `Status` text of a document whose checksum differs from the archived original. The spec fixes only its
 * content (file name, stored and received SHA-1), so this library defines the wording; {@link parseChecksumMismatch}
 * reads it back and also tolerates other wordings that label the two values "stored" and "received".
 *
 * `File <file_name> has a different SHA-1 checksum: stored <stored>, received <received>`
 */
export function formatChecksumMismatchStatus(fileName: string, stored: string, received: string): string {
  return `File ${fileName} has a different SHA-1 checksum: stored ${stored.toLowerCase()}, received ${received.toLowerCase()}`;
}

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

export interface CreateResponseApplicationInput {
  externalId: string;
  status: CreateResponseStatusName;
  errors?: string[];
  accountIds?: string[];
  /** Users created for the application; a temporary password is optional per user. */
  users?: Array<{ userName: string; temporaryPassword?: string }>;
}

export interface CreateResponseInput extends ExecutionInput {
  applications: CreateResponseApplicationInput[];
}

export function buildCreateResponseXml(input: CreateResponseInput): string {
  const applications: XmlElementSpec[] = input.applications.map((application) => {
    const children: XmlElementSpec[] = [];
    if (application.accountIds?.length) {
      children.push({
        name: 'Accounts',
        children: application.accountIds.map((id) => ({ name: 'Account', text: id })),
      });
    }
    if (application.users?.length) {
      children.push({
        name: 'Users',
        children: application.users.map((user) => ({
          name: 'User',
          attributes: { user_name: user.userName, password: user.temporaryPassword },
        })),
      });
    }
    if (application.errors?.length) {
      children.push({ name: 'Errors', children: application.errors.map((text) => ({ name: 'Error', text })) });
    }
    return {
      name: 'Application',
      attributes: { External_ID: application.externalId, Status: application.status },
      children,
    };
  });
  return buildXml({
    name: 'Process',
    children: [...executionElements(input), { name: 'Applications', children: applications }],
  });
}

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

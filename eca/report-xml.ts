/**
 * Response files of the file operations, as the firm reads them:
 *
 * - the submitDocuments report: `Process` / `Execution` / `ProcessDocuments/Documents/Document` or
 *   `DocumentSubmission@ib_acct/…`, with `Status` = `Accepted` or a reason;
 * - the create response file in the brokerage's format (the spec does not show it), see {@link parseCreateResponseXml}.
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
 * spec says only that it "gives the stored and the received values": not their order, not their labels. The
 * received value is the SHA-1 of the file as sent (`sent`, the digest the request XML quoted), so the text must hold
 * exactly two different SHA-1 digests, one of them `sent`: the other is the stored one. A text that labels the
 * values "stored" and "received" (this library's wording, the simulator's `formatChecksumMismatchStatus`) must
 * agree. Anything else gives undefined: the document stays refused with its text, nothing is guessed.
 *
 * Without `sent` (a caller that does not know what was sent), only a text labelling both values is read.
 */
export function parseChecksumMismatch(status: string, sent?: string): { stored: string; received: string } | undefined {
  if (!/checksum/i.test(status)) return undefined;
  const stored = /stored(?:\s+(?:checksum|value|sha-?1))?\s*[:=]?\s*([0-9a-fA-F]{40})\b/i.exec(status)?.[1];
  const received = /received(?:\s+(?:checksum|value|sha-?1))?\s*[:=]?\s*([0-9a-fA-F]{40})\b/i.exec(status)?.[1];
  const labelled =
    stored !== undefined && received !== undefined
      ? { stored: stored.toLowerCase(), received: received.toLowerCase() }
      : undefined;
  if (sent === undefined) return labelled;
  const ours = sent.toLowerCase();
  const digests = [...new Set((status.match(/\b[0-9a-fA-F]{40}\b/g) ?? []).map((digest) => digest.toLowerCase()))];
  const other = digests.find((digest) => digest !== ours);
  if (digests.length !== 2 || !digests.includes(ours) || other === undefined) return undefined;
  if (labelled && (labelled.received !== ours || labelled.stored !== other)) return undefined;
  return { stored: other, received: ours };
}

/** A file the request named: its name, form and SHA-1 (what the brokerage received, unless it was altered on the way). */
export interface SentFile {
  formNumber?: string;
  fileName: string;
  sha1: string;
}

/** The SHA-1 sent for a report entry: the file of that name (of that form, when several share the name). */
function sentDigest(sent: readonly SentFile[], formNumber: string, fileName: string): string | undefined {
  const named = sent.filter((file) => file.fileName === fileName);
  const ofForm = named.filter((file) => file.formNumber === undefined || file.formNumber === formNumber);
  const candidates = ofForm.length > 0 ? ofForm : named;
  const digests = new Set(candidates.map((file) => file.sha1.toLowerCase()));
  return digests.size === 1 ? [...digests][0] : undefined;
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

function reportDocuments(
  container: XmlNode,
  path: string,
  accountId: string | undefined,
  sent: readonly SentFile[] | undefined,
): ReportDocument[] {
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
      const digest = sent && sentDigest(sent, document.formNumber, document.fileName);
      // Sent files known but none (or several digests) under this entry's name: no digest to tell the values apart.
      const mismatch = sent && digest === undefined ? undefined : parseChecksumMismatch(status, digest);
      if (mismatch) document.checksumMismatch = mismatch;
    }
    if (accountId !== undefined) document.accountId = accountId;
    return document;
  });
}

/**
 * Reads a submitDocuments report in either layout. `sent`, the files the request named with their SHA-1, tells the
 * two values of a checksum-mismatch text apart ({@link parseChecksumMismatch}).
 */
export function parseDocumentsReport(xml: string, sent?: readonly SentFile[]): DocumentsReport {
  const root = parseXmlTree(xml, 'Process');
  if (root.name !== 'Process') throw new EcaSchemaError(root.name, 'expected root element Process');
  const report: DocumentsReport = { ...parseExecution(root), documents: [] };
  for (const container of childrenNamed(root, 'ProcessDocuments')) {
    report.documents.push(...reportDocuments(container, 'Process/ProcessDocuments', undefined, sent));
  }
  for (const container of childrenNamed(root, 'DocumentSubmission')) {
    const accountId = attr(container, 'ib_acct');
    if (accountId !== undefined) report.accountId ??= accountId;
    report.documents.push(...reportDocuments(container, 'Process/DocumentSubmission', accountId, sent));
  }
  return report;
}

// ---------------------------------------------------------------------------------------------------------------
// create response file (the brokerage's format)

/**
 * The create response file, in the format the brokerage writes (the spec only says that it reports success or
 * errors, the user name of each created user and possibly a temporary password, linked by external id):
 *
 * ```xml
 * <Process>
 *   <Execution ECA_XML_XSD_Version="01-Jan-2024">…</Execution>
 *   <Applications>
 *     <Application External_ID="EXT-1" Status="Success">
 *       <Users><User user_id="1234567" password="…">jdoexa123</User></Users>
 *       <Accounts><Account status="N">U1234567</Account></Accounts>
 *       <Entities><Entity entity_id="…" external_id="EXT-1-HOLDER"/></Entities>
 *       <Pending_Tasks>
 *         <Task Form_Number="8001" Form_Name="Proof of Identity" Action="to send" Is_Required_For_Approval="true" …/>
 *       </Pending_Tasks>
 *     </Application>
 *     <Application External_ID="EXT-2" Status="Error"><Errors><Error>…</Error></Errors></Application>
 *     <Application External_ID="EXT-3" Status="Already processed"/>
 *   </Applications>
 * </Process>
 * ```
 *
 * `Already processed` answers an external id the brokerage processed before: the file names no new account, and
 * the account is the one the earlier create made (found with getResponseFile by external id).
 */
export const CREATE_RESPONSE_STATUSES = ['Success', 'Error', 'Already processed'] as const;
export type CreateResponseStatusName = (typeof CREATE_RESPONSE_STATUSES)[number];

export type CreateResponseStatus = { raw: string } & (
  { known: true; status: CreateResponseStatusName } | { known: false; status: string }
);

export interface CreatedUser {
  /** The user name: the text of `User`. */
  userName: string;
  /** `User@user_id`, the brokerage's id of the user. */
  userId?: string;
  /** SECRET: the temporary password assigned at creation. Never log it; `reveal()` only where it is handed over. */
  temporaryPassword?: SecretString;
}

export interface CreatedAccount {
  /** The account id: the text of `Account`. */
  accountId: string;
  /** `Account@status`, an account status code such as `N`. */
  status?: string;
}

/** A task of the new application as `Pending_Tasks/Task` lists it. */
export interface CreatePendingTask {
  formNumber: string;
  formName?: string;
  action?: string;
  isRequiredForApproval?: boolean;
  isRequiredForTrading?: boolean;
  isOnlineTask?: boolean;
  state?: string;
}

export interface CreateResponseApplication {
  externalId: string;
  status: CreateResponseStatus;
  /** True only for a known `Success` status. */
  succeeded: boolean;
  /** True for `Already processed`: an earlier create of this external id was processed; no account is named. */
  alreadyProcessed: boolean;
  errors: string[];
  /** First account id, for the usual one-account application. */
  accountId?: string;
  /** Status of the first account. */
  accountStatus?: string;
  accountIds: string[];
  accounts: CreatedAccount[];
  /** First user name, for the usual one-user application. */
  userName?: string;
  /** SECRET: the first user's temporary password; see {@link CreatedUser.temporaryPassword}. */
  temporaryPassword?: SecretString;
  users: CreatedUser[];
  pendingTasks: CreatePendingTask[];
}

export interface CreateResponse extends ExecutionInfo {
  applications: CreateResponseApplication[];
}

function parseCreateStatus(raw: string): CreateResponseStatus {
  const normalised = raw.trim().replace(/\s+/g, ' ').toLowerCase();
  const match = CREATE_RESPONSE_STATUSES.find((status) => status.toLowerCase() === normalised);
  return match ? { raw, known: true, status: match } : { raw, known: false, status: raw.trim() };
}

function flag(node: XmlNode, name: string): boolean | undefined {
  const value = attr(node, name)?.toLowerCase();
  if (value === 'true' || value === 'y' || value === 'yes') return true;
  if (value === 'false' || value === 'n' || value === 'no') return false;
  return undefined;
}

/** Adds the optional values that are present, so that parsed objects carry only what the file had. */
function withDefined<T extends object>(target: T, optional: Partial<T>): T {
  for (const [key, value] of Object.entries(optional)) if (value !== undefined) Object.assign(target, { [key]: value });
  return target;
}

function listed(node: XmlNode, list: string, item: string): XmlNode[] {
  return childrenNamed(firstChild(node, list), item);
}

function createdUsers(node: XmlNode): CreatedUser[] {
  return listed(node, 'Users', 'User').flatMap((user) => {
    if (user.text === '') return [];
    const password = user.attributes.password;
    return [
      withDefined<CreatedUser>(
        { userName: user.text },
        { userId: attr(user, 'user_id'), temporaryPassword: password ? new SecretString(password) : undefined },
      ),
    ];
  });
}

function pendingTasks(node: XmlNode): CreatePendingTask[] {
  return listed(node, 'Pending_Tasks', 'Task').flatMap((task) => {
    const formNumber = attr(task, 'Form_Number');
    if (formNumber === undefined) return [];
    return [
      withDefined<CreatePendingTask>(
        { formNumber },
        {
          formName: attr(task, 'Form_Name'),
          action: attr(task, 'Action'),
          isRequiredForApproval: flag(task, 'Is_Required_For_Approval'),
          isRequiredForTrading: flag(task, 'Is_Required_For_Trading'),
          isOnlineTask: flag(task, 'Is_Online_Task'),
          state: attr(task, 'State'),
        },
      ),
    ];
  });
}

function createApplication(node: XmlNode, index: number): CreateResponseApplication {
  const at = `Process/Applications/Application[${index + 1}]`;
  const externalId = attr(node, 'External_ID');
  if (externalId === undefined) throw new EcaSchemaError(`${at}@External_ID`, 'attribute is missing');
  const status = parseCreateStatus(attr(node, 'Status') ?? '');
  const accounts = listed(node, 'Accounts', 'Account')
    .filter((account) => account.text !== '')
    .map((account) => withDefined<CreatedAccount>({ accountId: account.text }, { status: attr(account, 'status') }));
  const users = createdUsers(node);
  const application: CreateResponseApplication = {
    externalId,
    status,
    succeeded: status.known && status.status === 'Success',
    alreadyProcessed: status.known && status.status === 'Already processed',
    errors: listed(node, 'Errors', 'Error')
      .map((error) => error.text)
      .filter((text) => text !== ''),
    accountIds: accounts.map((account) => account.accountId),
    accounts,
    users,
    pendingTasks: pendingTasks(node),
  };
  return withDefined(application, {
    accountId: accounts[0]?.accountId,
    accountStatus: accounts[0]?.status,
    userName: users[0]?.userName,
    temporaryPassword: users[0]?.temporaryPassword,
  });
}

export function parseCreateResponseXml(xml: string): CreateResponse {
  const root = parseXmlTree(xml, 'Process');
  if (root.name !== 'Process') throw new EcaSchemaError(root.name, 'expected root element Process');
  const applications = childrenNamed(firstChild(root, 'Applications'), 'Application').map(createApplication);
  return { ...parseExecution(root), applications };
}

/** The local names along a path, for readers that need a nested element of an update request. */
export function findElement(node: XmlNode, ...names: string[]): XmlNode | undefined {
  return descend(node, ...names);
}

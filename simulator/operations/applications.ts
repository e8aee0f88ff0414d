/**
 * validateXML and create. create makes one account per application of a file in the brokerage's import schema
 * (status N, tasks from the application's scenario) and keeps a response file per application for
 * getResponseFile. The spec promises nothing about an external id sent twice, so by default the same external id
 * sent again by the same firm makes a second account: only the caller's lookup (getResponseFile) prevents
 * duplicates. The setting `repeatedExternalId: 'already-processed'` answers it instead as the brokerage's files
 * show: Status `Already processed`, no new account.
 */
import { randomBytes } from 'node:crypto';
import { childrenNamed } from '../../eca/xml-tree.js';
import { dailySubmissionCovers } from '../../eca/application.js';
import { requireAgreements } from '../lifecycle.js';
import { passwordDigest } from '../portal-passwords.js';
import { validateApplicationStructure } from '../formats/application-validation.js';
import { readApplication, readImportFile, type ImportApplication } from '../formats/import-schema.js';
import { buildCreateResponseXml, type CreateResponseApplicationInput } from '../formats/report-xml.js';
import { isoDate, reportFileName, reportTimestamp, XSD_VERSION } from '../formats/wire-text.js';
import type { AccountRecord, FirmRecord } from '../model.js';
import { nowText, ok, type Operation, type OperationContext } from './context.js';
import { envelope, openPayload, PayloadProblem, readPayloadArchive, sealFor } from './envelope.js';

/**
 * The text that makes create refuse a file under the setting `create-format-refusal` (anywhere in the
 * application XML: an external id, a comment), every time; validateXML is not affected.
 */
export const FORMAT_REFUSED_MARK = 'format-refused';

export const validateXML: Operation = async (ctx, request) => {
  const { firm, payload } = envelope(ctx, request.body);
  const batchId = ctx.store.nextBatchId();
  let errors: string[];
  try {
    const archive = readPayloadArchive(await openPayload(ctx, firm, payload));
    errors = validateApplicationStructure(archive.xml.content);
  } catch (error) {
    if (!(error instanceof PayloadProblem)) throw error;
    errors = [error.message];
  }
  return ok({
    isValid: errors.length === 0,
    batchId,
    timestamp: nowText(ctx),
    errors: errors.map((error) => ({ error })),
  });
};

/** Errors of application `index` (0-based) among validateApplicationStructure's texts. */
function errorsOf(errors: string[], index: number): string[] {
  const label = `Application ${index + 1}`;
  return errors.filter((error) => error.startsWith(`${label}:`) || error.startsWith(`${label} (`));
}

function temporaryPassword(): string {
  return `Tmp${randomBytes(6).toString('base64url')}1`;
}

/** The application as the response file reports it once its account is open. */
function created(
  account: AccountRecord,
  application: ImportApplication,
  temporaryPassword: string,
): CreateResponseApplicationInput {
  const digits = account.accountId.replace(/\D/g, '');
  return {
    externalId: account.externalId,
    status: 'Success',
    users: [{ userName: account.userName, userId: digits, temporaryPassword }],
    accounts: [{ accountId: account.accountId, status: account.status }],
    entities: application.holderExternalIds.map((externalId, index) => ({
      entityId: `${digits}${index + 1}`,
      ...(externalId === '' ? {} : { externalId }),
    })),
    pendingTasks: account.tasks
      .filter((task) => !task.complete)
      .map((task) => ({
        formNumber: task.formNumber,
        formName: task.formName,
        action: task.action,
        isRequiredForApproval: task.isRequiredForApproval,
        isRequiredForTrading: task.isRequiredForTrading,
        isOnlineTask: task.isOnlineTask,
        state: task.state,
      })),
  };
}

/** Whether this firm's earlier create of the external id made an account. */
function madeAccountBefore(ctx: Pick<OperationContext, 'store'>, firm: FirmRecord, externalId: string): boolean {
  return ctx.store.responseFilesOf(firm.csid, externalId).some((file) => file.accountId !== undefined);
}

/** One create call's file: what every application in it shares. */
export interface CreateFile {
  firm: FirmRecord;
  batchId: number;
  /** The response file name (spec pattern `<Firm>_YYYYMMDD_####_####.xml.report`). */
  name: string;
  /** The application XML's file name in the archive. */
  processFile: string;
  attachments: string[];
  now: number;
}

/** The response file of one application, kept for getResponseFile. */
function singleResponse(file: CreateFile, result: CreateResponseApplicationInput): string {
  return buildCreateResponseXml({
    version: XSD_VERSION,
    executionDate: reportTimestamp(file.now),
    processFile: file.processFile,
    client: file.firm.name,
    clientMasterAcct: file.firm.masterAccount,
    applications: [result],
  });
}

/** Makes the account of one application, or records why not; the Web API's create comes here too. */
export function createOne(
  ctx: Pick<OperationContext, 'store'>,
  file: CreateFile,
  application: ImportApplication,
  problems: string[],
  sequence: number,
): CreateResponseApplicationInput {
  const { firm, now } = file;
  const externalId = application.externalId ?? '';
  const owner = ctx.store.externalIdOwner.get(externalId);
  const refusal =
    problems.length > 0
      ? problems
      : owner !== undefined && owner !== firm.csid
        ? [`External id ${externalId} is already in use`]
        : [];
  if (refusal.length > 0) {
    const result: CreateResponseApplicationInput = { externalId, status: 'Error', errors: refusal };
    // A processed file that made no account: getResponseFile shows it as the spec's failure entry.
    if (externalId !== '' && (owner === undefined || owner === firm.csid)) {
      ctx.store.addResponseFile({
        csid: firm.csid,
        externalId,
        name: file.name,
        createdAt: now,
        error: refusal.join('; '),
        xml: singleResponse(file, result),
      });
    }
    return result;
  }
  if (ctx.store.repeatedExternalId === 'already-processed' && madeAccountBefore(ctx, firm, externalId)) {
    // No new account and no new file for getResponseFile, which keeps listing the earlier create's file.
    return { externalId, status: 'Already processed' };
  }
  const password = temporaryPassword();
  const account = ctx.store.createAccount({
    csid: firm.csid,
    externalId,
    customerType: application.customerType,
    ...(application.userPrefix === undefined ? {} : { userName: application.userPrefix }),
    batchId: file.batchId,
    sequence,
    temporaryPasswordDigest: passwordDigest(password),
  });
  // Every application of one file shares the file's report name.
  account.responseFileName = file.name;
  account.createAttachments = file.attachments;
  requireAgreements(account, agreementsNotCarried(file, application.customerType), now);
  const result = created(account, application, password);
  ctx.store.addResponseFile({
    csid: firm.csid,
    externalId,
    accountId: account.accountId,
    name: file.name,
    createdAt: now,
    xml: singleResponse(file, result),
  });
  return result;
}

/**
 * The forms the day's submitDocuments accepted that this create must carry itself: none for the customers rule 4
 * covers (individual, joint, retirement), every one its archive lacks (by file name, rule 8) for the others.
 */
function agreementsNotCarried(file: CreateFile, customerType: string): Array<{ formNumber: string; fileName: string }> {
  if (dailySubmissionCovers(customerType)) return [];
  const today = isoDate(file.now);
  const carried = new Set(file.attachments);
  // A form may have several files (AttachedFile "one or more per Document"): one task per form lacking any of them.
  const lacking = new Map<string, { formNumber: string; fileName: string }>();
  for (const submission of file.firm.documentSubmissions ?? []) {
    if (submission.day !== today) continue;
    for (const form of submission.accepted ?? []) {
      if (!carried.has(form.fileName) && !lacking.has(form.formNumber)) lacking.set(form.formNumber, form);
    }
  }
  return [...lacking.values()];
}

export const create: Operation = async (ctx, request) => {
  const { firm, payload } = envelope(ctx, request.body);
  const batchId = ctx.store.nextBatchId();
  // Spec, create response: timestamp, isProcessed, batchId, and name / fileData.data "only when isProcessed is
  // true". No error text is listed, so a refusal carries none: the reason below names the case, for the reader.
  const refuse = (_reason: string) => ok({ timestamp: nowText(ctx), isProcessed: false, batchId });
  let archive: ReturnType<typeof readPayloadArchive>;
  try {
    archive = readPayloadArchive(await openPayload(ctx, firm, payload));
  } catch (error) {
    if (error instanceof PayloadProblem) return refuse(error.message);
    throw error;
  }
  const xml = archive.xml.content;
  // Spec, create: isProcessed false "when the XML format is invalid": not well-formed, or not the import schema.
  const read = readImportFile(xml);
  if (!read.ok) return refuse(`Invalid XML format: ${read.problem}`);
  const applications = childrenNamed(read.root, 'Application').map(readApplication);
  if (applications.length === 0) return refuse('Invalid XML format: no Application element');
  // Under `create-format-refusal`, a file holding the mark is refused as invalid XML format although
  // validateXML accepts it: the spec's create names a cause its structural validation does not see.
  if (ctx.store.unpromised.has('create-format-refusal') && xml.includes(FORMAT_REFUSED_MARK)) {
    return refuse(`Invalid XML format (the file holds ${FORMAT_REFUSED_MARK})`);
  }
  const errors = validateApplicationStructure(xml);
  const now = ctx.store.now();
  const firstSequence = ctx.store.nextFileSequence();
  const file: CreateFile = {
    firm,
    batchId,
    name: reportFileName(firm.name, now, batchId, firstSequence),
    processFile: archive.xml.fileName,
    attachments: [...archive.files.keys()].filter((name) => name !== archive.xml.fileName),
    now,
  };
  const results = applications.map((application, index) =>
    createOne(ctx, file, application, errorsOf(errors, index), firstSequence + index),
  );
  ctx.store.counters.fileSequence += applications.length - 1;
  const reportXml = buildCreateResponseXml({
    version: XSD_VERSION,
    executionDate: reportTimestamp(now),
    processFile: file.processFile,
    client: firm.name,
    clientMasterAcct: firm.masterAccount,
    applications: results,
  });
  const name = file.name;
  return ok({
    timestamp: nowText(ctx),
    isProcessed: true,
    batchId,
    name,
    fileData: { data: await sealFor(ctx, firm, reportXml) },
  });
};

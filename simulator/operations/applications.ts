/**
 * validateXML and create. create makes one account per application (status N, tasks from the
 * application's scenario) and keeps a response file per application for getResponseFile. The spec
 * promises nothing about an external id sent twice, so the same external id sent again by the same
 * firm makes a second account: only the caller's lookup (getResponseFile) prevents duplicates.
 */
import { randomBytes } from 'node:crypto';
import { parseApplications, type ApplicationSummary } from '../../eca/application.js';
import { xmlWellFormednessError } from '../../eca/xml-tree.js';
import { validateApplicationStructure } from '../formats/application-validation.js';
import { buildCreateResponseXml, type CreateResponseApplicationInput } from '../formats/report-xml.js';
import { reportFileName, reportTimestamp, XSD_VERSION } from '../formats/wire-text.js';
import type { FirmRecord } from '../model.js';
import { nowText, ok, type Operation, type OperationContext } from './context.js';
import { envelope, openPayload, PayloadProblem, readPayloadArchive, sealFor } from './envelope.js';

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

function userNameFor(application: ApplicationSummary): string | undefined {
  return application.prefix;
}

function createOne(
  ctx: OperationContext,
  firm: FirmRecord,
  application: ApplicationSummary,
  problems: string[],
  batchId: number,
  sequence: number,
  fileName: string,
  processFile: string,
  attachments: string[],
): CreateResponseApplicationInput {
  const externalId = application.externalId ?? '';
  const now = ctx.store.now();
  /** The file as this one application's response: the format is the simulator's own (spec: "not shown"). */
  const responseXml = (result: CreateResponseApplicationInput) =>
    buildCreateResponseXml({
      version: XSD_VERSION,
      executionDate: reportTimestamp(now),
      processFile,
      client: firm.name,
      clientMasterAcct: firm.masterAccount,
      applications: [result],
    });
  const owner = ctx.store.externalIdOwner.get(externalId);
  const refusal =
    problems.length > 0
      ? problems
      : owner !== undefined && owner !== firm.csid
        ? [`External id ${externalId} is already in use`]
        : [];
  if (refusal.length > 0) {
    // A processed file that made no account: getResponseFile shows it as the spec's failure entry.
    if (externalId !== '' && (owner === undefined || owner === firm.csid)) {
      ctx.store.addResponseFile({
        csid: firm.csid,
        externalId,
        name: fileName,
        createdAt: now,
        error: refusal.join('; '),
        xml: responseXml({ externalId, status: 'Error', errors: refusal }),
      });
    }
    return { externalId, status: 'Error', errors: refusal };
  }
  const account = ctx.store.createAccount({
    csid: firm.csid,
    externalId,
    customerType: String(application.customerType),
    userName: userNameFor(application),
    batchId,
    sequence,
  });
  // Every application of one file shares the file's report name.
  account.responseFileName = fileName;
  account.createAttachments = attachments;
  const result: CreateResponseApplicationInput = {
    externalId,
    status: 'Success',
    accountIds: [account.accountId],
    users: [{ userName: account.userName, temporaryPassword: temporaryPassword() }],
  };
  ctx.store.addResponseFile({
    csid: firm.csid,
    externalId,
    accountId: account.accountId,
    name: fileName,
    createdAt: now,
    xml: responseXml(result),
  });
  return result;
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
  const malformed = xmlWellFormednessError(xml);
  if (malformed) return refuse(`Invalid XML format: ${malformed}`);
  let applications: ApplicationSummary[];
  try {
    applications = parseApplications(xml);
  } catch (error) {
    return refuse(`Invalid XML format: ${(error as Error).message}`);
  }
  if (applications.length === 0) return refuse('Invalid XML format: no Application element');
  const errors = validateApplicationStructure(xml);
  const now = ctx.store.now();
  const firstSequence = ctx.store.nextFileSequence();
  const name = reportFileName(firm.name, now, batchId, firstSequence);
  const results = applications.map((application, index) =>
    createOne(
      ctx,
      firm,
      application,
      errorsOf(errors, index),
      batchId,
      firstSequence + index,
      name,
      archive.xml.fileName,
      [...archive.files.keys()].filter((file) => file !== archive.xml.fileName),
    ),
  );
  ctx.store.counters.fileSequence += applications.length - 1;
  const reportXml = buildCreateResponseXml({
    version: XSD_VERSION,
    executionDate: reportTimestamp(now),
    processFile: archive.xml.fileName,
    client: firm.name,
    clientMasterAcct: firm.masterAccount,
    applications: results,
  });
  return ok({
    timestamp: nowText(ctx),
    isProcessed: true,
    batchId,
    name,
    fileData: { data: await sealFor(ctx, firm, reportXml) },
  });
};

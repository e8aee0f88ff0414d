/**
 * update: every function element of the request file becomes a request, PENDING for a short simulated
 * while and then PROCESSED or REJECTED, read with getAmRequestStatus by account (matched on the
 * response file name). The spec does not show the update response XML, so the one sent here names
 * no request ids and no per-document results: a caller can only rely on getAmRequestStatus.
 * Effects on the account (abandon, reset, documents under review) apply when the request is accepted.
 */
import { buildXml } from '../../eca/xml-tree.js';
import { executionElements, formatChecksumMismatchStatus } from '../formats/report-xml.js';
import { parseUpdateRequestXml, type ParsedUpdateRequest } from '../formats/request-xml.js';
import { updateResponseFileName, XSD_VERSION, reportTimestamp } from '../formats/wire-text.js';
import { abandon, isPending, receiveDocument, reset } from '../lifecycle.js';
import type { AccountRecord, FirmRecord, FirmType, UpdateRequestRecord } from '../model.js';
import { notAssociated, nowText, ok, type Operation, type OperationContext } from './context.js';
import { checkAttachedFiles, type FileCheck, withoutAttachedFile } from './documents.js';
import { envelope, openPayload, PayloadProblem, readPayloadArchive, sealFor } from './envelope.js';

type Target = 'open' | 'pending' | 'abandoned';

interface FunctionRule {
  /** Fully disclosed and advisor clients. */
  disclosed: boolean;
  nonDisclosed: boolean;
  target: Target;
}

/** The spec's tables of update functions (functions it leaves unnamed cannot be called). */
export const UPDATE_FUNCTIONS: Record<string, FunctionRule> = {
  AccountConfiguration: { disclosed: false, nonDisclosed: true, target: 'open' },
  AddAdditionalAcct: { disclosed: true, nonDisclosed: true, target: 'open' },
  ChangeAccountHolderDetail: { disclosed: true, nonDisclosed: true, target: 'open' },
  ChangeBaseCurrency: { disclosed: true, nonDisclosed: true, target: 'open' },
  CompleteLoginMessage: { disclosed: true, nonDisclosed: false, target: 'open' },
  SecurityQuestions: { disclosed: true, nonDisclosed: true, target: 'open' },
  UpdateBCAN: { disclosed: false, nonDisclosed: true, target: 'open' },
  UpdateCredentials: { disclosed: true, nonDisclosed: true, target: 'open' },
  UpdateExternalId: { disclosed: true, nonDisclosed: true, target: 'open' },
  UpdateWithholdingStatement: { disclosed: false, nonDisclosed: true, target: 'open' },
  UpdateTaxForm: { disclosed: true, nonDisclosed: true, target: 'open' },
  AbandonAccount: { disclosed: true, nonDisclosed: true, target: 'pending' },
  DocumentSubmission: { disclosed: true, nonDisclosed: true, target: 'pending' },
  ProhibitedCountryQuestionnaire: { disclosed: true, nonDisclosed: true, target: 'pending' },
  Questionnaires: { disclosed: true, nonDisclosed: false, target: 'pending' },
  QuizQuestionnaires: { disclosed: true, nonDisclosed: false, target: 'pending' },
  ResetAbandonedAccount: { disclosed: true, nonDisclosed: true, target: 'abandoned' },
};

function available(rule: FunctionRule, firmType: FirmType): boolean {
  return firmType === 'non-disclosed' ? rule.nonDisclosed : rule.disclosed;
}

const TARGET_TEXT: Record<Target, string> = {
  open: 'applies to open accounts only',
  pending: 'applies to pending applications only',
  abandoned: 'applies to abandoned applications only',
};

function fits(account: AccountRecord, target: Target): boolean {
  if (target === 'open') return account.status === 'O';
  if (target === 'pending') return isPending(account);
  return account.status === 'A';
}

/**
 * Decides one function request; returns the rejection reason, or undefined when it is accepted (and applied).
 * The Web API's account management requests are decided here too (simulator/webapi/writes.ts).
 */
export function decide(
  ctx: Pick<OperationContext, 'store'>,
  firm: FirmRecord,
  request: ParsedUpdateRequest,
  files: Map<string, Uint8Array>,
  checks: FileCheck[],
): string | undefined {
  const rule = UPDATE_FUNCTIONS[request.functionName];
  if (!rule) return `Unknown function ${request.functionName}`;
  if (!available(rule, firm.firmType)) {
    return `Function ${request.functionName} is not available to ${firm.firmType} firms`;
  }
  if (request.accountId === undefined) return `Function ${request.functionName} needs the attribute ib_acct`;
  const account = ctx.store.ownAccount(firm.csid, request.accountId);
  if (!account) return notAssociated(request.accountId, firm);
  if (!fits(account, rule.target)) {
    return `Function ${request.functionName} ${TARGET_TEXT[rule.target]}; account ${account.accountId} has status ${account.status}`;
  }
  const now = ctx.store.now();
  const timings = ctx.store.timings;
  switch (request.functionName) {
    case 'AbandonAccount':
      abandon(account, now);
      return undefined;
    case 'ResetAbandonedAccount':
      reset(account, now, timings);
      return undefined;
    case 'DocumentSubmission': {
      const documents = request.documents ?? [];
      if (documents.length === 0) return 'DocumentSubmission holds no Document';
      const empty = documents.find((document) => document.files.length === 0);
      if (empty) return withoutAttachedFile(empty);
      checks.push(...checkAttachedFiles(documents, files));
      const problem = checks.find((check) => check.problem);
      if (problem?.problem) {
        const { checksumMismatch, status, fileName } = problem.problem;
        return checksumMismatch
          ? formatChecksumMismatchStatus(fileName, checksumMismatch.stored, checksumMismatch.received)
          : (status ?? `File ${fileName} was refused`);
      }
      for (const check of checks) {
        receiveDocument(
          account,
          check.formNumber,
          { fileName: check.fileName, sha1: check.sha1, length: check.length, receivedAt: now },
          timings,
        );
      }
      return undefined;
    }
    default:
      // The other functions change nothing the simulated queries show; accepting them is the behaviour under test.
      return undefined;
  }
}

/** The response file: an execution header only (its format is not shown by the spec). */
function responseXml(firm: FirmRecord, fileName: string, at: number): string {
  return buildXml({
    name: 'Process',
    children: executionElements({
      version: XSD_VERSION,
      executionDate: reportTimestamp(at),
      processFile: fileName,
      client: firm.name,
      clientMasterAcct: firm.masterAccount,
    }),
  });
}

export const update: Operation = async (ctx, request) => {
  const { firm, payload } = envelope(ctx, request.body);
  // Nothing filed: no fileData. The spec lists no `error` field; under `no-error-field` none is sent.
  const notFiled = (error: string) =>
    ok(ctx.store.unpromised.has('no-error-field') ? { timestamp: nowText(ctx) } : { timestamp: nowText(ctx), error });
  let archive: ReturnType<typeof readPayloadArchive>;
  try {
    archive = readPayloadArchive(await openPayload(ctx, firm, payload));
  } catch (error) {
    if (error instanceof PayloadProblem) return notFiled(error.message);
    throw error;
  }
  let requests: ParsedUpdateRequest[];
  try {
    requests = parseUpdateRequestXml(archive.xml.content);
  } catch (error) {
    return notFiled(`Invalid request XML: ${(error as Error).message}`);
  }
  if (requests.length === 0) return notFiled('The request XML holds no function element');
  const now = ctx.store.now();
  const batch = ctx.store.nextBatchId();
  const fileName = updateResponseFileName(firm.name, now, batch, ctx.store.nextFileSequence());
  for (const parsed of requests) {
    const checks: FileCheck[] = [];
    const rejection = decide(ctx, firm, parsed, archive.files, checks);
    const record: UpdateRequestRecord = {
      requestId: ctx.store.nextRequestId(),
      csid: firm.csid,
      functionName: parsed.functionName,
      submittedAt: now,
      decidedAt: now + ctx.store.timings.requestProcessingMs,
      outcome: rejection === undefined ? 'PROCESSED' : 'REJECTED',
      fileName,
      archiveFiles: [
        archive.xml.fileName,
        ...[...archive.files.keys()].filter((name) => name !== archive.xml.fileName),
      ],
    };
    if (parsed.accountId !== undefined) record.accountId = parsed.accountId;
    if (rejection !== undefined) record.error = rejection;
    ctx.store.addRequest(record);
  }
  const data = await sealFor(ctx, firm, responseXml(firm, fileName, now));
  return ok({ timestamp: nowText(ctx), fileData: { name: fileName, data } });
};

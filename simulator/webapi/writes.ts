/**
 * The Web API's account writes on the simulator, deciding as the XML service does (one store, the same
 * scenarios, the same rules): `POST /gw/api/v1/accounts` makes an account as create does,
 * `PATCH /gw/api/v1/accounts` files an account management request as update does, and the look-ups
 * (`GET /gw/api/v1/accounts?externalId=`, `GET /gw/api/v1/requests`) list what they wrote, late under the
 * listing lag of getResponseFile and getAmRequestStatus.
 *
 * Where the document is silent, the hardest reading (simulator/README.md, "Web API"): an external id sent
 * twice makes a second account (only the caller's look-up prevents it, as on the XML service); a write's
 * answer says nothing of its outcome (`fileData.data` holds only its status word); a request's details carry
 * no reason for a rejection; and a body the document's types refuse is a 400 problem.
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import { AccountManagementRequests, functionOfMember, holdersOf, WebApiApplication } from '../../webapi/index.js';
import type { WebApiDocument } from '../../webapi/index.js';
import { parseTimestamp } from '../../eca/types.js';
import { CUSTOMER_TYPES } from '../../eca/application.js';
import { NATURAL_PERSON_TYPES } from '../formats/import-schema.js';
import type { ParsedDocument, ParsedUpdateRequest } from '../formats/request-xml.js';
import { reportFileName, updateResponseFileName } from '../formats/wire-text.js';
import { createOne } from '../operations/applications.js';
import type { CreateFile } from '../operations/applications.js';
import { decide } from '../operations/update.js';
import type { FileCheck } from '../operations/documents.js';
import type { FirmRecord, UpdateRequestRecord } from '../model.js';
import type { Store } from '../store.js';
import { WebApiRefusal } from './authority.js';
import type { RegisteredClient, WebApiAuthority } from './authority.js';
import { answer } from './answer.js';
import { parseStatusRequest, refuseWrongId } from './accounts.js';

/** A body the document's types refuse: a 400 naming the first field. */
export function parsed<T>(schema: z.ZodType<T>, claims: unknown, root: string): T {
  const result = schema.safeParse(claims);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw new WebApiRefusal(400, `${[root, ...issue.path].join('.')}: ${issue.message}`);
}

/** The PDFs a body carries, by file name, and what is wrong with any of them. */
export function carriedFiles(documents: WebApiDocument[]): { files: Map<string, Uint8Array>; problems: string[] } {
  const files = new Map<string, Uint8Array>();
  const problems: string[] = [];
  for (const document of documents) {
    const { fileName } = document.attachedFile;
    if (!document.payload) {
      problems.push(`Document ${document.formNumber}: payload.data holds no file ${fileName}`);
      continue;
    }
    files.set(fileName, Buffer.from(document.payload.data, 'base64'));
  }
  return { files, problems };
}

/** The XML service's view of the documents: the checks of attached files are shared. */
export function parsedDocuments(documents: WebApiDocument[]): ParsedDocument[] {
  const timestamp = (seconds: number) => parseTimestamp(new Date(seconds * 1000).toISOString().slice(0, 19));
  return documents.map((document) => ({
    formNumber: String(document.formNumber),
    execTs: timestamp(document.execTimestamp),
    execLoginTs: timestamp(document.execLoginTimestamp),
    files: [
      {
        fileName: document.attachedFile.fileName,
        sha1: document.attachedFile.sha1Checksum,
        length: document.attachedFile.fileLength,
      },
    ],
  }));
}

/** What the brokerage checks of an application before it opens an account (the XML service's rules). */
function applicationProblems(application: WebApiApplication): string[] {
  const { customer } = application;
  const problems: string[] = [];
  if (!(CUSTOMER_TYPES as readonly string[]).includes(customer.type)) {
    problems.push(`customer.type: ${customer.type} is not one of ${CUSTOMER_TYPES.join(', ')}`);
  }
  const holders = holdersOf(customer);
  if (holders.length === 0) problems.push('customer: no account holder');
  if (customer.type === 'JOINT' && holders.length !== 2) problems.push('customer: JOINT needs two holders');
  holders.forEach((holder, index) => {
    if (!holder.name.first || !holder.name.last) problems.push(`holder ${index + 1}: name.first and name.last`);
    if (NATURAL_PERSON_TYPES.has(customer.type) && !holder.email) problems.push(`holder ${index + 1}: email`);
  });
  return problems;
}

/** Checks each carried PDF against its declared length and SHA-1, as create's archive is checked. */
function fileProblems(documents: WebApiDocument[], files: Map<string, Uint8Array>): string[] {
  return documents.flatMap((document) => {
    const { fileName, fileLength, sha1Checksum } = document.attachedFile;
    const data = files.get(fileName);
    if (!data) return [];
    const sha1 = createHash('sha1').update(data).digest('hex');
    if (sha1 !== sha1Checksum.toLowerCase())
      return [`File ${fileName}: SHA-1 ${sha1} received, ${sha1Checksum} declared`];
    if (data.byteLength !== fileLength)
      return [`File ${fileName}: ${data.byteLength} bytes received, ${fileLength} declared`];
    return [];
  });
}

/** The firm a client writes for; a client whose firm the brokerage does not hold may write nothing. */
export function firmOf(store: Store, client: RegisteredClient): FirmRecord {
  const firm = store.firms.get(client.csid);
  if (!firm) throw new WebApiRefusal(403, 'Insufficient permissions: the client’s firm is not registered');
  return firm;
}

export function registerAccountWrites(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  registerCreate(app, authority, store);
  registerLookup(app, authority, store);
  registerManage(app, authority, store);
  registerRequests(app, authority, store);
}

function registerCreate(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.post('/gw/api/v1/accounts', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.write');
      const claims = authority.signedBody(request.body, client);
      const application = parsed(WebApiApplication, claims.application, 'application');
      const firm = firmOf(store, client);
      const documents = application.documents ?? [];
      const { files, problems } = carriedFiles(documents);
      const now = store.now();
      const batchId = store.nextBatchId();
      const sequence = store.nextFileSequence();
      const file: CreateFile = {
        firm,
        batchId,
        name: reportFileName(firm.name, now, batchId, sequence),
        processFile: 'application.json',
        attachments: [...files.keys()],
        now,
      };
      const holders = holdersOf(application.customer);
      const result = createOne(
        { store },
        file,
        {
          element: { name: 'Application', attributes: {}, children: [], text: '' },
          externalId: application.customer.externalId,
          customerType: application.customer.type,
          ...((application.users?.[0]?.prefix ?? application.customer.prefix) !== undefined && {
            userPrefix: application.users?.[0]?.prefix ?? application.customer.prefix,
          }),
          holderExternalIds: holders.map((holder) => holder.externalId ?? ''),
        },
        [...applicationProblems(application), ...problems, ...fileProblems(documents, files)],
        sequence,
      );
      const made = result.accounts?.[0]?.accountId;
      const account = made === undefined ? undefined : store.account(made);
      if (account) account.via = 'webapi';
      return {
        requestId: Number(store.nextRequestId()),
        dateSubmitted: new Date(now).toISOString(),
        fileData: { name: file.name, data: { status: result.status } },
      };
    }),
  );
}

function registerLookup(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.get<{ Querystring: { externalId?: string; accountId?: string } }>('/gw/api/v1/accounts', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.read');
      const { accountId } = request.query;
      // The document's look-up takes `accountId`, `externalId` or both; with both, they must name one account.
      const account = accountId ? store.ownAccount(client.csid, accountId) : undefined;
      if (accountId && !account) return { accountId, hasError: true, errorDescription: 'Account not found' };
      const externalId = request.query.externalId || account?.externalId;
      if (!externalId) throw new WebApiRefusal(400, 'externalId or accountId: required');
      const files = store.responseFilesOf(client.csid, externalId);
      const listed = files.filter((file) => store.listing.listed('getResponseFile', file.name));
      // The latest file: an account made (FileDetailsResponse), else its failure (ResponseFileResponse).
      const made = listed
        .filter((file) => file.accountId !== undefined && (!account || file.accountId === accountId))
        .at(-1);
      if (made) {
        const madeAccount = account ?? store.ownAccount(client.csid, made.accountId!);
        return {
          accountId: made.accountId,
          requestFileName: madeAccount?.requestFileName,
          responseFileName: made.name,
        };
      }
      if (account) {
        return { accountId, hasError: true, errorDescription: `No application with external id ${externalId} made it` };
      }
      // The latest application received, its outcome not listed yet: said so under `webapi-create-unprocessed`,
      // as the document allows.
      const latest = files.at(-1);
      if (latest && !listed.includes(latest) && store.unpromised.has('webapi-create-unprocessed')) {
        return { name: latest.name, isProcessed: false, hasError: false };
      }
      const failed = listed.at(-1);
      if (failed) return { name: failed.name, isProcessed: true, hasError: true, errorDescription: failed.error };
      return { hasError: true, errorDescription: `No application with external id ${externalId}` };
    }),
  );
}

function registerManage(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.patch('/gw/api/v1/accounts', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.write');
      const claims = authority.signedBody(request.body, client);
      const requests = parsed(AccountManagementRequests, claims.accountManagementRequests, 'accountManagementRequests');
      const kinds = Object.keys(requests);
      if (kinds.length !== 1) {
        throw new WebApiRefusal(400, `accountManagementRequests: one request a call (found ${kinds.length})`);
      }
      const parsedRequest = updateRequestOf(requests, store.userNames);
      refuseWrongId(store, parsedRequest.accountId);
      const firm = firmOf(store, client);
      const documents = requests.documentSubmission?.documents ?? [];
      const { files, problems } = carriedFiles(documents);
      const checks: FileCheck[] = [];
      const now = store.now();
      const rejection = problems[0] ?? decide({ store }, firm, parsedRequest, files, checks);
      const fileName = updateResponseFileName(firm.name, now, store.nextBatchId(), store.nextFileSequence());
      const record: UpdateRequestRecord = {
        requestId: store.nextRequestId(),
        csid: firm.csid,
        accountId: parsedRequest.accountId!,
        functionName: parsedRequest.functionName,
        submittedAt: now,
        decidedAt: now + store.timings.requestProcessingMs,
        outcome: rejection === undefined ? 'PROCESSED' : 'REJECTED',
        fileName,
        archiveFiles: [...files.keys()],
        via: 'webapi',
        ...(rejection !== undefined && { error: rejection }),
      };
      store.addRequest(record);
      return {
        requestId: Number(record.requestId),
        dateSubmitted: new Date(now).toISOString(),
        fileData: { name: fileName, data: { status: 'Submitted' } },
      };
    }),
  );
}

function registerRequests(app: FastifyInstance, authority: WebApiAuthority, store: Store): void {
  app.get<{ Querystring: { requestDetails?: string } }>('/gw/api/v1/requests', (request, reply) =>
    answer(reply, () => {
      const client = authority.authenticate(request.headers.authorization, 'accounts.read');
      const range = parseStatusRequest(request.query.requestDetails, 'requestDetails');
      if (typeof range === 'string') throw new WebApiRefusal(400, range);
      const from = Date.parse(range.startDate);
      const to = Date.parse(range.endDate) + 86_400_000;
      const now = store.now();
      // `status` (the document's account status letters) selects the requests of accounts in that status now;
      // a request listed without an account is in none.
      const accountStatusOf = (record: UpdateRequestRecord) =>
        record.accountId === undefined || NO_ACCOUNT_NAMED.has(record.functionName)
          ? undefined
          : store.ownAccount(client.csid, record.accountId)?.status;
      const matching = [...store.requests.values()]
        .filter((record) => record.csid === client.csid && record.submittedAt >= from && record.submittedAt < to)
        .filter((record) => range.status === undefined || accountStatusOf(record) === range.status)
        .filter((record) => store.listing.listed('getAmRequestStatus', record.requestId))
        .sort((a, b) => Number(a.requestId) - Number(b.requestId));
      return {
        requestDetails: matching.slice(range.offset, range.offset + range.limit).map((record) => ({
          requestId: Number(record.requestId),
          // A request whose member names no account (securityQuestions) is listed without one: the document
          // does not say the brokerage ties it to an account.
          ...(record.accountId !== undefined &&
            !NO_ACCOUNT_NAMED.has(record.functionName) && { accountID: record.accountId }),
          requestType: record.functionName,
          status: now < record.decidedAt ? 'PENDING' : record.outcome,
          dateSubmitted: new Date(record.submittedAt).toISOString(),
        })),
        offset: range.offset,
        limit: range.limit,
        total: matching.length,
      };
    }),
  );
}

/** A PATCH has no XML function element: update's decisions read none of it. */
function noElement(): ParsedUpdateRequest['element'] {
  return { name: '', attributes: {}, children: [], text: '' };
}

/** The functions whose Web API member names no account. */
const NO_ACCOUNT_NAMED = new Set(['SecurityQuestions']);

/** The one request of a PATCH as the XML service's update decides it. */
function updateRequestOf(
  requests: AccountManagementRequests,
  userNames: ReadonlyMap<string, string>,
): ParsedUpdateRequest {
  const element = noElement();
  if (requests.abandonAccount) {
    const { accountId } = requests.abandonAccount;
    return { functionName: 'AbandonAccount', accountId, attributes: {}, element };
  }
  if (requests.resetAbandonedAccount) {
    const { accountId } = requests.resetAbandonedAccount;
    return { functionName: 'ResetAbandonedAccount', accountId, attributes: {}, element };
  }
  if (requests.documentSubmission) {
    const { accountId, documents } = requests.documentSubmission;
    return {
      functionName: 'DocumentSubmission',
      accountId,
      attributes: {},
      element,
      documents: parsedDocuments(documents),
    };
  }
  return maintenanceRequestOf(requests, userNames);
}

/**
 * A maintenance member as update decides its function: the account it names, or for `securityQuestions`
 * (which names none) the account of its user. The effects are update's: none the queries show.
 */
function maintenanceRequestOf(
  requests: AccountManagementRequests,
  userNames: ReadonlyMap<string, string>,
): ParsedUpdateRequest {
  const element = noElement();
  const [kind = ''] = Object.keys(requests);
  const functionName = functionOfMember(kind);
  if (functionName === undefined) {
    throw new WebApiRefusal(400, `accountManagementRequests.${kind}: not served by the simulator`);
  }
  const member = (requests as Record<string, { accountId?: string; referenceUserName?: string }>)[kind]!;
  const accountId =
    kind === 'securityQuestions' ? userNames.get(member.referenceUserName ?? '') : member.accountId || undefined;
  return { functionName, ...(accountId !== undefined && { accountId }), attributes: {}, element };
}

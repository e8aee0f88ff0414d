/**
 * The application workflow's activities: every call to the brokerage service, through `eca/`.
 * Transport failures are thrown (the workflow's retry policy backs off); refusals by the service come
 * back as results the lifecycle handles; broken configuration or input fails without retry.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  buildDocumentSubmissionXml,
  buildUpdateRequestXml,
  EcaCryptoError,
  EcaHttpError,
  EcaRequestError,
  parseDocumentsReport,
  parseXmlTree,
} from '../eca/index.js';
import type { EcaClient, PendingTask, UpdateResponse } from '../eca/index.js';
import type { AccountSnapshot, FormDocument, TaskView } from '../workflows/lifecycle/types.js';
import type { ApplicationActivities, CreateOutcome, RequestOutcome, UpdateOutcome } from './application-contract.js';
import { Batcher } from './batcher.js';
import type { DocumentStore } from './document-store.js';

export interface ApplicationActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
  /** Merges status reads; one is made from `batchWindowMs` / `maxAccountsPerCall` when not given. */
  statusReader?: StatusReader;
  batchWindowMs?: number;
  maxAccountsPerCall?: number;
  now?: () => Date;
  /**
   * The PDFs a create carries, given the caller's (see planCreateDocuments in forms.ts: only the tax
   * form when the day's submission was accepted, every PDF otherwise). The caller's list when unset.
   */
  createDocuments?: (input: {
    csid: string;
    applicationXml: string;
    documents: FormDocument[];
    now: Date;
  }) => Promise<FormDocument[]>;
}

/** Status and pending tasks of many accounts in two calls (getAccountStatus, getPendingTasks). */
export type StatusReader = Batcher<AccountSnapshot>;

export function createStatusReader(
  eca: EcaClient,
  options: { windowMs?: number; maxBatch?: number } = {},
): StatusReader {
  return new Batcher<AccountSnapshot>({
    windowMs: options.windowMs ?? 50,
    maxBatch: options.maxBatch ?? 100,
    fetch: async (csid, accountIds) => {
      const [statuses, tasks] = await Promise.all([
        eca.getAccountStatus({ CSID: csid, accountIds }),
        eca.getPendingTasks({ CSID: csid, accountIds }),
      ]);
      const tasksById = new Map(tasks.accounts.map((entry) => [entry.accountId, entry]));
      const result = new Map<string, AccountSnapshot | Error>();
      for (const entry of statuses.accounts) {
        if (entry.isError || !entry.status) {
          result.set(entry.accountId, new Error(entry.error ?? `no status for account ${entry.accountId}`));
          continue;
        }
        const pending = tasksById.get(entry.accountId);
        result.set(entry.accountId, {
          status: entry.status.code,
          stateText: entry.state?.state,
          description: entry.description,
          tasks: pending && !pending.isError ? pending.pendingTasks.map(toTaskView) : [],
        });
      }
      return result;
    },
  });
}

function toTaskView(task: PendingTask): TaskView {
  const view: TaskView = {
    formNumber: task.formNumber ?? '',
    formName: task.formName ?? '',
    action: task.action?.action ?? '',
  };
  if (task.state) {
    view.state = task.state.state;
    if ('reason' in task.state) view.reason = task.state.reason;
  }
  if (task.isRequiredForApproval !== undefined) view.isRequiredForApproval = task.isRequiredForApproval;
  if (task.isOnlineTask !== undefined) view.isOnlineTask = task.isOnlineTask;
  return view;
}

/** Errors no retry can mend (bad keys, invalid request): the activity fails at once with a typed failure. */
function failFast(error: unknown): never {
  if (error instanceof EcaCryptoError || error instanceof EcaRequestError) {
    throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  }
  throw error;
}

/** A 4xx answer is the service refusing this request; anything else may be transient. */
function isRefusal(error: unknown): error is EcaHttpError {
  return error instanceof EcaHttpError && error.status >= 400 && error.status < 500;
}

/** Request ids and per-document results from an update's response file. */
export function readUpdateResponse(response: UpdateResponse): { requestIds: string[]; rejected: string[] } {
  if (!response.fileData) return { requestIds: [], rejected: [] };
  const root = parseXmlTree(response.fileData.xml, 'update response');
  const requestIds: string[] = [];
  const visit = (node: typeof root): void => {
    if (node.name === 'Request' && node.attributes.request_id) requestIds.push(node.attributes.request_id);
    node.children.forEach(visit);
  };
  visit(root);
  const report = root.children.some((child) => child.name === 'DocumentSubmission')
    ? parseDocumentsReport(response.fileData.xml)
    : undefined;
  const rejected = (report?.documents ?? [])
    .filter((document) => !document.accepted)
    .map((document) => `form ${document.formNumber} (${document.fileName}): ${document.reason ?? document.status}`);
  return { requestIds, rejected };
}

export function createApplicationActivities(options: ApplicationActivityOptions): ApplicationActivities {
  const { eca, store } = options;
  const now = options.now ?? (() => new Date());
  const statusReader =
    options.statusReader ??
    createStatusReader(eca, { windowMs: options.batchWindowMs, maxBatch: options.maxAccountsPerCall });

  async function attachments(documents: FormDocument[]) {
    return Promise.all(
      documents.map(async (document) => ({ fileName: document.fileName, data: await store.get(document) })),
    );
  }

  async function sendUpdate(csid: string, xml: string, files: FormDocument[] = []): Promise<UpdateOutcome> {
    let response: UpdateResponse;
    try {
      response = await eca.update({ CSID: csid, xml, attachments: await attachments(files) });
    } catch (error) {
      if (isRefusal(error)) return { accepted: false, error: `update refused: HTTP ${error.status}` };
      return failFast(error);
    }
    if (!response.fileData) {
      const error = (response.raw as { error?: unknown } | null)?.error;
      return { accepted: false, error: typeof error === 'string' ? error : 'update was not processed' };
    }
    const { requestIds, rejected } = readUpdateResponse(response);
    if (rejected.length > 0) return { accepted: false, error: rejected.join('; ') };
    return { accepted: true, requestIds, responseFile: response.fileData.name };
  }

  async function findCreated(csid: string, externalId: string): Promise<CreateOutcome | undefined> {
    const lookup = await eca.getResponseFile({ CSID: csid, externalId });
    const entry = lookup.files.find((file) => file.isProcessed && !file.isError);
    if (!entry) return undefined;
    const application = entry.response?.applications.find((candidate) => candidate.externalId === externalId);
    if (!application?.succeeded || !application.accountId) {
      // Processed without an account (an error response): create again is the service's answer to give.
      return undefined;
    }
    return { created: true, accountId: application.accountId, userName: application.userName, recovered: true };
  }

  return {
    async validateApplication({ csid, application }) {
      const applicationXml = new TextDecoder().decode(await store.get(application));
      try {
        const result = await eca.validateXML({ CSID: csid, applicationXml });
        return result.isValid
          ? { valid: true, batchId: result.batchId }
          : { valid: false, errors: result.errors.length > 0 ? result.errors : ['validateXML: invalid'] };
      } catch (error) {
        return failFast(error);
      }
    },

    async createAccount({ csid, externalId, application, documents }) {
      // Before every attempt: a create whose response was lost must not make a second account.
      const existing = await findCreated(csid, externalId);
      if (existing) return existing;

      const applicationXml = new TextDecoder().decode(await store.get(application));
      const attached = options.createDocuments
        ? await options.createDocuments({ csid, applicationXml, documents, now: now() })
        : documents;
      let response;
      try {
        response = await eca.create({ CSID: csid, applicationXml, attachments: await attachments(attached) });
      } catch (error) {
        return failFast(error);
      }
      if (!response.isProcessed) {
        return {
          created: false,
          errors: ['create was not processed: the XML format is invalid, the keys are wrong, or the service is down'],
        };
      }
      const created = response.response?.applications.find((candidate) => candidate.externalId === externalId);
      if (!created) {
        return { created: false, errors: [`the create response has no application with external id ${externalId}`] };
      }
      if (!created.succeeded || !created.accountId) {
        return { created: false, errors: created.errors.length > 0 ? created.errors : [created.status.status] };
      }
      // The response's temporary passwords stay in the document store, never in history.
      const users = created.users.map((user) => ({
        userName: user.userName,
        temporaryPassword: user.temporaryPassword?.reveal(),
      }));
      const responseRef = await store.put(new TextEncoder().encode(JSON.stringify({ externalId, users })));
      return {
        created: true,
        accountId: created.accountId,
        userName: created.userName,
        recovered: false,
        responseRef,
        attachedFiles: attached.map((document) => document.fileName),
      };
    },

    readAccount({ csid, accountId }) {
      return statusReader.read(csid, accountId);
    },

    submitAccountDocuments({ csid, accountId, documents }) {
      const signedAt = now();
      const xml = buildDocumentSubmissionXml({
        accountId,
        documents: documents.map((document) => ({
          formNumber: document.formNumber,
          execTs: signedAt,
          execLoginTs: signedAt,
          files: [{ fileName: document.fileName, sha1: document.sha1, length: document.length }],
        })),
      });
      return sendUpdate(csid, xml, documents);
    },

    abandonAccount({ csid, accountId }) {
      return sendUpdate(csid, buildUpdateRequestXml({ accountId, functionName: 'AbandonAccount' }));
    },

    resetAccount({ csid, accountId }) {
      return sendUpdate(csid, buildUpdateRequestXml({ accountId, functionName: 'ResetAbandonedAccount' }));
    },

    async readUpdateRequest({ csid, requestId }): Promise<RequestOutcome> {
      const response = await eca.getAmRequestStatus({ CSID: csid, request_id: requestId });
      const entry = response.requests.find((candidate) => candidate.requestId === requestId);
      const status = entry?.status?.status ?? entry?.requests[0]?.data[0]?.status?.status;
      if (status === 'PROCESSED') return { decided: true, processed: true };
      if (status === 'REJECTED') {
        return { decided: true, processed: false, error: entry?.error ?? `request ${requestId} rejected` };
      }
      return { decided: false, status: status ?? 'not listed yet' };
    },
  };
}

/**
 * The application workflow's activities: every call to the brokerage service, through `eca/`.
 * Transport failures are thrown (the workflow's retry policy backs off); refusals by the service come
 * back as results the lifecycle handles; broken configuration or input fails without retry.
 */
import { ApplicationFailure } from '@temporalio/activity';
import {
  buildDocumentSubmissionXml,
  buildUpdateRequestXml,
  EcaHttpError,
  EcaRequestError,
  parseXmlTree,
} from '../eca/index.js';
import type {
  AccountStatusEntry,
  AmRequestStatusResponse,
  EcaClient,
  PendingTask,
  PendingTasksAccount,
  UpdateRequest,
  UpdateResponse,
} from '../eca/index.js';
import type { FormDocument } from '../domain/documents.js';
import type { AccountSnapshot, TaskView } from '../domain/account.js';
import type {
  ApplicationActivities,
  ApplicationUpdateFunction,
  CreateOutcome,
  RequestOutcome,
  UpdateOutcome,
} from '../workflows/application/activities.js';
import { Batcher } from './batcher.js';
import { DEFAULT_BATCH_WINDOW_MS, DEFAULT_MAX_ACCOUNTS_PER_CALL } from '../runtime/defaults.js';
import { currentAttempt, withinDeadline } from './deadline.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { findAccountByResponseFile } from './find-account.js';
import { REQUEST_LISTING_REFUSED } from '../domain/error-types.js';
import { applicationWorkflowId } from '../domain/workflow-ids.js';

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
    windowMs: options.windowMs ?? DEFAULT_BATCH_WINDOW_MS,
    maxBatch: options.maxBatch ?? DEFAULT_MAX_ACCOUNTS_PER_CALL,
    fetch: async (csid, accountIds) => {
      const [statuses, tasks] = await Promise.all([
        eca.getAccountStatus({ CSID: csid, accountIds }),
        eca.getPendingTasks({ CSID: csid, accountIds }),
      ]);
      const tasksById = new Map(tasks.accounts.map((entry) => [entry.accountId, entry]));
      return new Map(
        statuses.accounts.map((entry) => [entry.accountId, accountSnapshot(entry, tasksById.get(entry.accountId))]),
      );
    },
  });
}

/**
 * One account's snapshot from its getAccountStatus entry and its getPendingTasks entry (none: no
 * pending tasks), or the error that makes it unknown.
 */
export function accountSnapshot(
  entry: AccountStatusEntry,
  pending: PendingTasksAccount | undefined,
): AccountSnapshot | Error {
  if (entry.isError || !entry.status) return new Error(entry.error ?? `no status for account ${entry.accountId}`);
  // Convention 3: a failing entry fails only its account. Its tasks are unknown, not empty: the read
  // fails for this account (and is retried), rather than reporting that no document is missing.
  if (pending?.isError) return new Error(`getPendingTasks: ${pending.error ?? 'error entry'}`);
  return {
    status: entry.status.code,
    stateText: entry.state?.state,
    description: entry.description,
    tasks: pending ? pending.pendingTasks.map(toTaskView) : [],
  };
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

/** Requests no retry can mend (EcaRequestError): the activity fails at once with a typed failure. */
function failFast(error: unknown): never {
  // Key errors (EcaCryptoError) are configuration errors: retried with an alert (configuration-errors.ts).
  if (error instanceof EcaRequestError) {
    throw ApplicationFailure.create({ type: error.name, message: error.message, nonRetryable: true });
  }
  throw error;
}

/** A 4xx answer is the service refusing this request; anything else may be transient. */
function isRefusal(error: unknown): error is EcaHttpError {
  return error instanceof EcaHttpError && error.status >= 400 && error.status < 500;
}

/**
 * Every file name getAmRequestStatus lists for the account. A per-account error entry would hide requests:
 * it fails the activity for good (no retry loop), and the workflow stops in a state staff see.
 */
export async function accountRequestFiles(eca: EcaClient, csid: string, accountId: string): Promise<string[]> {
  const listed = await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] });
  const failing = listed.requests.find((entry) => entry.isError);
  if (failing) {
    throw ApplicationFailure.create({
      type: REQUEST_LISTING_REFUSED,
      message: `getAmRequestStatus lists no requests for account ${accountId}: ${failing.error ?? 'error entry'}`,
      nonRetryable: true,
    });
  }
  return listed.requests.flatMap((entry) => entry.requests.flatMap((group) => group.files));
}

/**
 * One update call and what its answer shows, on spec fields: a 4xx is the service's refusal, key and
 * request errors fail at once, and the request was filed only when the answer names its file
 * (`fileData.name`; the spec's update answer is `timestamp` + `fileData`).
 */
export async function updateCall(eca: EcaClient, request: () => Promise<UpdateRequest>): Promise<UpdateOutcome> {
  let response: UpdateResponse;
  try {
    response = await eca.update(await request());
  } catch (error) {
    if (isRefusal(error)) return { accepted: false, error: `update refused: HTTP ${error.status}` };
    return failFast(error);
  }
  if (!response.fileData?.name) {
    const error = (response.raw as { error?: unknown } | null)?.error;
    return {
      accepted: false,
      error: typeof error === 'string' ? error : 'update was not processed (no response file)',
    };
  }
  const { requestIds } = readUpdateResponse(response);
  return { accepted: true, requestIds, responseFile: response.fileData.name };
}

/**
 * Request ids named by an update's response file, read only for histories recorded before requests
 * were confirmed by file name. The spec does not show the file's format: an unreadable file names none.
 */
export function readUpdateResponse(response: UpdateResponse): { requestIds: string[] } {
  if (!response.fileData) return { requestIds: [] };
  let root: ReturnType<typeof parseXmlTree>;
  try {
    root = parseXmlTree(response.fileData.xml, 'update response');
  } catch {
    return { requestIds: [] };
  }
  const requestIds: string[] = [];
  const visit = (node: typeof root): void => {
    if (node.name === 'Request' && node.attributes.request_id) requestIds.push(node.attributes.request_id);
    node.children.forEach(visit);
  };
  visit(root);
  return { requestIds };
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
    return updateCall(eca, async () => ({ CSID: csid, xml, attachments: await attachments(files) }));
  }

  /**
   * What the service holds for this external id (getResponseFile), settled files aside: the account a
   * processed file made (matched through getAccountStatus + getFileDetails), the failure entries, or a
   * processed file whose account cannot be matched yet. Undefined when there is no file: create may run.
   */
  async function earlierCreate(
    csid: string,
    externalId: string,
    settled: ReadonlySet<string>,
  ): Promise<CreateOutcome | undefined> {
    const lookup = await eca.getResponseFile({ CSID: csid, externalId });
    const files = lookup.files.filter((file) => file.name !== undefined && !settled.has(file.name));
    const processed = files.filter((file) => !file.isError);
    // The newest processed file decides: its account, or unconfirmed (never a create beside it).
    processed.sort((a, b) => (b.timestamp?.date?.getTime() ?? 0) - (a.timestamp?.date?.getTime() ?? 0));
    const file = processed[0];
    if (file) {
      const name = file.name ?? '';
      const found = await findAccountByResponseFile(eca, {
        csid,
        responseFile: name,
        around: file.timestamp?.date ?? now(),
      });
      if (found.accountId !== undefined) {
        return { created: true, accountId: found.accountId, recovered: true, responseFile: name };
      }
      return { created: false, unconfirmed: { responseFile: name, reason: found.reason } };
    }
    const failed = files.filter((file) => file.isError);
    if (failed.length === 0) return undefined;
    return {
      created: false,
      errors: failed.map((file) => `response file ${file.name ?? ''}: ${file.error ?? 'not processed'}`),
      settledFiles: failed.map((file) => file.name ?? ''),
    };
  }

  /** The account a create call just made, matched on its response file name; the file's content is only a hint. */
  async function settleCreated(
    csid: string,
    externalId: string,
    response: Awaited<ReturnType<EcaClient['create']>>,
    attached: FormDocument[],
    settled: ReadonlySet<string>,
  ): Promise<CreateOutcome> {
    const name = response.name;
    if (name === undefined) {
      // Processed without a file name: nothing to match on, and the application must not be created again.
      const again = await earlierCreate(csid, externalId, settled);
      return (
        again ?? {
          created: false,
          unconfirmed: { responseFile: '', reason: 'create was processed but named no response file' },
        }
      );
    }
    const hinted = response.response?.applications.find((candidate) => candidate.externalId === externalId);
    // The response file goes to the document store first (it may hold a temporary password), never to history:
    // the users read from it, or the file as sent when this library cannot read it.
    const kept = hinted
      ? {
          externalId,
          responseFile: name,
          users: hinted.users.map((user) => ({
            userName: user.userName,
            temporaryPassword: user.temporaryPassword?.reveal(),
          })),
        }
      : { externalId, responseFile: name, responseXml: response.responseXml?.reveal() };
    const responseRef = await store.put(new TextEncoder().encode(JSON.stringify(kept)), {
      owner: applicationWorkflowId(csid, externalId),
    });
    const found = await findAccountByResponseFile(eca, {
      csid,
      responseFile: name,
      around: response.timestamp?.date ?? now(),
      hint: hinted?.accountId,
    });
    if (found.accountId === undefined) {
      // A failure entry for this file is the service saying no account was made.
      const lookup = await eca.getResponseFile({ CSID: csid, externalId });
      const failure = lookup.files.find((file) => file.name === name && file.isError);
      if (failure) {
        return {
          created: false,
          errors: [failure.error ?? hinted?.errors.join('; ') ?? 'the application was not processed'],
          settledFiles: [name],
        };
      }
      return { created: false, unconfirmed: { responseFile: name, reason: found.reason } };
    }
    return {
      created: true,
      accountId: found.accountId,
      ...(hinted?.userName !== undefined && { userName: hinted.userName }),
      recovered: false,
      responseFile: name,
      responseRef,
      attachedFiles: attached.map((document) => document.fileName),
    };
  }

  function updateXml(accountId: string, functionName: ApplicationUpdateFunction, documents: FormDocument[]): string {
    if (functionName !== 'DocumentSubmission') return buildUpdateRequestXml({ accountId, functionName });
    const signedAt = now();
    return buildDocumentSubmissionXml({
      accountId,
      documents: documents.map((document) => ({
        formNumber: document.formNumber,
        execTs: signedAt,
        execLoginTs: signedAt,
        files: [{ fileName: document.fileName, sha1: document.sha1, length: document.length }],
      })),
    });
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

    createAccount({ csid, externalId, application, documents, settledFiles }) {
      return withinDeadline(async () => {
        // Before every attempt: a processed file for this external id means never create again. After a
        // failed attempt the file is looked for again after short waits (the spec promises no listing delay).
        const settled = new Set(settledFiles ?? []);
        const delays = currentAttempt() > 1 ? RELISTING_DELAYS_MS : [];
        for (let look = 0; ; look++) {
          const earlier = await earlierCreate(csid, externalId, settled);
          if (earlier) return earlier;
          const delay = delays[look];
          if (delay === undefined) break;
          await new Promise((resolve) => setTimeout(resolve, delay));
        }

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
        return settleCreated(csid, externalId, response, attached, settled);
      });
    },

    readAccount({ csid, accountId }) {
      return statusReader.read(csid, accountId);
    },

    submitAccountDocuments({ csid, accountId, documents }) {
      return sendUpdate(csid, updateXml(accountId, 'DocumentSubmission', documents), documents);
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

    listAccountRequests({ csid, accountId }) {
      return accountRequestFiles(eca, csid, accountId);
    },

    sendApplicationUpdate({ csid, accountId, functionName, known, documents = [], mayHaveSent = false }) {
      return withinDeadline(async () => {
        // An earlier attempt (of this activity, or of the workflow's step before a staff retry) whose answer
        // was lost left a request the service lists: never send twice.
        if (mayHaveSent || currentAttempt() > 1) {
          const earlier = await earlierRequest(() => accountRequestFiles(eca, csid, accountId), known);
          if (earlier) return earlier;
        }
        return sendUpdate(csid, updateXml(accountId, functionName, documents), documents);
      });
    },

    async readRequestByFile({ csid, accountId, responseFile }) {
      return requestByFile(await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] }), responseFile);
    },
  };
}

/** Waits between looks for an earlier attempt's write before sending again (the spec promises no listing delay). */
export const RELISTING_DELAYS_MS = [5_000, 15_000];

/**
 * The request an earlier attempt made: the file the account lists now that was not listed before the
 * first attempt (`known`). Looked for again after short waits, since the spec does not promise that a
 * request is listed at once. Exactly one new file is adopted; more than one cannot be told apart (another
 * sender of this account), so it is returned without a file and the workflow stops in `unconfirmed`.
 */
export async function earlierRequest(
  list: () => Promise<string[]>,
  known: string[],
  delays: readonly number[] = RELISTING_DELAYS_MS,
): Promise<UpdateOutcome | undefined> {
  const before = new Set(known);
  for (let look = 0; ; look++) {
    const made = [...new Set((await list()).filter((file) => !before.has(file)))];
    if (made.length === 1) return { accepted: true, requestIds: [], responseFile: made[0], recovered: true };
    if (made.length > 1) return { accepted: true, requestIds: [], recovered: true };
    const delay = delays[look];
    if (delay === undefined) return undefined;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

/**
 * How getAmRequestStatus (by account) shows the request filed under `responseFile`: entries keyed by
 * request type, each with `data` (`status` per RequestDetail) and `files`. The request type and detail
 * codes are not shown by the spec, so only the file name is matched; every detail must be PROCESSED.
 */
export function requestByFile(listed: AmRequestStatusResponse, responseFile: string): RequestOutcome {
  const groups = listed.requests.flatMap((entry) =>
    entry.requests.filter((group) => group.files.includes(responseFile)).map((group) => ({ entry, group })),
  );
  if (groups.length === 0) return { decided: false, status: 'not listed yet' };
  // The spec ties no `data` status to a file: a group that lists other files too cannot be read as
  // this request's outcome. It stays undecided (and ends in `unconfirmed` for staff) rather than guessed.
  if (groups.some(({ group }) => group.files.length !== 1)) {
    return { decided: false, status: `listed with other files (${groups.length} group(s)); outcome not attributable` };
  }
  const statuses = groups.flatMap(({ group }) => group.data.map((detail) => detail.status?.status ?? 'PENDING'));
  const rejected = groups.find(({ group }) => group.data.some((detail) => detail.status?.status === 'REJECTED'));
  if (rejected) {
    const reason = rejected.entry.error ?? 'the service gives no reason here; see the pending tasks';
    return { decided: true, processed: false, error: `request ${responseFile} REJECTED: ${reason}` };
  }
  if (statuses.length > 0 && statuses.every((status) => status === 'PROCESSED')) {
    return { decided: true, processed: true };
  }
  return {
    decided: false,
    status: statuses.includes('PENDING') || statuses.length === 0 ? 'PENDING' : statuses.join(', '),
  };
}

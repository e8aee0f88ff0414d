/**
 * The application workflow's activities for a firm on the brokerage's Web API: the same port as the XML
 * service's (workflows/application/activities.ts), the same rules (write-attempt.ts: a write is sent again
 * only on proof that nothing was processed; before any send, the earlier one is looked up).
 *
 * - validate: the document has no dry-run operation, so the application is checked here against the
 *   document's types (application-json.ts); the brokerage's own checks answer at create.
 * - create: `GET /gw/api/v1/accounts?externalId=` before every attempt and after the send; the account is
 *   what that look-up names, never what the create's answer says (the document does not describe it). Creates
 *   and accepted resets register their accounts with the status sweep (sweep-snapshot.ts), as on the XML service.
 * - updates: `PATCH /gw/api/v1/accounts` (abandon, reset, document submission); a request is named by the
 *   `requestId` the answer gives, and looked up with `GET /gw/api/v1/requests` (which gives no reason for a
 *   rejection). The `responseFile` of the port holds that id.
 * - reads: status and pending tasks of one account; a rejected document's reason from `documentRejectReason`.
 */
import type { AccountSnapshot } from '../domain/account.js';
import { EcaRequestError, EcaSchemaError } from '../eca/index.js';
import type { FormDocument } from '../domain/documents.js';
import type { DocumentStore } from '../runtime/document-store.js';
import type {
  AccountManagementRequests,
  RequestDetail,
  StatusResponse,
  WebApiClient,
  WebApiDocument,
} from '../webapi/index.js';
import type {
  ApplicationActivities,
  ApplicationUpdateFunction,
  CreateOutcome,
  RequestOutcome,
  UpdateOutcome,
} from '../workflows/application/activities.js';
import { applicationJsonOf } from './application-json.js';
import { documentJson } from '../brokerage/webapi/documents.js';
import { earlierCreate, unlistedAfterCreate } from './webapi-earlier-create.js';
import { registerCreated, registerReset } from './sweep-snapshot.js';
import type { SweepSnapshot } from '../runtime/sweep-snapshot.js';
import { readText } from './stored.js';
import { updateInDoubt } from './update-sender.js';
import { WriteAttempt } from './write-attempt.js';
import {
  DAY_MS,
  readHandle,
  requestHandle,
  requestWindow,
  SUBMISSION_MARGIN_DAYS,
  taskView,
} from '../brokerage/webapi/accounts.js';

export interface WebApiApplicationOptions {
  /** The firm's Web API client (runtime/firm-brokerages.ts). */
  clientFor: (csid: string) => Promise<WebApiClient>;
  store: DocumentStore;
  now?: () => Date;
  /**
   * The status sweep's snapshot: a create registers the account it established, an accepted reset the
   * account it brings back (sweep-snapshot.ts). Nothing is registered without it.
   */
  snapshot?: SweepSnapshot;
}

/** The requests listed for the account. */
async function accountRequestDetails(api: WebApiClient, accountId: string, now: Date): Promise<RequestDetail[]> {
  const details: RequestDetail[] = [];
  for await (const detail of api.requestDetails(requestWindow(now))) {
    if (detail.accountID === accountId && detail.requestId !== undefined) details.push(detail);
  }
  return details;
}

/** The ids of the requests listed for the account. */
export async function accountRequests(api: WebApiClient, accountId: string, now: Date): Promise<string[]> {
  return (await accountRequestDetails(api, accountId, now)).map((detail) => String(detail.requestId));
}

/**
 * The port's handle of a request: its id and the day the brokerage's `dateSubmitted` names, when it names one
 * (an ISO 8601 day) within {@link SUBMISSION_MARGIN_DAYS} of now; else the plain id, read over the year.
 */
function handleOf(requestId: number, dateSubmitted: string | undefined, now: Date): string {
  const submitted = /^\d{4}-\d{2}-\d{2}/.test(dateSubmitted ?? '') ? Date.parse(dateSubmitted!) : Number.NaN;
  const near = Math.abs(submitted - now.getTime()) <= SUBMISSION_MARGIN_DAYS * DAY_MS;
  return near ? requestHandle(requestId, new Date(submitted)) : String(requestId);
}

/**
 * The request an earlier attempt made: one the account lists that is not in `known` (the ids listed before the
 * first attempt). More than one: made, but which is ours is unknown. Undefined when none is listed yet.
 */
export async function earlierRequest(
  api: WebApiClient,
  accountId: string,
  known: readonly string[],
  now: Date,
  functionName?: string,
): Promise<UpdateOutcome | undefined> {
  const before = new Set(known);
  const made = (await accountRequestDetails(api, accountId, now)).filter(
    (detail) => !before.has(String(detail.requestId)) && mayBe(detail.requestType, functionName),
  );
  if (made.length === 1) {
    const [detail] = made as [RequestDetail];
    const responseFile = handleOf(detail.requestId!, detail.dateSubmitted, now);
    return { accepted: true, responseFile, recovered: true };
  }
  if (made.length > 1) return { accepted: true, recovered: true };
  return undefined;
}

/**
 * Whether a listed request of type `requestType` may be one of `functionName`: a type that names another
 * function (letters compared, case aside) is another's request, sent beside this one; no type, or no function
 * to match, may be any.
 */
function mayBe(requestType: string | undefined, functionName: string | undefined): boolean {
  if (requestType === undefined || functionName === undefined) return true;
  const letters = (text: string) => text.toLowerCase().replace(/[^a-z]/g, '');
  return letters(requestType) === letters(functionName);
}

/**
 * The request a write's answer names by its `requestId`; an answer without one (the document requires none)
 * names it by the account's new requests, as after a lost answer: not listed yet, it is in doubt and looked
 * for again, never sent again.
 */
export async function answeredRequest(
  api: WebApiClient,
  answer: StatusResponse,
  request: { accountId: string; known: readonly string[]; functionName?: string },
  now: Date,
): Promise<UpdateOutcome> {
  if (answer.requestId !== undefined) {
    return { accepted: true, responseFile: handleOf(answer.requestId, answer.dateSubmitted, now) };
  }
  const listed = await earlierRequest(api, request.accountId, request.known, now, request.functionName);
  if (listed?.accepted) return { ...listed, recovered: false };
  return { accepted: false, unknown: 'answered without a requestId, and no new request listed for the account yet' };
}

function managementRequest(
  accountId: string,
  functionName: ApplicationUpdateFunction,
  documents: WebApiDocument[],
): AccountManagementRequests {
  if (functionName === 'AbandonAccount') return { abandonAccount: { accountId } };
  if (functionName === 'ResetAbandonedAccount') return { resetAbandonedAccount: { accountId } };
  return { documentSubmission: { accountId, documents } };
}

/** The account's status and pending tasks, as the lifecycle reads them. */
async function accountSnapshot(api: WebApiClient, accountId: string): Promise<AccountSnapshot> {
  const [status, pending] = await Promise.all([api.accountStatus(accountId), api.pendingTasks(accountId)]);
  return {
    status: status.status ?? '',
    ...(status.state !== undefined && { stateText: status.state }),
    tasks: pending.pendingTasks.map(taskView),
  };
}

/** How the service decided the request the port's `responseFile` names ({@link requestHandle}). */
async function requestOutcome(api: WebApiClient, handle: string, now: Date): Promise<RequestOutcome> {
  const { requestId, window } = readHandle(handle, now);
  for await (const detail of api.requestDetails(window)) {
    if (String(detail.requestId) !== requestId) continue;
    const status = (detail.status ?? '').toUpperCase();
    if (status === 'PROCESSED') return { decided: true, processed: true };
    if (status === 'REJECTED') {
      return { decided: true, processed: false, error: `request ${requestId} REJECTED (the Web API gives no reason)` };
    }
    return { decided: false, status: detail.status ?? 'no status' };
  }
  return { decided: false, status: `request ${requestId} ${NOT_LISTED}` };
}

const NOT_LISTED = 'not listed yet';

/** The request's outcome as listed; not listed, confirmed by its effect where the account shows one. */
async function requestConfirmed(
  api: WebApiClient,
  input: Parameters<ApplicationActivities['readRequestByFile']>[0],
  now: Date,
): Promise<RequestOutcome> {
  const { accountId, responseFile, functionName, forms } = input;
  const outcome = await requestOutcome(api, responseFile, now);
  if (outcome.decided || !outcome.status.endsWith(NOT_LISTED)) return outcome;
  if (await inEffect(api, { accountId, ...(functionName && { functionName }), forms: forms ?? [] })) {
    return { decided: true, processed: true };
  }
  return outcome;
}

/**
 * Whether the account shows the effect of a request no listing names, read as the XML service's
 * (request-status.ts confirmedByEffect): an abandon by status A, a reset by another status, a document
 * submission by no task of its forms still wanting a document (gone, or `Received- Being Processed`), or
 * the account open. A `Rejected` task may be an earlier round's: it confirms nothing.
 */
async function inEffect(
  api: WebApiClient,
  input: { accountId: string; functionName?: ApplicationUpdateFunction; forms: string[] },
): Promise<boolean> {
  const { accountId, functionName, forms } = input;
  if (functionName === 'AbandonAccount' || functionName === 'ResetAbandonedAccount') {
    const status = (await api.accountStatus(accountId)).status;
    if (status === undefined || status === '') return false;
    return functionName === 'AbandonAccount' ? status === 'A' : status !== 'A';
  }
  if (functionName !== 'DocumentSubmission' || forms.length === 0) return false;
  const pending = await api.pendingTasks(accountId);
  const waiting = pending.pendingTasks.filter(
    (task) => forms.includes(String(task.formNumber)) && task.state !== 'Received- Being Processed',
  );
  return waiting.length === 0 || pending.status === 'O';
}

type CreateInput = Parameters<ApplicationActivities['createAccount']>[0];
type UpdateInput = Parameters<ApplicationActivities['sendApplicationUpdate']>[0];

export function createWebApiApplicationActivities(options: WebApiApplicationOptions): ApplicationActivities {
  const { clientFor, store } = options;
  const now = options.now ?? (() => new Date());

  async function formDocuments(documents: FormDocument[]): Promise<WebApiDocument[]> {
    const at = now();
    return Promise.all(documents.map(async (document) => documentJson(document, await store.get(document), at)));
  }

  /** Looked up before the send and after it: the account is what the look-up names. */
  async function create(attempt: WriteAttempt, input: CreateInput): Promise<CreateOutcome> {
    const api = await clientFor(input.csid);
    const settled = new Set(input.settledFiles ?? []);
    const earlier = await earlierCreate(api, input.externalId, settled);
    if (!('nothing' in earlier)) return earlier;
    if (!attempt.maySend) {
      return { created: false, unknown: { reason: 'the Web API lists nothing for the external id yet' } };
    }
    const body = applicationJsonOf(await readText(store, input.application), await formDocuments(input.documents));
    const sent = await attempt.send(() => api.createAccount(body));
    if ('unknown' in sent) return { created: false, unknown: { reason: sent.unknown, sentAt: now().getTime() } };
    const made = await earlierCreate(api, input.externalId, settled);
    if ('nothing' in made) {
      return { created: false, unknown: { reason: unlistedAfterCreate(sent.answer, made), sentAt: now().getTime() } };
    }
    if (made.created) return { ...made, recovered: false };
    if ('unknown' in made) return { created: false, unknown: { ...made.unknown, sentAt: now().getTime() } };
    return made;
  }

  /** An earlier attempt's request is looked for first when one may have been sent (as on the XML service). */
  async function update(attempt: WriteAttempt, input: UpdateInput): Promise<UpdateOutcome> {
    const { accountId, known, documents = [] } = input;
    const api = await clientFor(input.csid);
    if (input.mayHaveSent || !attempt.maySend) {
      const earlier = await earlierRequest(api, accountId, known, now(), input.functionName);
      if (earlier) return earlier;
      // Not listed (yet): its effect on the account shows it was processed, as on the XML service.
      const forms = documents.map((document) => document.formNumber);
      if (await inEffect(api, { accountId, functionName: input.functionName, forms })) {
        return { accepted: true, recovered: true, inEffect: true };
      }
    }
    if (!attempt.maySend) return { accepted: false, unknown: 'no new request listed for the account yet' };
    const request = managementRequest(accountId, input.functionName, await formDocuments(documents));
    const sent = await attempt.send(() => api.manageAccounts(request));
    if ('unknown' in sent) return { accepted: false, unknown: sent.unknown };
    return answeredRequest(api, sent.answer, input, now());
  }

  return {
    async validateApplication({ application }) {
      // Read first: a document the store cannot give is the store's fault (retried, then blocked), never the
      // application's.
      const xml = await readText(store, application);
      try {
        applicationJsonOf(xml);
        return { valid: true };
      } catch (error) {
        if (!(error instanceof EcaRequestError || error instanceof EcaSchemaError)) throw error;
        return { valid: false, errors: [error.message] };
      }
    },

    async createAccount(input) {
      const outcome = await WriteAttempt.run<CreateOutcome>((attempt) => create(attempt, input), {
        lookOnly: input.lookOnly,
        inDoubt: (reason) => ({ created: false, unknown: { reason } }),
      });
      await registerCreated(options.snapshot, input.csid, outcome);
      return outcome;
    },

    async readAccount({ csid, accountId }) {
      return accountSnapshot(await clientFor(csid), accountId);
    },

    async listAccountRequests({ csid, accountId }) {
      return accountRequests(await clientFor(csid), accountId, now());
    },

    async sendApplicationUpdate(input) {
      const outcome = await WriteAttempt.run((attempt) => update(attempt, input), updateInDoubt(input.lookOnly));
      await registerReset(options.snapshot, input, outcome);
      return outcome;
    },

    async readRequestByFile(input) {
      return requestConfirmed(await clientFor(input.csid), input, now());
    },
  };
}

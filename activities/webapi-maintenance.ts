/**
 * Account maintenance through the Web API: one update function sent as its member of
 * `AccountManagementRequests` (`PATCH /gw/api/v1/accounts`, webapi/maintenance.ts), under the rules of the XML
 * path (maintenance.ts): an attempt after one that may have sent it looks for the request it made (a request
 * `GET /gw/api/v1/requests` lists for the account that is not in `known`) and never sends again. The request
 * is named by the `requestId` the answer gives, which the workflow follows as a response file.
 *
 * A body that is not the member's, attributes (the XML function element's) and attachments (the Web API
 * carries documents inside the member's JSON) are the request's faults: it is not sent, and ends `REJECTED`
 * with the reason.
 */
import type { DocumentStore } from '../runtime/document-store.js';
import { maintenanceRequest, WebApiAnswerError, WebApiHttpError, WebApiRequestError } from '../webapi/index.js';
import type { StatusResponse, WebApiClient } from '../webapi/index.js';
import type { UpdateOutcome } from '../workflows/application/activities.js';
import type { UpdateFunctionRequest } from '../workflows/maintenance/activities.js';
import { readText } from './stored.js';
import { updateInDoubt } from './update-sender.js';
import { answeredRequest, earlierRequest } from './webapi-application.js';
import { WriteAttempt } from './write-attempt.js';
import type { Sent } from './write-attempt.js';

export interface WebApiMaintenanceOptions {
  /** The firm's Web API client (runtime/firm-brokerages.ts). */
  clientFor: (csid: string) => Promise<WebApiClient>;
  store: DocumentStore;
  now?: () => Date;
}

/** Why the request cannot go through the Web API as it is; undefined when it can. */
function misfit(input: UpdateFunctionRequest): string | undefined {
  if (input.attributes && Object.keys(input.attributes).length > 0) {
    return "attributes are the XML function element's; on the Web API they are fields of the body";
  }
  if (input.attachments.length > 0) {
    return "attachments are the XML service's; on the Web API documents go inside the body (the document's Document objects)";
  }
  return undefined;
}

async function bodyOf(store: DocumentStore, input: UpdateFunctionRequest): Promise<unknown> {
  if (!input.body) return {};
  const text = await readText(store, input.body);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new WebApiRequestError('body', 'is not JSON (a request on the Web API carries the JSON of its member)');
  }
}

/**
 * The brokerage's refusal of the request as it came (the document's 400, 403, 415: nothing was processed), as
 * the reason it ends REJECTED, never sent again; undefined for any other failure.
 */
function refusalOf(error: unknown): string | undefined {
  if (!(error instanceof WebApiHttpError) || ![400, 403, 415].includes(error.status)) return undefined;
  const said = error.bodyExcerpt.trim();
  return `update refused: HTTP ${error.status}${said ? ` (${said})` : ''}`;
}

/**
 * Whether a send answered HTTP 500 named an account the firm's accounts do not list (the document: a 500
 * "can sometimes include subset of bad requests. For example, wrong accountId passed"). The doubt stays (the
 * bulk read's range is not a promise that it lists every account), and says so for the staff who settle it.
 * A read that fails says nothing.
 */
async function wrongAccount(api: WebApiClient, accountId: string, cause: unknown): Promise<boolean> {
  if (!(cause instanceof WebApiHttpError && cause.status === 500)) return false;
  try {
    return (await api.findAccount(accountId)) === undefined;
  } catch {
    return false;
  }
}

function answeredError(error: unknown): WebApiAnswerError {
  if (error instanceof WebApiAnswerError) return error;
  throw error;
}

export function createWebApiMaintenance(
  options: WebApiMaintenanceOptions,
): (input: UpdateFunctionRequest) => Promise<UpdateOutcome> {
  const { clientFor, store } = options;
  const now = options.now ?? (() => new Date());

  async function send(attempt: WriteAttempt, input: UpdateFunctionRequest): Promise<UpdateOutcome> {
    const api = await clientFor(input.csid);
    if (!attempt.maySend) {
      const earlier = await earlierRequest(api, input.accountId, input.known, now(), input.functionName);
      if (earlier) return earlier;
      return { accepted: false, unknown: 'an earlier attempt may have sent it; no new request listed for the account' };
    }
    const fault = misfit(input);
    if (fault) return { accepted: false, error: `not sent: ${fault}` };
    let request;
    try {
      request = maintenanceRequest(input.functionName, input.accountId, await bodyOf(store, input));
    } catch (error) {
      if (error instanceof WebApiRequestError) return { accepted: false, error: `not sent: ${error.message}` };
      throw error;
    }
    let sent: Sent<StatusResponse | WebApiAnswerError>;
    try {
      // An answer with `hasError` is an answer: the brokerage says, in its words, that it did not take it.
      sent = await attempt.send(() => api.manageAccounts(request).catch(answeredError));
    } catch (error) {
      const refusal = refusalOf(error);
      if (refusal === undefined) throw error;
      return { accepted: false, error: refusal };
    }
    if ('unknown' in sent && (await wrongAccount(api, input.accountId, sent.cause))) {
      // Likely a wrong id, but the listing is the brokerage's bulk read, not a promise: staff settle it.
      const finding = `; the firm's accounts list no account ${input.accountId} (the document answers a wrong account id with a 500)`;
      return { accepted: false, unknown: `${sent.unknown}${finding}` };
    }
    if ('unknown' in sent) return { accepted: false, unknown: sent.unknown };
    if (sent.answer instanceof WebApiAnswerError) {
      return { accepted: false, error: `update refused: ${sent.answer.message}` };
    }
    return answeredRequest(api, sent.answer, input, now());
  }

  return (input) => WriteAttempt.run((attempt) => send(attempt, input), updateInDoubt(input.lookOnly));
}

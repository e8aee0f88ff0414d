/** The simulator's own records of what it made and received: the counts tests and the fault suite rely on. */
import type { RequestOutcome, UpdateRequestRecord } from './model.js';
import type { Store } from './store.js';

/** The accounts made for one external id (more than one: a duplicate). */
export interface ExternalIdRecords {
  externalId: string;
  accountsCreated: number;
  /** Creates the simulator processed for the external id (response files, failures included). */
  createsProcessed: number;
  /** `via`: the protocol the create came through (`xml`: the XML service's create; `webapi`: POST /gw/api/v1/accounts). */
  accounts: Array<{ accountId: string; csid: string; createdAt: string; responseFileName: string; via: Via }>;
}

/** One update request as received (one function of one update call). */
/** The protocol a write came through. */
export type Via = 'xml' | 'webapi';

export interface RequestRecordView {
  requestId: string;
  /** The protocol the request came through (update, or PATCH /gw/api/v1/accounts). */
  via: Via;
  functionName: string;
  /** The update response file that answered the call (shared by the functions of one call). */
  responseFileName: string;
  /** PROCESSED or REJECTED, as it is (or will be) reported from `decidedAt` on (PENDING before). */
  outcome: RequestOutcome;
  error?: string;
  submittedAt: string;
  decidedAt: string;
}

/** The update requests received for one account. */
export interface AccountRequestRecords {
  accountId: string;
  /** Undefined for an account id the simulator never made. */
  externalId: string | undefined;
  requests: RequestRecordView[];
  requestsPerFunction: Record<string, number>;
}

/**
 * What the simulator has made and received, from its own records (kept in the data dir, so they
 * survive a restart, unlike the call counts): accounts per external id and update requests per
 * account. Create calls are not recorded per external id (only counted per operation: `calls()`).
 */
export interface SimulatorRecords {
  externalIds: ExternalIdRecords[];
  accounts: AccountRequestRecords[];
  /** Update requests that named no account. */
  requestsWithoutAccount: RequestRecordView[];
  /** submitDocuments calls processed, per firm (simulated day and report file). */
  documentSubmissions: Array<{ csid: string; day: string; reportFile: string }>;
}

export interface RecordsFilter {
  csid?: string;
  externalId?: string;
}

/**
 * Accounts per external id and update requests per account (in the order made or received),
 * optionally only those of one firm or one external id. Read-only: accounts are not settled.
 */
export function recordsOf(store: Store, filter: RecordsFilter = {}): SimulatorRecords {
  const wanted = (record: { csid: string }) => filter.csid === undefined || record.csid === filter.csid;
  const byExternalId = new Map<string, ExternalIdRecords>();
  const accounts: AccountRequestRecords[] = [];
  const seen = new Set<string>();
  const requestsOf = (accountId: string): RequestRecordView[] =>
    (store.requestsByAccount.get(accountId) ?? [])
      .map((requestId) => store.requests.get(requestId))
      .filter((request): request is UpdateRequestRecord => request !== undefined && wanted(request))
      .map(requestView);
  for (const account of store.accounts.values()) {
    if (!wanted(account)) continue;
    if (filter.externalId !== undefined && account.externalId !== filter.externalId) continue;
    let entry = byExternalId.get(account.externalId);
    if (!entry) {
      entry = {
        externalId: account.externalId,
        accountsCreated: 0,
        createsProcessed: store.responseFilesOf(account.csid, account.externalId).length,
        accounts: [],
      };
      byExternalId.set(account.externalId, entry);
    }
    entry.accountsCreated += 1;
    entry.accounts.push({
      accountId: account.accountId,
      csid: account.csid,
      createdAt: new Date(account.createdAt).toISOString(),
      responseFileName: account.responseFileName,
      via: account.via ?? 'xml',
    });
    seen.add(account.accountId);
    accounts.push(accountRequests(account.accountId, account.externalId, requestsOf(account.accountId)));
  }
  if (filter.externalId === undefined) {
    // Requests naming an account the simulator never made.
    for (const accountId of store.requestsByAccount.keys()) {
      if (seen.has(accountId)) continue;
      const requests = requestsOf(accountId);
      if (requests.length > 0) accounts.push(accountRequests(accountId, undefined, requests));
    }
  }
  const requestsWithoutAccount =
    filter.externalId === undefined
      ? [...store.requests.values()]
          .filter((request) => request.accountId === undefined && wanted(request))
          .map(requestView)
      : [];
  const documentSubmissions = [...store.firms.values()]
    .filter(wanted)
    .flatMap((firm) => (firm.documentSubmissions ?? []).map((submission) => ({ csid: firm.csid, ...submission })));
  return { externalIds: [...byExternalId.values()], accounts, requestsWithoutAccount, documentSubmissions };
}

function requestView(request: UpdateRequestRecord): RequestRecordView {
  return {
    requestId: request.requestId,
    via: request.via ?? 'xml',
    functionName: request.functionName,
    responseFileName: request.fileName,
    outcome: request.outcome,
    ...(request.error === undefined ? {} : { error: request.error }),
    submittedAt: new Date(request.submittedAt).toISOString(),
    decidedAt: new Date(request.decidedAt).toISOString(),
  };
}

function accountRequests(
  accountId: string,
  externalId: string | undefined,
  requests: RequestRecordView[],
): AccountRequestRecords {
  const requestsPerFunction: Record<string, number> = {};
  for (const request of requests) {
    requestsPerFunction[request.functionName] = (requestsPerFunction[request.functionName] ?? 0) + 1;
  }
  return { accountId, externalId, requests, requestsPerFunction };
}

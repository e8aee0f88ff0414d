/**
 * How getAmRequestStatus shows a request sent with update: decided (processed or rejected) or not yet.
 */
import type { AmRequestStatusResponse, EcaClient } from '../eca/index.js';
import type { ApplicationUpdateFunction, RequestOutcome } from '../workflows/application/activities.js';

/**
 * Whether a name in getAmRequestStatus `files` is an update's response file: the spec names them
 * `<FirmName>_YYYYMMDD_####_####.xml`. The list may hold other names too (the spec says only "files (list
 * of file names)"): the firm's own file names, which it may reuse from request to request.
 */
export function isUpdateResponseFileName(name: string): boolean {
  return /_\d{8}_\d{4,}_\d{4,}\.xml$/.test(name);
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
  if (groups.length === 0) {
    // What was looked at, for staff: the request may be listed under names this reading cannot tell apart.
    const listedGroups = listed.requests.flatMap((entry) => entry.requests).length;
    return { decided: false, status: `not listed yet (the account lists ${listedGroups} other request(s))` };
  }
  // The spec ties no `data` status to a file: a group that names another response file too (or a file
  // listed by several groups) cannot be read as this request's outcome. It stays undecided (and ends in
  // `unconfirmed` for staff) rather than guessed. The firm's own file names beside it change nothing.
  const others = (files: string[]) => files.filter((file) => file !== responseFile && isUpdateResponseFileName(file));
  if (groups.length > 1 || groups.some(({ group }) => others(group.files).length > 0)) {
    return {
      decided: false,
      status: `listed with other requests (${groups.length} group(s)); outcome not attributable`,
    };
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

/**
 * A request of AbandonAccount or ResetAbandonedAccount that getAmRequestStatus does not decide (not listed
 * under its response file, or PENDING) is confirmed by its effect, getAccountStatus `status` (a spec field):
 * A ("Abandoned: the application was deleted") after an abandon, a status other than A after a reset. Any
 * other function, or an account without a readable status, stays as the listing shows it.
 */
export async function confirmedByEffect(
  eca: EcaClient,
  input: { csid: string; accountId: string; functionName?: ApplicationUpdateFunction },
  outcome: RequestOutcome,
): Promise<RequestOutcome> {
  const { csid, accountId, functionName } = input;
  if (outcome.decided || (functionName !== 'AbandonAccount' && functionName !== 'ResetAbandonedAccount')) {
    return outcome;
  }
  const statuses = await eca.getAccountStatus({ CSID: csid, accountIds: [accountId] });
  const entry = statuses.accounts.find((candidate) => candidate.accountId === accountId && !candidate.isError);
  const status = entry?.status?.known ? entry.status.code : undefined;
  if (status === undefined) return { decided: false, status: `${outcome.status}; getAccountStatus shows no status` };
  if (functionName === 'AbandonAccount' ? status === 'A' : status !== 'A') return { decided: true, processed: true };
  return { decided: false, status: `${outcome.status}; account status ${status}` };
}

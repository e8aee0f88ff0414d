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

/** How an outcome says that no group lists the response file (confirmedByEffect reads only such outcomes). */
const NOT_LISTED = 'not listed yet';

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
    return { decided: false, status: `${NOT_LISTED} (the account lists ${listedGroups} other request(s))` };
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
 * A request that getAmRequestStatus does not list under its response file (the one inference of that reading) is
 * confirmed by its effect, read in spec fields. A request listed there is read as listed: a PENDING one is the
 * service's own word that it is not decided (it may still be REJECTED), so no effect overrules it.
 *
 * - AbandonAccount: getAccountStatus `status` A ("Abandoned: the application was deleted");
 * - ResetAbandonedAccount: a status other than A;
 * - DocumentSubmission of `forms`: getPendingTasks lists the account, and no task of a submitted form still
 *   wants a document (each is gone, complete, or `Received- Being Processed`: "the document is under review");
 *   or the account is open (O). A `Rejected` task may be an earlier round's, so it confirms nothing.
 *
 * Any other function, or an account whose reads show none of these, stays as the listing shows it, with what
 * was read.
 */
export async function confirmedByEffect(
  eca: EcaClient,
  input: { csid: string; accountId: string; functionName?: ApplicationUpdateFunction; forms?: string[] },
  outcome: RequestOutcome,
): Promise<RequestOutcome> {
  const { csid, accountId, functionName } = input;
  if (outcome.decided || !outcome.status.startsWith(NOT_LISTED)) return outcome;
  if (functionName === 'DocumentSubmission' && input.forms !== undefined && input.forms.length > 0) {
    return documentsInEffect(eca, { csid, accountId, forms: input.forms }, outcome);
  }
  if (functionName !== 'AbandonAccount' && functionName !== 'ResetAbandonedAccount') return outcome;
  const status = await accountStatusOf(eca, csid, accountId);
  if (status === undefined) return { decided: false, status: `${outcome.status}; getAccountStatus shows no status` };
  if (functionName === 'AbandonAccount' ? status === 'A' : status !== 'A') return { decided: true, processed: true };
  return { decided: false, status: `${outcome.status}; account status ${status}` };
}

/**
 * Whether the account shows the effect of a request no listing names (an update whose answer was lost, looked
 * for before a staff retry sends it again): the same reading as confirmedByEffect.
 */
export async function shownInEffect(
  eca: EcaClient,
  input: { csid: string; accountId: string; functionName?: ApplicationUpdateFunction; forms?: string[] },
): Promise<boolean> {
  const outcome = await confirmedByEffect(eca, input, { decided: false, status: NOT_LISTED });
  return outcome.decided && outcome.processed;
}

async function accountStatusOf(eca: EcaClient, csid: string, accountId: string): Promise<string | undefined> {
  const statuses = await eca.getAccountStatus({ CSID: csid, accountIds: [accountId] });
  const entry = statuses.accounts.find((candidate) => candidate.accountId === accountId && !candidate.isError);
  return entry?.status?.known ? entry.status.code : undefined;
}

async function documentsInEffect(
  eca: EcaClient,
  input: { csid: string; accountId: string; forms: string[] },
  outcome: Extract<RequestOutcome, { decided: false }>,
): Promise<RequestOutcome> {
  const { csid, accountId, forms } = input;
  const pending = await eca.getPendingTasks({ CSID: csid, accountIds: [accountId] });
  const entry = pending.accounts.find((candidate) => candidate.accountId === accountId && !candidate.isError);
  if (entry !== undefined) {
    const waiting = entry.pendingTasks.filter(
      (task) =>
        task.formNumber !== undefined &&
        forms.includes(task.formNumber) &&
        !(task.state?.known === true && task.state.state === 'Received- Being Processed'),
    );
    if (waiting.length === 0) return { decided: true, processed: true };
    const states = waiting.map((task) => `${task.formNumber} ${task.state?.raw ?? 'no state'}`).join(', ');
    return { decided: false, status: `${outcome.status}; pending tasks still want ${states}` };
  }
  const status = await accountStatusOf(eca, csid, accountId);
  if (status === 'O') return { decided: true, processed: true };
  return {
    decided: false,
    status: `${outcome.status}; getPendingTasks lists no entry, account status ${status ?? 'unknown'}`,
  };
}

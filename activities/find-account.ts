/**
 * The account a create made, found from spec fields only. The create response file's content is not
 * shown by the spec; its name is (`name`, and getResponseFile's `name`), and getFileDetails lists the
 * `Response File Name` of each account. So: the accounts created around the attempt (getAccountStatus
 * with startDate/endDate), then getFileDetails over them, matched on the file name.
 */
import type { EcaClient } from '../eca/index.js';

/** Accounts per getFileDetails call: the spec gives no maximum; the status batches use the same. */
const FILE_DETAILS_BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface FoundAccount {
  accountId?: string;
  /** Why no account was found (or which calls were made), for staff. */
  reason: string;
}

function day(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Accounts whose `Response File Name` is `responseFile`, among `accountIds`. */
async function matching(eca: EcaClient, csid: string, accountIds: string[], responseFile: string): Promise<string[]> {
  const found: string[] = [];
  for (let start = 0; start < accountIds.length; start += FILE_DETAILS_BATCH) {
    const details = await eca.getFileDetails({
      CSID: csid,
      accountIds: accountIds.slice(start, start + FILE_DETAILS_BATCH),
    });
    for (const entry of details.accounts) {
      if (!entry.isError && entry.responseFileName === responseFile) found.push(entry.accountId);
    }
  }
  return found;
}

/**
 * Finds the one account filed under `responseFile`. `hint` (an account id read from the response
 * file, whose format the spec does not show) is checked first and trusted only when getFileDetails
 * confirms it. The search covers the creation days from the day before `around` to the day after
 * (the service's time zone is not shown).
 */
export async function findAccountByResponseFile(
  eca: EcaClient,
  input: { csid: string; responseFile: string; around: Date; hint?: string },
): Promise<FoundAccount> {
  const { csid, responseFile, hint } = input;
  if (hint !== undefined && (await matching(eca, csid, [hint], responseFile)).length === 1) {
    return { accountId: hint, reason: 'confirmed by getFileDetails' };
  }
  const at = input.around.getTime();
  const window = { startDate: day(at - DAY_MS), endDate: day(at + DAY_MS) };
  const statuses = await eca.getAccountStatus({ CSID: csid, ...window });
  const candidates = statuses.accounts
    .filter((entry) => !entry.isError && entry.accountId !== '' && entry.accountId !== hint)
    .map((entry) => entry.accountId);
  const found = [...new Set(await matching(eca, csid, candidates, responseFile))];
  const searched = `${candidates.length} account(s) created ${window.startDate} to ${window.endDate}`;
  if (found.length === 1) return { accountId: found[0], reason: `matched among ${searched}` };
  if (found.length > 1) {
    return { reason: `${found.length} accounts (${found.join(', ')}) list response file ${responseFile}` };
  }
  return { reason: `no account lists response file ${responseFile} (getFileDetails over ${searched})` };
}

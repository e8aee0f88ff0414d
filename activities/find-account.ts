/**
 * The account a create made, found from spec fields only. The create response file's content is not
 * shown by the spec; its name is (`name`, and getResponseFile's `name`), and getFileDetails lists for each
 * account a `Request File Name` and a `Response File Name`, neither said to be a name the firm has seen. So
 * each is one way, and a name only ever identifies: the response file name create gave, or the name of the
 * XML file the engine put in its create archive (applicationFileName), as it is or with the service's
 * `.imported`. The candidates are the accounts created around the file's timestamp (getAccountStatus with
 * startDate/endDate), the window widened step by step while no account matches.
 */
import { createHash } from 'node:crypto';
import type { EcaClient } from '../eca/index.js';
import { lookUpInParts } from '../brokerage/xml/account-lists.js';

/** Accounts per getFileDetails call at most (fewer once the service refuses a list): the spec gives no maximum. */
const FILE_DETAILS_BATCH = 100;
const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * Days searched on either side of the file's timestamp, one step after the other while nothing matches. The
 * spec shows neither the time zone of its timestamps nor that of its dates, nor that they are one: two time
 * zones are at most 26 hours apart (UTC−12 to UTC+14), which the second step covers with a day to spare.
 */
const WINDOW_DAYS = [1, 3, 7] as const;

export interface FoundAccount {
  accountId?: string;
  /** Why no account was found (or which calls were made), for staff. */
  reason: string;
}

/** A processed create's file, and what tells its account apart. */
export interface CreatedFile {
  csid: string;
  /** The response file name (create's `name`, getResponseFile's entry). */
  responseFile: string;
  /** The name of the application XML in the create archive (applicationFileName). */
  requestFile?: string;
  /** The file's timestamp (the service's), or when it was sent. */
  around: Date;
  /** An account id read from the response file, whose format the spec does not show. */
  hint?: string;
}

/**
 * The name of the application XML in the create archive: the engine's own value, the same for every create
 * of the firm's application (a digest of both: no external id reaches a file name), and never of the
 * service's request file pattern (`<FirmName>_YYYY-MM-DD_####_####.xml.imported`), so no name the service
 * makes up can equal it.
 */
export function applicationFileName(csid: string, externalId: string): string {
  const digest = createHash('sha256').update(`${csid}\n${externalId}`).digest('hex').slice(0, 32);
  return `eca-${digest}.xml`;
}

/** The accounts whose getFileDetails entry names the file, one way or the other. */
interface Matches {
  byResponse: Set<string>;
  byRequest: Set<string>;
}

function day(at: number): string {
  return new Date(at).toISOString().slice(0, 10);
}

/** Reads getFileDetails for `accountIds` into `matches`. */
async function readMatches(eca: EcaClient, file: CreatedFile, accountIds: string[], matches: Matches): Promise<void> {
  const requestNames = file.requestFile === undefined ? [] : [file.requestFile, `${file.requestFile}.imported`];
  for (let start = 0; start < accountIds.length; start += FILE_DETAILS_BATCH) {
    // A list refused as a whole is split (brokerage/xml/account-lists.ts). An account refused even alone was not read, so
    // it cannot be ruled out: the search fails with the refusal rather than answer without it.
    const parts = await lookUpInParts(
      { client: eca, csid: file.csid, operation: 'getFileDetails' },
      accountIds.slice(start, start + FILE_DETAILS_BATCH),
      (ids) => eca.getFileDetails({ CSID: file.csid, accountIds: ids }),
    );
    const [refusal] = parts.refused.values();
    if (refusal) throw refusal;
    for (const entry of parts.answers.flatMap((details) => details.accounts)) {
      if (entry.isError) continue;
      if (entry.responseFileName === file.responseFile) matches.byResponse.add(entry.accountId);
      if (entry.requestFileName !== undefined && requestNames.includes(entry.requestFileName)) {
        matches.byRequest.add(entry.accountId);
      }
    }
  }
}

/**
 * The one account the names point to: the response file name's, when the request file name names no other
 * account; else the request file name's alone. Undefined when nothing matched; a reason when the names do not
 * point to one account (never a guess).
 */
function decide(matches: Matches, file: CreatedFile): FoundAccount | undefined {
  const byResponse = [...matches.byResponse];
  const byRequest = [...matches.byRequest];
  const [response] = byResponse;
  if (byResponse.length === 1 && response !== undefined && (byRequest.length === 0 || byRequest.includes(response))) {
    return { accountId: response, reason: `response file ${file.responseFile}` };
  }
  if (byResponse.length === 0 && byRequest.length === 1) {
    return { accountId: byRequest[0], reason: `request file ${file.requestFile ?? ''}` };
  }
  if (byResponse.length === 0 && byRequest.length === 0) return undefined;
  const names = (ids: string[]) => (ids.length === 0 ? 'none' : ids.join(', '));
  return {
    reason:
      `getFileDetails names no one account: response file ${file.responseFile} by ${names(byResponse)}, ` +
      `request file ${file.requestFile ?? ''} by ${names(byRequest)}`,
  };
}

/**
 * Finds the one account of `file`. `hint` is checked first and trusted only when getFileDetails names it.
 * Then the accounts created from `WINDOW_DAYS` days before `around` to as many after, each step adding
 * only the accounts not read yet.
 */
export async function findCreatedAccount(eca: EcaClient, file: CreatedFile): Promise<FoundAccount> {
  const matches: Matches = { byResponse: new Set(), byRequest: new Set() };
  const read = new Set<string>();
  if (file.hint !== undefined) {
    read.add(file.hint);
    await readMatches(eca, file, [file.hint], matches);
    if (decide(matches, file)?.accountId === file.hint)
      return { accountId: file.hint, reason: 'confirmed by getFileDetails' };
  }
  const at = file.around.getTime();
  let searched = 'no account';
  for (const days of WINDOW_DAYS) {
    const window = { startDate: day(at - days * DAY_MS), endDate: day(at + days * DAY_MS) };
    const statuses = await eca.getAccountStatus({ CSID: file.csid, ...window });
    const fresh = [
      ...new Set(
        statuses.accounts.filter((entry) => !entry.isError && entry.accountId !== '').map((entry) => entry.accountId),
      ),
    ].filter((accountId) => !read.has(accountId));
    fresh.forEach((accountId) => read.add(accountId));
    await readMatches(eca, file, fresh, matches);
    searched = `${read.size} account(s) created ${window.startDate} to ${window.endDate}`;
    const found = decide(matches, file);
    if (found?.accountId !== undefined)
      return { accountId: found.accountId, reason: `${found.reason}, among ${searched}` };
    if (found) return { reason: `${found.reason} (getFileDetails over ${searched})` };
  }
  const request = file.requestFile === undefined ? '' : ` or request file ${file.requestFile}`;
  return { reason: `no account lists response file ${file.responseFile}${request} (getFileDetails over ${searched})` };
}

/**
 * Listing applications from Temporal's visibility: one firm's (the context's CSID) unless a caller
 * holding the whole namespace asks for every firm, page by page with an opaque cursor.
 */
import { createHash } from 'node:crypto';
import { within } from './abort.js';
import { executionInfoFromRaw } from '@temporalio/client/lib/helpers.js';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import {
  EcaAccountId,
  EcaAccountStatus,
  EcaCsid,
  EcaExternalId,
  EcaLifecycleState,
  visibilityString,
} from '../domain/search-attributes.js';
import { APPLICATION_STATES } from '../domain/application-states.js';
import { ACCOUNT_STATUS_LETTER, ACCOUNT_STATUS_LETTER_RULE } from '../domain/account.js';
import type { EngineContext } from './context.js';
import { InvalidInputError } from './errors.js';

export interface ApplicationFilter {
  /** One of APPLICATION_STATES (the lifecycle chart's states); another is refused, never answered with nothing. */
  lifecycleState?: string;
  /** A status letter (domain/account.ts ACCOUNT_STATUS_LETTER); anything else is refused. */
  accountStatus?: string;
  /** Another firm's applications: only with `allFirms` (the context's firm otherwise). */
  csid?: string;
  /** Every firm's applications (or `csid`'s), for ops holding the whole namespace. Default: the context's firm. */
  allFirms?: boolean;
  externalId?: string;
  /** Started at or after / before (ISO 8601 or Date). */
  startedAfter?: Date | string;
  startedBefore?: Date | string;
  /** Only running applications. */
  running?: boolean;
  limit?: number;
}

export interface ApplicationListEntry {
  workflowId: string;
  externalId?: string;
  csid?: string;
  accountId?: string;
  lifecycleState?: string;
  accountStatus?: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
}

export interface ApplicationPage {
  applications: ApplicationListEntry[];
  /** Give it back for the next page; absent on the last one. */
  cursor?: string;
}

/** The largest page `listApplicationsPage` serves. */
export const MAX_PAGE_SIZE = 1000;

/** The visibility query for a filter (also useful in the Temporal UI's search box). */
export function applicationQuery(filter: ApplicationFilter): string {
  // A filter no application can match is refused, never answered with nothing.
  const { lifecycleState, accountStatus } = filter;
  if (lifecycleState !== undefined && !(APPLICATION_STATES as readonly string[]).includes(lifecycleState)) {
    throw new InvalidInputError(
      'lifecycleState',
      `"${lifecycleState}" is not a lifecycle state: one of ${APPLICATION_STATES.join(', ')}`,
    );
  }
  if (accountStatus !== undefined && !ACCOUNT_STATUS_LETTER.test(accountStatus)) {
    throw new InvalidInputError('accountStatus', `"${accountStatus}" is not ${ACCOUNT_STATUS_LETTER_RULE}`);
  }
  const clauses = [`WorkflowType = '${ACCOUNT_APPLICATION_WORKFLOW}'`];
  const keyword = (name: string, value: string | undefined) => {
    if (value !== undefined) clauses.push(`${name} = ${visibilityString(value)}`);
  };
  keyword('EcaLifecycleState', filter.lifecycleState);
  keyword('EcaAccountStatus', filter.accountStatus);
  keyword('EcaCsid', filter.csid);
  keyword('EcaExternalId', filter.externalId);
  const time = (value: Date | string, name: string) => {
    const date = value instanceof Date ? value : new Date(value);
    if (Number.isNaN(date.getTime())) throw new InvalidInputError(name, `"${String(value)}" is not a date`);
    return date.toISOString();
  };
  if (filter.startedAfter) clauses.push(`StartTime >= '${time(filter.startedAfter, 'startedAfter')}'`);
  if (filter.startedBefore) clauses.push(`StartTime < '${time(filter.startedBefore, 'startedBefore')}'`);
  if (filter.running) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}

/** The query of a filter in a context: the context's firm unless every firm is asked for. */
function scopedQuery(ctx: EngineContext, filter: ApplicationFilter): string {
  if (!filter.allFirms && filter.csid !== undefined && filter.csid !== ctx.csid) {
    throw new InvalidInputError('csid', `another firm's applications ("${filter.csid}") need allFirms`);
  }
  return applicationQuery({ ...filter, csid: filter.allFirms ? filter.csid : ctx.csid });
}

function entryOf(execution: WorkflowExecutionInfo): ApplicationListEntry {
  const attributes = execution.typedSearchAttributes;
  return {
    workflowId: execution.workflowId,
    externalId: attributes.get(EcaExternalId),
    csid: attributes.get(EcaCsid),
    accountId: attributes.get(EcaAccountId),
    lifecycleState: attributes.get(EcaLifecycleState),
    accountStatus: attributes.get(EcaAccountStatus),
    status: execution.status.name,
    startTime: execution.startTime,
    closeTime: execution.closeTime,
  };
}

/** Up to `filter.limit` (default 1,000) applications, newest first; `listApplicationsPage` goes further. */
export async function listApplications(
  ctx: EngineContext,
  filter: ApplicationFilter = {},
): Promise<ApplicationListEntry[]> {
  return within(ctx, async () => {
    const entries: ApplicationListEntry[] = [];
    const limit = filter.limit ?? 1000;
    for await (const execution of ctx.client.workflow.list({ query: scopedQuery(ctx, filter) })) {
      entries.push(entryOf(execution));
      if (entries.length >= limit) break;
    }
    return entries;
  });
}

/**
 * The cursor is Temporal's page token bound to the query it was made for: a cursor given with another
 * filter (or by another firm) is refused rather than read against the wrong query.
 */
function queryTag(query: string): string {
  return createHash('sha256').update(query).digest('base64url').slice(0, 16);
}

function encodeCursor(query: string, token: Uint8Array): string {
  return `${queryTag(query)}.${Buffer.from(token).toString('base64url')}`;
}

function decodeCursor(query: string, cursor: string): Uint8Array {
  const [tag, token, ...rest] = cursor.split('.');
  if (rest.length > 0 || !token || !/^[A-Za-z0-9_-]+$/.test(token)) {
    throw new InvalidInputError('cursor', 'is not a cursor this service gave');
  }
  if (tag !== queryTag(query)) throw new InvalidInputError('cursor', 'was given for another filter');
  return Buffer.from(token, 'base64url');
}

/** One page of applications (the context's firm), `pageSize` at most (default 100, at most MAX_PAGE_SIZE). */
export async function listApplicationsPage(
  ctx: EngineContext,
  filter: Omit<ApplicationFilter, 'limit'> = {},
  page: { pageSize?: number; cursor?: string } = {},
): Promise<ApplicationPage> {
  return within(ctx, async () => {
    const pageSize = page.pageSize ?? 100;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
      throw new InvalidInputError('pageSize', `${pageSize} is not a whole number from 1 to ${MAX_PAGE_SIZE}`);
    }
    const query = scopedQuery(ctx, filter);
    const response = await ctx.client.workflowService.listWorkflowExecutions({
      namespace: ctx.client.options.namespace,
      query,
      pageSize,
      nextPageToken: page.cursor === undefined ? undefined : decodeCursor(query, page.cursor),
    });
    const applications = await Promise.all(
      (response.executions ?? []).map(async (raw) =>
        entryOf(
          await executionInfoFromRaw(raw, ctx.client.options.loadedDataConverter, raw, ctx.client.options.namespace),
        ),
      ),
    );
    const token = response.nextPageToken;
    return { applications, ...(token && token.length > 0 ? { cursor: encodeCursor(query, token) } : {}) };
  });
}

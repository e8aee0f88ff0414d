/**
 * The firm's other workflows, listed and inspected: maintenance requests (`accountMaintenance`) and
 * daily document submissions (`dailyDocuments`). A running one answers its state query; a closed one
 * its result; either way from the server alone when no worker is up (search attributes, status).
 */
import type { Client, WorkflowExecutionInfo } from '@temporalio/client';
import { within } from './abort.js';
import { WorkflowNotFoundError } from '@temporalio/client';
import { ACCOUNT_MAINTENANCE_WORKFLOW, DAILY_DOCUMENTS_WORKFLOW } from '../domain/workflow-ids.js';
import {
  EcaAccountId,
  EcaCsid,
  EcaDocumentsAlert,
  EcaRequestStatus,
  EcaUpdateFunction,
} from '../domain/search-attributes.js';
import { dailyDocumentsStateQuery } from '../workflows/documents/messages.js';
import { maintenanceStateQuery } from '../workflows/maintenance/messages.js';
import type { EngineContext } from './context.js';
import { EngineError, InvalidInputError } from './errors.js';

export type RunKind = 'maintenance' | 'documents';

const WORKFLOW_TYPES: Record<RunKind, string> = {
  maintenance: ACCOUNT_MAINTENANCE_WORKFLOW,
  documents: DAILY_DOCUMENTS_WORKFLOW,
};

export interface RunFilter {
  /** Maintenance only: requests of this account. */
  accountId?: string;
  running?: boolean;
  limit?: number;
}

export interface RunListEntry {
  workflowId: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
  /** Maintenance: the account, the update function and the request's status at the brokerage. */
  accountId?: string;
  functionName?: string;
  requestStatus?: string;
  /** Daily documents: the alert of the day's submission. */
  alert?: string;
}

export interface RunStatus {
  workflowId: string;
  status: string;
  startTime: Date;
  closeTime?: Date;
  /** What the workflow answered: its state query while running, its result once completed. */
  detail?: unknown;
  /** Why `detail` is missing (no worker answered, the run failed). */
  note?: string;
}

function quoted(value: string, name: string): string {
  if (!/^[A-Za-z0-9_.:-]+$/.test(value)) throw new InvalidInputError(name, `"${value}" has characters an id never has`);
  return `'${value}'`;
}

/** The visibility query of the firm's runs of one kind. */
export function runQuery(csid: string, kind: RunKind, filter: RunFilter = {}): string {
  const clauses = [`WorkflowType = '${WORKFLOW_TYPES[kind]}'`, `EcaCsid = ${quoted(csid, 'csid')}`];
  if (filter.accountId !== undefined) clauses.push(`EcaAccountId = ${quoted(filter.accountId, 'accountId')}`);
  if (filter.running) clauses.push(`ExecutionStatus = 'Running'`);
  return clauses.join(' AND ');
}

function entry(execution: WorkflowExecutionInfo): RunListEntry {
  const attributes = execution.typedSearchAttributes;
  return {
    workflowId: execution.workflowId,
    status: execution.status.name,
    startTime: execution.startTime,
    closeTime: execution.closeTime,
    accountId: attributes.get(EcaAccountId),
    functionName: attributes.get(EcaUpdateFunction),
    requestStatus: attributes.get(EcaRequestStatus),
    alert: attributes.get(EcaDocumentsAlert),
  };
}

/** The firm's runs of `kind`, newest first. */
export async function listRuns(ctx: EngineContext, kind: RunKind, filter: RunFilter = {}): Promise<RunListEntry[]> {
  return within(ctx, async () => {
    const entries: RunListEntry[] = [];
    const limit = filter.limit ?? 200;
    for await (const execution of ctx.client.workflow.list({ query: runQuery(ctx.csid, kind, filter) })) {
      entries.push(entry(execution));
      if (entries.length >= limit) break;
    }
    return entries;
  });
}

async function answer(
  client: Client,
  kind: RunKind,
  workflowId: string,
  status: string,
): Promise<Pick<RunStatus, 'detail' | 'note'>> {
  const handle = client.workflow.getHandle(workflowId);
  try {
    if (status === 'RUNNING') {
      const detail =
        kind === 'maintenance'
          ? await handle.query(maintenanceStateQuery)
          : await handle.query(dailyDocumentsStateQuery);
      return { detail };
    }
    if (status === 'COMPLETED') return { detail: await handle.result() };
    return { note: `the run ended ${status}` };
  } catch (error) {
    return { note: `no answer from the workflow: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** One run of the firm, by workflow id: its status and what it answers; a run is the firm's by its EcaCsid. */
export async function runStatus(ctx: EngineContext, kind: RunKind, workflowId: string): Promise<RunStatus> {
  return within(ctx, async () => {
    const found = await describeRun(ctx, workflowId);
    if (found === undefined) {
      throw new EngineError('UNKNOWN_APPLICATION', `no workflow "${workflowId}" (\`eca ${kind} list\` shows them)`);
    }
    const { description } = found;
    if (description.type !== WORKFLOW_TYPES[kind] || description.typedSearchAttributes.get(EcaCsid) !== ctx.csid) {
      throw new EngineError('UNKNOWN_APPLICATION', `"${workflowId}" is no ${kind} run of firm ${ctx.csid}`);
    }
    const status = description.status.name;
    return {
      workflowId: found.workflowId,
      status,
      startTime: description.startTime,
      closeTime: description.closeTime,
      ...(await answer(ctx.client, kind, found.workflowId, status)),
    };
  });
}

/** The run under `workflowId`, or undefined when there is none. */
async function describeRun(ctx: EngineContext, workflowId: string) {
  try {
    return { workflowId, description: await ctx.client.workflow.getHandle(workflowId).describe() };
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return undefined;
    throw error;
  }
}

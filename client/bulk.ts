/**
 * Staff actions on many applications at once, chosen by a visibility query, through Temporal's batch
 * operations: the server signals every matching workflow itself, at its own pace, and keeps the job's
 * progress. Only running applications of this firm are ever matched: the caller's filter, parsed and
 * written back by the engine, is ANDed with the workflow type, `ExecutionStatus = 'Running'` and the CSID. Signals cannot answer; each
 * application records what it did with one (accepted or refused, and why) in its `staffNotices`.
 */
import { randomUUID } from 'node:crypto';
import { pause, within } from './abort.js';
import type { Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import type { AbandonRequest } from '../workflows/application/messages.js';
import { abandonSignal, pollNowSignal } from '../workflows/application/messages.js';
import type { EngineContext } from './context.js';
import { InvalidInputError } from './errors.js';
import { filterText, parseFilter } from './visibility-filter.js';
import { visibilityString } from '../domain/search-attributes.js';

export type BulkAction = 'abandon' | 'poll-now';

export interface BulkInput {
  action: BulkAction;
  /** A visibility query, e.g. `EcaLifecycleState = 'needsDocuments'`; narrowed to this firm's running applications. */
  query: string;
  /** For abandon: why, for each application's record. */
  reason?: string;
  /** Count and show the matching applications; start nothing. */
  dryRun?: boolean;
  /** Signals per second the server sends (default: the server's own limit). */
  rate?: number;
}

export interface BulkPlan {
  /** The query the server runs. */
  query: string;
  /** Applications it matches now. */
  matching: number;
  /** Up to 20 of their workflow ids. */
  sample: string[];
}

export interface BulkJob extends BulkPlan {
  jobId: string;
}

export interface BulkJobState {
  jobId: string;
  state: string;
  total: number;
  completed: number;
  failed: number;
}

/**
 * The caller's filter narrowed to this firm's running applications. The filter is parsed by a grammar and
 * written back by the engine (visibility-filter.ts): no text of it can reach past the scope.
 */
export function bulkQuery(csid: string, query: string): string {
  if (csid === '') throw new InvalidInputError('csid', 'is empty');
  const filter = filterText(parseFilter(query));
  return `WorkflowType = '${ACCOUNT_APPLICATION_WORKFLOW}' AND ExecutionStatus = 'Running' AND EcaCsid = ${visibilityString(csid)} AND (${filter})`;
}

/** The signal's input, through the client's data converter and codec: encrypted as every other payload. */
async function encodeArgs(ctx: EngineContext, args: unknown[]): Promise<Payload[]> {
  const converter = ctx.client.options.loadedDataConverter;
  let payloads = args.map((arg) => converter.payloadConverter.toPayload(arg));
  for (const codec of converter.payloadCodecs) payloads = await codec.encode(payloads);
  return payloads;
}

/** What the query matches now: a count and a sample; a bad query is refused here with the server's reason. */
export async function planBulk(ctx: EngineContext, input: Pick<BulkInput, 'query'>): Promise<BulkPlan> {
  return within(ctx, async () => {
    const query = bulkQuery(ctx.csid, input.query);
    let matching: number;
    const sample: string[] = [];
    try {
      matching = (await ctx.client.workflow.count(query)).count;
      for await (const execution of ctx.client.workflow.list({ query, pageSize: 20 })) {
        sample.push(execution.workflowId);
        if (sample.length >= 20) break;
      }
    } catch (error) {
      // The client's ServiceError wraps the server's answer: INVALID_ARGUMENT (gRPC code 3) names the problem.
      const cause =
        error instanceof Error ? (error.cause as { code?: number; details?: string } | undefined) : undefined;
      if (cause?.code === 3) throw new InvalidInputError('--query', cause.details ?? 'the server refused the query');
      if (error instanceof Error && /invalid|syntax|unknown|not defined|operator/i.test(error.message)) {
        throw new InvalidInputError('--query', error.message);
      }
      throw error;
    }
    return { query, matching, sample };
  });
}

/** Starts the batch (or only plans it, with `dryRun`). */
export async function startBulk(ctx: EngineContext, input: BulkInput): Promise<BulkJob | BulkPlan> {
  return within(ctx, async () => {
    const plan = await planBulk(ctx, input);
    if (input.dryRun || plan.matching === 0) return plan;
    const request: AbandonRequest = input.reason === undefined ? {} : { reason: input.reason };
    const [signal, args] = input.action === 'abandon' ? [abandonSignal.name, [request]] : [pollNowSignal.name, [{}]];
    const jobId = `eca-bulk-${input.action}-${randomUUID()}`;
    await ctx.client.workflowService.startBatchOperation({
      namespace: ctx.client.options.namespace,
      jobId,
      visibilityQuery: plan.query,
      // The batch record is not encrypted: the staff's reason travels only in the signal's (encrypted) input.
      reason: `eca bulk ${input.action}`,
      maxOperationsPerSecond: input.rate ?? 0,
      signalOperation: {
        signal,
        input: { payloads: await encodeArgs(ctx, args) },
        identity: ctx.client.options.identity,
      },
    });
    return { ...plan, jobId };
  });
}

/** Where a batch job stands. */
export async function bulkJobState(ctx: EngineContext, jobId: string): Promise<BulkJobState> {
  return within(ctx, async () => {
    const job = await ctx.client.workflowService.describeBatchOperation({
      namespace: ctx.client.options.namespace,
      jobId,
    });
    const state = proto.temporal.api.enums.v1.BatchOperationState[job.state ?? 0] ?? 'UNSPECIFIED';
    return {
      jobId,
      state: state.replace(/^BATCH_OPERATION_STATE_/, ''),
      total: Number(job.totalOperationCount ?? 0),
      completed: Number(job.completeOperationCount ?? 0),
      failed: Number(job.failureOperationCount ?? 0),
    };
  });
}

/** Follows a job until it is no longer running, reporting each change; answers its last state. */
export async function awaitBulkJob(
  ctx: EngineContext,
  jobId: string,
  onProgress: (state: BulkJobState) => void = () => undefined,
): Promise<BulkJobState> {
  return within(ctx, async () => {
    for (;;) {
      const state = await bulkJobState(ctx, jobId);
      onProgress(state);
      if (state.state !== 'RUNNING' && state.state !== 'UNSPECIFIED') return state;
      await pause(1000, ctx.signal);
    }
  });
}

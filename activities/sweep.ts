/**
 * The firm's status sweep (see workflows/sweep): one activity per slot reads what the brokerage holds
 * for every pending account of the firm and wakes the applications whose account changed.
 *
 * Brokerage calls per slot: getAccountStatus with status N and with status P, getPendingTasks without a
 * selector (spec: "When no selector is sent, every sub-account associated with the master account of
 * the caller is returned"), plus one getAccountStatus by id per 100 waiting applications whose account
 * left N and P (opened, rejected, abandoned, closed). What an application last read is its own
 * search attribute `EcaObserved`; the sweep compares fingerprints and keeps nothing between slots.
 */
import { CONFIGURATION_ERROR, REQUEST_ERROR } from '../domain/error-types.js';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { AccountStatusResponse, EcaClient, PendingTasksAccount } from '../eca/index.js';
import { accountObservedSignal } from '../workflows/application/messages.js';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import { observationFingerprint } from '../domain/observation.js';
import type { AccountSnapshot } from '../domain/account.js';
import { EcaAccountId, EcaObserved } from '../domain/search-attributes.js';
import type { SweepReport } from '../workflows/sweep/messages.js';
import { accountSnapshot } from './status.js';
import { DEFAULT_MAX_ACCOUNTS_PER_CALL } from '../runtime/defaults.js';
import type { SweepActivities } from '../workflows/sweep/activities.js';
import { finalFailure } from './brokerage-errors.js';

/** The lifecycle states whose effect is a wait for the account to change (workflows/lifecycle/effects.ts). */
export const SWEPT_STATES = ['tracking', 'needsDocuments', 'awaitingClient', 'awaitingApproval'] as const;

/** Statuses of an application still in progress at the brokerage. */
const PENDING_STATUSES = ['N', 'P'] as const;

export interface SweepActivityOptions {
  eca: EcaClient;
  /** The Temporal client that lists the waiting applications and signals them (with the payload codec). */
  client?: Client;
  /** Accounts per getAccountStatus by id (default: the status reads' own, DEFAULT_MAX_ACCOUNTS_PER_CALL). */
  maxAccountsPerCall?: number;
  /** Signals sent at once (default 32). */
  signalConcurrency?: number;
  /** Told what each slot's sweep did (the demo and benchmarks print it; the worker counts it). */
  onSweep?: (report: SweepReport, csid: string) => void;
  /** Told of each sweep attempt that failed (the worker counts them: an alert when a firm's sweep keeps failing). */
  onSweepFailed?: (csid: string, error: unknown) => void;
}

interface WaitingApplication {
  workflowId: string;
  accountId: string;
  observed: string;
}

/** Visibility queries quote values in single quotes; a CSID never holds one. */
function quoted(value: string): string {
  if (!/^[\w.-]+$/.test(value)) {
    throw finalFailure(REQUEST_ERROR, `CSID ${JSON.stringify(value)} cannot be used in a visibility query`);
  }
  return `'${value}'`;
}

export function sweepQuery(csid: string): string {
  return [
    `WorkflowType = '${ACCOUNT_APPLICATION_WORKFLOW}'`,
    `ExecutionStatus = 'Running'`,
    `EcaCsid = ${quoted(csid)}`,
    `EcaLifecycleState IN (${SWEPT_STATES.map((state) => `'${state}'`).join(', ')})`,
  ].join(' AND ');
}

const LIST_PAGE_SIZE = 1000;

/** The applications of the firm waiting for their account to change, with what each last read. */
async function waitingApplications(client: Client | undefined, csid: string): Promise<WaitingApplication[]> {
  if (!client) {
    throw finalFailure(
      CONFIGURATION_ERROR,
      'the status sweep needs a Temporal client (createEngineActivities({ client }))',
    );
  }
  const waiting: WaitingApplication[] = [];
  for await (const execution of client.workflow.list({ query: sweepQuery(csid), pageSize: LIST_PAGE_SIZE })) {
    const attributes = execution.typedSearchAttributes;
    const accountId = attributes.get(EcaAccountId);
    const observed = attributes.get(EcaObserved);
    // Applications without EcaObserved poll on their own (statusSource 'poll', older histories).
    if (accountId && observed) waiting.push({ workflowId: execution.workflowId, accountId, observed });
  }
  return waiting;
}

export function createSweepActivities(options: SweepActivityOptions): SweepActivities {
  const { eca, client } = options;
  const perCall = options.maxAccountsPerCall ?? DEFAULT_MAX_ACCOUNTS_PER_CALL;
  const concurrency = options.signalConcurrency ?? 32;

  return {
    async sweepFirm({ csid }): Promise<SweepReport> {
      // Heartbeats every few seconds whatever the step, so that a sweep on a worker that died is retried
      // elsewhere after the short heartbeat timeout rather than after the whole start-to-close timeout.
      const context = Context.current();
      const beat = setInterval(() => context.heartbeat(), 5_000);
      try {
        const report = await sweep(csid);
        options.onSweep?.(report, csid);
        return report;
      } catch (error) {
        options.onSweepFailed?.(csid, error);
        throw error;
      } finally {
        clearInterval(beat);
      }
    },
  };

  async function sweep(csid: string): Promise<SweepReport> {
    const began = Date.now();
    const observedAt = began;
    let brokerageCalls = 0;
    const counted: Counted = (call) => {
      brokerageCalls++;
      return call;
    };
    // The visibility listing runs beside the brokerage's reads: at 10,000 waiting it is the longer part.
    const [read, waiting] = await Promise.all([readPending(eca, csid, counted), waitingApplications(client, csid)]);
    const pending = read.snapshots.size;
    const left = [...new Set(waiting.map((app) => app.accountId).filter((id) => !read.snapshots.has(id)))];
    for (let i = 0; i < left.length; i += perCall) {
      read.add(await counted(eca.getAccountStatus({ CSID: csid, accountIds: left.slice(i, i + perCall) })));
    }

    let unknown = 0;
    const changed: Changed[] = [];
    for (const app of waiting) {
      const account = read.snapshots.get(app.accountId);
      // No entry or an error entry: the account is unknown this slot; the next slot looks again.
      if (account === undefined || account instanceof Error) unknown++;
      else if (observationFingerprint(account) !== app.observed) changed.push({ app, account });
    }
    const signalled = await signalChanged(client!, changed, { concurrency, observedAt });
    return {
      observedAt,
      pending,
      waiting: waiting.length,
      left: left.length,
      changed: changed.length,
      woken: signalled.woken,
      gone: signalled.gone,
      errors: unknown + signalled.errors,
      brokerageCalls,
      listPages: Math.max(1, Math.ceil(waiting.length / LIST_PAGE_SIZE)),
      durationMs: Date.now() - began,
    };
  }
}

/** Passes a brokerage call through, counting it. */
type Counted = <T>(call: Promise<T>) => Promise<T>;

/**
 * The firm's accounts in progress (status N and P) as snapshots, with every pending task; `add` puts
 * in more statuses, read by id, with the same tasks.
 */
async function readPending(eca: EcaClient, csid: string, counted: Counted) {
  const [byStatus, tasks] = await Promise.all([
    Promise.all(PENDING_STATUSES.map((status) => counted(eca.getAccountStatus({ CSID: csid, status })))),
    counted(eca.getPendingTasks({ CSID: csid })),
  ]);
  const tasksById = new Map<string, PendingTasksAccount>(tasks.accounts.map((entry) => [entry.accountId, entry]));
  const snapshots = new Map<string, AccountSnapshot | Error>();
  const add = (read: AccountStatusResponse): void => {
    for (const entry of read.accounts) {
      snapshots.set(entry.accountId, accountSnapshot(entry, tasksById.get(entry.accountId)));
    }
  };
  byStatus.forEach(add);
  return { snapshots, add };
}

interface Changed {
  app: WaitingApplication;
  account: AccountSnapshot;
}

/** Signals the applications whose account changed, `concurrency` at once. */
async function signalChanged(
  client: Client,
  changed: Changed[],
  options: { concurrency: number; observedAt: number },
): Promise<{ woken: number; gone: number; errors: number }> {
  const counts = { woken: 0, gone: 0, errors: 0 };
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, changed.length) }, async () => {
      while (next < changed.length) {
        const { app, account } = changed[next++]!;
        try {
          await client.workflow
            .getHandle(app.workflowId)
            .signal(accountObservedSignal, { account, observedAt: options.observedAt });
          counts.woken++;
        } catch (error) {
          if (error instanceof WorkflowNotFoundError) counts.gone++;
          else counts.errors++;
        }
      }
    }),
  );
  return counts;
}

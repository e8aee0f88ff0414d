/**
 * The firm's status sweep (see workflows/sweep): one activity per slot reads what the brokerage holds
 * for every pending account of the firm and wakes the applications whose account changed.
 *
 * The reads are the firm's brokerage's (brokerage/port.ts `sweepReads`, on its protocol): on the Web API, bulk
 * status reads and task reads only where they are needed (brokerage/webapi/sweep-reads.ts); on the XML service
 * (brokerage/xml/sweep-reads.ts), brokerage calls per slot: getAccountStatus with status N and with status P, getPendingTasks without a
 * selector (spec: "When no selector is sent, every sub-account associated with the master account of
 * the caller is returned"), plus one getAccountStatus by id per 100 waiting applications whose account
 * left N and P (opened, rejected, abandoned, closed), in shorter lists when the service refuses a list as a whole.
 *
 * What it compares the reads with: its snapshot in the engine's database (runtime/sweep-snapshot.ts),
 * the fingerprint it last saw or sent per account an application registered; so a quiet slot costs the
 * three calls and one database read whatever the number waiting. It lists the waiting applications from
 * Temporal's visibility, comparing what each last read itself (search attribute `EcaObserved`), when the
 * firm has no listing time in the database (a new or lost one) and every `listingIntervalMs`: the
 * applications stay the source of truth.
 */
import { CONFIGURATION_ERROR, REQUEST_ERROR } from '../domain/error-types.js';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { EcaClient } from '../eca/index.js';
import { accountObservedSignal } from '../workflows/application/messages.js';
import { ACCOUNT_APPLICATION_WORKFLOW } from '../domain/workflow-ids.js';
import { NO_OBSERVATION, observationFingerprint } from '../domain/observation.js';
import { firstReadChangesNothing } from '../workflows/lifecycle/index.js';
import { stateClasses } from '../domain/application-states.js';
import type { AccountSnapshot } from '../domain/account.js';
import { EcaAccountId, EcaObserved } from '../domain/search-attributes.js';
import type { SweepReport } from '../workflows/sweep/messages.js';
import { DEFAULT_MAX_ACCOUNTS_PER_CALL, DEFAULT_SWEEP_LISTING_INTERVAL_MS } from '../runtime/defaults.js';
import type { SweepSnapshot, SweptAccount } from '../runtime/sweep-snapshot.js';
import { remember } from './sweep-snapshot.js';
import type { Candidate, Compared, SignalOutcome } from './sweep-slot.js';
import type { Brokerage, Counted } from '../brokerage/port.js';
import { xmlBrokerages } from '../brokerage/xml/index.js';
import type { SweepActivities } from '../workflows/sweep/activities.js';
import { finalFailure } from './brokerage-errors.js';

export interface SweepActivityOptions {
  eca: EcaClient;
  /** The Temporal client that lists the waiting applications and signals them (with the payload codec). */
  client?: Client;
  /**
   * The sweep's snapshot in the engine's database (runtime/sweep-snapshot.ts): slots compare against it
   * and list the waiting applications only every `listingIntervalMs`.
   */
  snapshot: SweepSnapshot;
  /** How often a slot lists the waiting applications from visibility (default 1 h). */
  listingIntervalMs?: number;
  /** Accounts per getAccountStatus by id (default: the status reads' own, DEFAULT_MAX_ACCOUNTS_PER_CALL). */
  maxAccountsPerCall?: number;
  /** Signals sent at once (default 32). */
  signalConcurrency?: number;
  /** Told what each slot's sweep did (the demo and benchmarks print it; the worker counts it). */
  onSweep?: (report: SweepReport, csid: string) => void;
  /** Told of each sweep attempt that failed (the worker counts them: an alert when a firm's sweep keeps failing). */
  onSweepFailed?: (csid: string, error: unknown) => void;
  /**
   * Each firm's brokerage on its protocol (runtime/firm-brokerages.ts `brokerageFor`), whose reads a slot makes;
   * without it, every firm's through `eca` on the XML service.
   */
  brokerageFor?: (csid: string) => Promise<Brokerage>;
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
    `EcaLifecycleState IN (${stateClasses.swept.map((state) => `'${state}'`).join(', ')})`,
  ].join(' AND ');
}

const LIST_PAGE_SIZE = 1000;

/** The applications of the firm waiting for their account to change, with what each last read. */
async function waitingApplications(client: Client, csid: string): Promise<WaitingApplication[]> {
  const waiting: WaitingApplication[] = [];
  for await (const execution of client.workflow.list({ query: sweepQuery(csid), pageSize: LIST_PAGE_SIZE })) {
    const attributes = execution.typedSearchAttributes;
    const accountId = attributes.get(EcaAccountId);
    const observed = attributes.get(EcaObserved);
    // An application that has not published what it read yet is listed again at the next slot.
    if (accountId && observed) waiting.push({ workflowId: execution.workflowId, accountId, observed });
  }
  return waiting;
}

export function createSweepActivities(options: SweepActivityOptions): SweepActivities {
  const { eca, client, snapshot } = options;
  const perCall = options.maxAccountsPerCall ?? DEFAULT_MAX_ACCOUNTS_PER_CALL;
  const concurrency = options.signalConcurrency ?? 32;
  const listingIntervalMs = options.listingIntervalMs ?? DEFAULT_SWEEP_LISTING_INTERVAL_MS;
  const brokerageFor = options.brokerageFor ?? xmlBrokerages(eca);

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
    if (!client) {
      throw finalFailure(
        CONFIGURATION_ERROR,
        'the status sweep needs a Temporal client (createEngineActivities({ client }))',
      );
    }
    const began = Date.now();
    const observedAt = began;
    let brokerageCalls = 0;
    const counted: Counted = (call) => {
      brokerageCalls++;
      return call;
    };
    const brokerage = await brokerageFor(csid);
    const [read, { store, rows, listed, tried, failure }] = await Promise.all([
      brokerage.sweepReads({ counted, maxAccountsPerCall: perCall }),
      // The visibility listing, when due, runs beside the brokerage's reads: at 10,000 waiting it is the longer part.
      slotSources(client, snapshot, csid, began, listingIntervalMs),
    ]);
    const candidates = candidatesOf(rows, listed);
    const left = [...candidates.keys()].filter((id) => !read.pending.has(id));
    const snapshots = await read.snapshotsOf([...candidates.keys()]);
    const readUntil = Date.now();

    const compared = compare(candidates, snapshots);
    const outcomes = await signalChanged(client, compared.changed, { concurrency, observedAt, readUntil });
    if (store) {
      const slot = { ...compared, outcomes, listed: listed !== undefined };
      await tried(() => remember(store, client, csid, slot));
      if (listed && !failure.message) await tried(() => store.markListed(csid, began));
    }
    const count = (outcome: SignalOutcome) => [...outcomes.values()].filter((o) => o === outcome).length;
    return {
      observedAt,
      pending: read.pending.size,
      waiting: candidates.size,
      left: left.length,
      changed: compared.changed.length,
      woken: count('woken'),
      gone: count('gone'),
      errors: compared.unknown.length + count('error'),
      brokerageCalls,
      listPages: listed ? Math.max(1, Math.ceil(listed.length / LIST_PAGE_SIZE)) : 0,
      durationMs: Date.now() - began,
      ...(failure.message !== undefined && { snapshotError: failure.message }),
    };
  }
}

/**
 * What a slot compares with: the snapshot's rows, and the waiting applications listed from visibility
 * when the listing is due. When the database fails, the slot lists and leaves the snapshot alone; `failure`
 * says why and `tried` runs the slot's later writes the same way.
 */
async function slotSources(
  client: Client,
  snapshot: SweepSnapshot,
  csid: string,
  began: number,
  listingIntervalMs: number,
) {
  const failure: { message?: string } = {};
  const tried = async <T>(operation: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await operation();
    } catch (error) {
      failure.message ??= error instanceof Error ? error.message : String(error);
      return undefined;
    }
  };
  let store: SweepSnapshot | undefined = snapshot;
  const listedAt = await tried(() => snapshot.listedAt(csid));
  if (failure.message) store = undefined;
  const listing = !store || listedAt === undefined || began - listedAt >= listingIntervalMs;
  const loading = store;
  const [rows, listedNow] = await Promise.all([
    loading ? tried(() => loading.load(csid)) : [],
    listing ? waitingApplications(client, csid) : undefined,
  ]);
  if (rows === undefined) store = undefined;
  const listed = listedNow ?? (store ? undefined : await waitingApplications(client, csid));
  return { store, rows: rows ?? [], listed, tried, failure };
}

/**
 * What each waiting application is compared with, by account: the snapshot's row, or what the
 * application itself last read when the listing found it (the source of truth wins).
 */
function candidatesOf(rows: readonly SweptAccount[], listed: readonly WaitingApplication[] | undefined) {
  const candidates = new Map<string, Candidate>();
  for (const row of rows) candidates.set(row.accountId, { ...row, listed: false });
  for (const app of listed ?? []) {
    const { accountId, workflowId, observed } = app;
    candidates.set(accountId, { accountId, workflowId, fingerprint: observed, listed: true });
  }
  return candidates;
}

/** Each candidate's account as read this slot, against its fingerprint; accounts not read or read in error are unknown. */
function compare(candidates: Map<string, Candidate>, read: ReadonlyMap<string, AccountSnapshot | Error>) {
  const unknown: Candidate[] = [];
  const changed: Compared[] = [];
  const unchanged: Compared[] = [];
  for (const candidate of candidates.values()) {
    const account = read.get(candidate.accountId);
    // No entry or an error entry: the next slot looks again.
    if (account === undefined || account instanceof Error) {
      unknown.push(candidate);
      continue;
    }
    // An application that has read nothing is not woken by a read it would take without a change: it
    // keeps having read nothing, and a later change (or its own safety read) tells it the account.
    if (candidate.fingerprint === NO_OBSERVATION && firstReadChangesNothing(account)) {
      unchanged.push({ candidate, account, fingerprint: NO_OBSERVATION });
      continue;
    }
    const seen = { candidate, account, fingerprint: observationFingerprint(account) };
    (seen.fingerprint === candidate.fingerprint ? unchanged : changed).push(seen);
  }
  return { unknown, changed, unchanged };
}

/** Signals the applications whose account changed, `concurrency` at once; answers each one's outcome. */
async function signalChanged(
  client: Client,
  changed: Compared[],
  options: { concurrency: number; observedAt: number; readUntil: number },
): Promise<Map<Compared, SignalOutcome>> {
  const outcomes = new Map<Compared, SignalOutcome>();
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, changed.length) }, async () => {
      while (next < changed.length) {
        const seen = changed[next++]!;
        const { candidate, account } = seen;
        try {
          await client.workflow.getHandle(candidate.workflowId).signal(accountObservedSignal, {
            account,
            accountId: candidate.accountId,
            observedAt: options.observedAt,
            readUntil: options.readUntil,
          });
          outcomes.set(seen, 'woken');
        } catch (error) {
          outcomes.set(seen, error instanceof WorkflowNotFoundError ? 'gone' : 'error');
        }
      }
    }),
  );
  return outcomes;
}

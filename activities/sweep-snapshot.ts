/**
 * The status sweep's side of its snapshot (runtime/sweep-snapshot.ts): what a slot writes back, and the
 * registration of the accounts applications create or reset.
 */
import { activityInfo, log } from '@temporalio/activity';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Client } from '@temporalio/client';
import type { SweepSnapshot, SweptAccount } from '../runtime/sweep-snapshot.js';
import { NO_OBSERVATION } from '../domain/observation.js';
import type { ApplicationUpdateFunction, CreateOutcome, UpdateOutcome } from '../workflows/application/activities.js';
import type { Candidate, Compared, SignalOutcome } from './sweep-slot.js';

/** Statuses after which an account's application is done with it: its row leaves once the application knows. */
const FINAL_STATUSES: ReadonlySet<string> = new Set(['O', 'R', 'C']);

/**
 * Writes what the slot learnt into the snapshot: the fingerprint each woken application was sent; the
 * rows a listing found, with the application's own fingerprint where it was not woken (its signal
 * failed, or its account was not read), so that the next slot compares with what it knows. An account
 * opened, rejected or closed leaves once its application knows (woken, or told before) or is gone; an
 * abandoned one stays (a reset brings it back). A failed signal leaves a known row as it was: the next
 * slot sends it again. A listing slot also drops the rows of applications that are no longer running.
 */
export async function remember(
  snapshot: SweepSnapshot,
  client: Client,
  csid: string,
  slot: { unknown: Candidate[]; unchanged: Compared[]; outcomes: Map<Compared, SignalOutcome>; listed: boolean },
): Promise<void> {
  const upserts: Required<SweptAccount>[] = [];
  const updates: Required<SweptAccount>[] = [];
  const removals: Candidate[] = [];
  const row = (candidate: Candidate, fingerprint: string) => ({
    accountId: candidate.accountId,
    workflowId: candidate.workflowId,
    fingerprint,
  });
  const settle = ({ candidate, account, fingerprint }: Compared, outcome: SignalOutcome | 'unchanged'): void => {
    if (outcome === 'gone' || (outcome !== 'error' && FINAL_STATUSES.has(account.status))) removals.push(candidate);
    else if (outcome === 'error') {
      if (candidate.listed && candidate.fingerprint) upserts.push(row(candidate, candidate.fingerprint));
    } else if (candidate.listed) upserts.push(row(candidate, fingerprint));
    else if (outcome === 'woken') updates.push(row(candidate, fingerprint));
  };
  for (const seen of slot.unchanged) settle(seen, 'unchanged');
  for (const [seen, outcome] of slot.outcomes) settle(seen, outcome);
  for (const candidate of slot.unknown) {
    if (candidate.listed && candidate.fingerprint) upserts.push(row(candidate, candidate.fingerprint));
  }
  if (slot.listed) removals.push(...(await closedApplications(client, slot)));
  await snapshot.record(csid, upserts, 'upsert');
  await snapshot.record(csid, updates, 'update');
  await snapshot.remove(csid, removals);
}

/** The rows a listing did not find whose application is no longer running (described one by one: they are few). */
async function closedApplications(
  client: Client,
  slot: { unknown: Candidate[]; unchanged: Compared[] },
): Promise<Candidate[]> {
  const unlisted = [...slot.unknown, ...slot.unchanged.map((seen) => seen.candidate)].filter((c) => !c.listed);
  const closed: Candidate[] = [];
  for (const candidate of unlisted) {
    try {
      const description = await client.workflow.getHandle(candidate.workflowId).describe();
      if (description.status.name !== 'RUNNING') closed.push(candidate);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) closed.push(candidate);
    }
  }
  return closed;
}

/**
 * The registration, in the sweep's snapshot, of the accounts applications create or reset: the XML and
 * Web API adapters' `createAccount` register each account its create established, and their
 * `sendApplicationUpdate` each account a ResetAbandonedAccount it sent or found brings back: the sweep
 * reads it from its next slot without listing anything. A registration that fails is logged and the step
 * goes on (a failed attempt would make a create only look from then on); the sweep's next listing finds
 * the application. Without a snapshot (an adapter built alone), nothing is registered.
 */
export async function registerCreated(
  snapshot: SweepSnapshot | undefined,
  csid: string,
  outcome: CreateOutcome,
): Promise<void> {
  // The application has read nothing of its new account yet.
  if (outcome.created) await register(snapshot, csid, outcome.accountId, NO_OBSERVATION);
}

/** See {@link registerCreated}: the account an accepted ResetAbandonedAccount brings back. */
export async function registerReset(
  snapshot: SweepSnapshot | undefined,
  input: { csid: string; accountId: string; functionName: ApplicationUpdateFunction },
  outcome: UpdateOutcome,
): Promise<void> {
  // Only a reset identified by its response file: one found again among several is `unconfirmed`.
  if (input.functionName === 'ResetAbandonedAccount' && outcome.accepted && outcome.responseFile !== undefined) {
    await register(snapshot, input.csid, input.accountId);
  }
}

async function register(
  snapshot: SweepSnapshot | undefined,
  csid: string,
  accountId: string,
  fingerprint?: string,
): Promise<void> {
  if (!snapshot) return;
  const workflowId = activityInfo().workflowExecution?.workflowId;
  if (!workflowId) return;
  try {
    await snapshot.register(csid, accountId, workflowId, fingerprint);
  } catch (error) {
    log.warn('account not registered with the status sweep; its next listing finds the application', {
      error: error instanceof Error ? error.message : String(error),
    });
  }
}

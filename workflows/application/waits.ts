/**
 * The lifecycle's reads of the account: a read now, and the wait for the status sweep's wake-up with a
 * safety read, which ends early on a staff message or `pollNow`.
 */
import { condition } from '@temporalio/workflow';
import { NO_OBSERVATION, observationFingerprint } from '../../domain/observation.js';
import type { AccountObservation } from './messages.js';
import type { ApplicationRun } from './run.js';
import { service } from './service.js';
import { nextSafetyPollAt } from './settings.js';

/** Reads the account now (`pollNow`, a safety read, a wake-up older than the wait). */
async function readNow(run: ApplicationRun, account: { csid: string; accountId: string }): Promise<void> {
  run.pollRequested = false;
  run.nextPoll = undefined;
  const began = Date.now();
  const status = await service.readAccount.executeWithOptions({ summary: 'getAccountStatus + getPendingTasks' }, [
    account,
  ]);
  run.observe(status, began);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;
const optional = (value: unknown, type: 'string' | 'number' | 'boolean') =>
  value === undefined || typeof value === type;

/**
 * Whether a signal's input is a wake-up as the sweep sends it. Anyone with a Temporal client can send the
 * signal: anything else is ignored, never a failed workflow task.
 */
export function isAccountObservation(value: unknown): value is AccountObservation {
  if (!isObject(value) || !Number.isFinite(value.observedAt) || !isObject(value.account)) return false;
  if (!optional(value.accountId, 'string') || !(value.readUntil === undefined || Number.isFinite(value.readUntil))) {
    return false;
  }
  const { account } = value;
  if (typeof account.status !== 'string' || !optional(account.stateText, 'string')) return false;
  if (!optional(account.description, 'string') || !Array.isArray(account.tasks)) return false;
  return account.tasks.every(
    (task: unknown) =>
      isObject(task) &&
      typeof task.formNumber === 'string' &&
      typeof task.formName === 'string' &&
      typeof task.action === 'string' &&
      optional(task.state, 'string') &&
      optional(task.reason, 'string') &&
      optional(task.isRequiredForApproval, 'boolean') &&
      optional(task.isOnlineTask, 'boolean') &&
      optional(task.url, 'string') &&
      optional(task.urlExpiresAt, 'string'),
  );
}

/** Whether a wake-up is of the application's account (or of none it knows yet). */
export function forAccountOf(run: ApplicationRun, observation: AccountObservation): boolean {
  const current = run.snapshot.context.accountId;
  return observation.accountId === undefined || current === undefined || observation.accountId === current;
}

/**
 * Waits for the sweep's wake-up, a staff message or the safety read. A wake-up is taken
 * when the sweep's reads began after this wait began: an older read may predate the application's own
 * last step (a submission, say). An older wake-up is not sent again (the sweep's snapshot holds it as
 * sent), so one that may be newer than what the application knows makes it read its account itself:
 * - having read nothing yet, a wake-up read after its last update was decided (or, with none, after its
 *   create: the account exists only then) is taken as is; one read before it is not, and it reads;
 * - having read, a wake-up that differs from what it last took, from reads that ended after that read
 *   began, makes it read.
 */
export async function awaitChange(run: ApplicationRun, account: { csid: string; accountId: string }, seen: number) {
  const waitStartedAt = Date.now();
  const ours = () => (run.observation && forAccountOf(run, run.observation) ? run.observation : undefined);
  const unread = () => run.observed === NO_OBSERVATION;
  const sinceUpdate = (observation: AccountObservation) => observation.observedAt > (run.updatedAt ?? 0);
  const fresh = () => {
    const observation = ours();
    const taken = observation && (observation.observedAt > waitStartedAt || (unread() && sinceUpdate(observation)));
    return taken ? observation : undefined;
  };
  const stale = () => {
    const observation = ours();
    if (observation === undefined || observation.observedAt > waitStartedAt) return false;
    if (unread()) return !sinceUpdate(observation);
    return (
      (observation.readUntil ?? observation.observedAt) > (run.readFrom ?? 0) &&
      observationFingerprint(observation.account) !== run.observed
    );
  };
  if (!run.pollRequested && !stale()) {
    const nextPoll = nextSafetyPollAt(waitStartedAt, run.settings);
    const waitMs = run.scheduleRead(nextPoll);
    const summary = `waiting for the status sweep; own read at ${new Date(nextPoll).toISOString()}`;
    const woken = await condition(() => run.messages !== seen || fresh() !== undefined || stale(), waitMs, {
      summary,
    });
    if (woken && !run.pollRequested) {
      const taken = fresh();
      if (taken) {
        run.nextPoll = undefined;
        run.observe(taken.account, taken.observedAt);
        return;
      }
      // A staff message may have moved the lifecycle on: the loop re-reads the state.
      if (run.messages !== seen) return;
    }
  }
  await readNow(run, account);
}

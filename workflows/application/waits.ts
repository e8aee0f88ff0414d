/**
 * The lifecycle's reads of the account: a read now, and (`sweep` mode) the wait for the status sweep's
 * wake-up with a safety poll, which ends early on a staff message or `pollNow`.
 */
import { condition } from '@temporalio/workflow';
import type { ApplicationRun } from './run.js';
import { service } from './service.js';
import { nextSafetyPollAt } from './settings.js';

/** Reads the account now (a poll slot, `pollNow`, a safety poll). */
export async function readNow(run: ApplicationRun, account: { csid: string; accountId: string }): Promise<void> {
  run.pollRequested = false;
  run.nextPoll = undefined;
  const status = await service.readAccount.executeWithOptions({ summary: 'getAccountStatus + getPendingTasks' }, [
    account,
  ]);
  run.observe(status);
}

/**
 * `sweep` mode: waits for the sweep's wake-up, a staff message or the safety poll. A wake-up is taken
 * only when the sweep read the account after this wait began: an older read may predate this
 * application's own last step (a submission, say), and the sweep wakes it again at its next slot.
 */
export async function awaitChange(run: ApplicationRun, account: { csid: string; accountId: string }, seen: number) {
  const waitStartedAt = Date.now();
  const fresh = () => (run.observation && run.observation.observedAt > waitStartedAt ? run.observation : undefined);
  if (!run.pollRequested) {
    const nextPoll = nextSafetyPollAt(waitStartedAt, run.settings);
    const waitMs = run.scheduleRead(nextPoll);
    const summary = `waiting for the status sweep; own read at ${new Date(nextPoll).toISOString()}`;
    const woken = await condition(() => run.messages !== seen || fresh() !== undefined, waitMs, { summary });
    if (woken && !run.pollRequested) {
      // A staff message may have moved the lifecycle on: the loop re-reads the state.
      const taken = fresh();
      if (taken) {
        run.nextPoll = undefined;
        run.observe(taken.account);
      }
      return;
    }
  }
  await readNow(run, account);
}

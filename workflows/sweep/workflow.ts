/**
 * `firmStatusSweep`: the firm's status sweep, one workflow per CSID. At each slot boundary it runs one
 * activity that reads every pending account of the firm with a constant number of brokerage calls and
 * wakes only the applications whose account changed (activities/sweep.ts). It holds no account data:
 * what the sweep last saw of each account is in the engine's database, and what each application last
 * read is the application's own (search attribute `EcaObserved`, listed again when the snapshot is lost or
 * old), so a restarted worker or sweep misses nothing. A slot that fails is reported in
 * the current details and the next slot runs as usual; applications poll on their own after their
 * safety interval whatever happens here.
 */
import {
  ActivityFailure,
  continueAsNew,
  log,
  proxyActivities,
  setCurrentDetails,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { SweepActivities } from './activities.js';
import { nextSlot } from '../application/settings.js';
import { DEFAULT_SWEEP_INTERVAL, sweepStateQuery } from './messages.js';
import type { SweepInput, SweepInterval, SweepReport, SweepView } from './messages.js';

const sweep = proxyActivities<SweepActivities>({
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute', maximumAttempts: 3 },
});

/** A run continues as new after this many slots (about 4 events each). */
const SLOTS_PER_RUN = 250;

export async function firmStatusSweep(input: SweepInput): Promise<void> {
  const interval: SweepInterval = input.interval ?? DEFAULT_SWEEP_INTERVAL;
  let slots = input.carried?.slots ?? 0;
  let last: SweepReport | undefined = input.carried?.last;
  let lastError: string | undefined;
  let nextSlotAt: number | undefined;
  const view = (): SweepView => ({ csid: input.csid, interval: String(interval), slots, nextSlotAt, last, lastError });
  setHandler(sweepStateQuery, view);

  for (let run = 0; ; run++) {
    nextSlotAt = nextSlot(Date.now(), interval);
    setCurrentDetails(renderSweepDetails(view()));
    await sleep(nextSlotAt - Date.now(), { summary: `slot at ${new Date(nextSlotAt).toISOString()}` });
    try {
      last = await sweep.sweepFirm.executeWithOptions({ summary: `sweep ${input.csid}` }, [{ csid: input.csid }]);
      lastError = undefined;
    } catch (error) {
      // An activity failure's own message is generic; its cause says what went wrong.
      const cause = error instanceof ActivityFailure ? (error.cause ?? error) : error;
      lastError = cause instanceof Error ? cause.message : String(cause);
      log.warn('status sweep failed; the next slot runs as usual', { csid: input.csid, error: lastError });
    }
    slots++;
    if (run + 1 >= SLOTS_PER_RUN || workflowInfo().continueAsNewSuggested) {
      await continueAsNew<typeof firmStatusSweep>({ ...input, carried: { slots, last } });
    }
  }
}

function renderSweepDetails(view: SweepView): string {
  const lines = [`**Status sweep** of ${view.csid}: every ${view.interval}, ${view.slots} slots so far.`];
  if (view.nextSlotAt !== undefined) lines.push(`Next slot: ${new Date(view.nextSlotAt).toISOString()}.`);
  const last = view.last;
  if (last) {
    lines.push(
      `Last slot (${new Date(last.observedAt).toISOString()}): ${last.pending} pending accounts, ${last.waiting} waiting applications, ` +
        `${last.left} left N/P, ${last.changed} changed, ${last.woken} woken, ${last.errors} errors; ` +
        `${last.brokerageCalls} brokerage calls in ${last.durationMs} ms.`,
    );
  }
  if (last?.snapshotError) lines.push(`Snapshot unavailable in the last slot (listed instead): ${last.snapshotError}`);
  if (view.lastError) lines.push(`Last slot failed: ${view.lastError}`);
  return lines.join('\n\n');
}

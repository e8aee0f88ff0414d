/**
 * Staff messages as signals, for staff who "signal abandon" from the `temporal` CLI or the Temporal
 * UI's signal form. A signal cannot answer, so each one is recorded where staff look: the current
 * details and the `state` query (`staffNotices`), a workflow log line and the `eca_staff_messages`
 * metric. A signal the lifecycle does not take in the current state is refused there with the same
 * reason an update would get; a signal of a name the workflow does not know is recorded as unknown
 * instead of being dropped. Updates stay the recommended path: they answer.
 */
import { log, metricMeter, setDefaultSignalHandler, setHandler } from '@temporalio/workflow';
import type { LifecycleEvent } from '../lifecycle/index.js';
import { abandonSignal, pollNowSignal, resetSignal, retrySignal } from './messages.js';
import type { AbandonRequest, EmptyRequest, StaffNotice } from './messages.js';
import { staffInputProblem } from './staff-input.js';

/** Notices kept for the current details (the newest last). */
const NOTICES_KEPT = 10;
/** Longest signal name kept as sent. */
const MAX_NAME = 64;

export interface StaffSignalsContext {
  /** Why the lifecycle does not take the event now, or undefined when it does. */
  refusal(event: LifecycleEvent): string | undefined;
  /** Applies an accepted staff event (as the update handlers do). */
  handle(event: LifecycleEvent): void;
  /** A poll now (the `pollNow` signal). */
  pollNow(): void;
  /** Shows the notices (current details). */
  publish(): void;
}

/** Installs the signal handlers; answers the notices list the workflow's view reads. */
export function installStaffSignals(context: StaffSignalsContext): StaffNotice[] {
  const notices: StaffNotice[] = [];
  const counter = metricMeter.createCounter(
    'eca_staff_messages',
    'message',
    'Staff messages received by applications, by name, channel and outcome',
  );

  function record(signal: string, outcome: StaffNotice['outcome'], detail?: string): void {
    // A name from any client: kept short in the notice and the log, and out of the metric's labels.
    const name = signal.length > MAX_NAME ? `${signal.slice(0, MAX_NAME)}…` : signal;
    notices.push({ at: Date.now(), name, outcome, ...(detail ? { detail } : {}) });
    if (notices.length > NOTICES_KEPT) notices.splice(0, notices.length - NOTICES_KEPT);
    counter.add(1, { name: outcome === 'unknown' ? 'unknown' : name, via: 'signal', outcome });
    if (outcome === 'accepted') log.info('staff signal accepted', { signal: name });
    else log.warn(`staff signal ${outcome}`, { signal: name, detail });
    context.publish();
  }

  function onStaffSignal(name: string, event: LifecycleEvent): void {
    const refusal = context.refusal(event);
    if (refusal) {
      record(name, 'refused', refusal);
      return;
    }
    context.handle(event);
    record(name, 'accepted');
  }

  /** The input first: refused, and shown, when absent or of another shape (staff-input.ts). */
  function checked(name: string, request: unknown, allowed: readonly string[] = []): boolean {
    const problem = staffInputProblem(name, request, allowed);
    if (problem) record(name, 'refused', problem);
    return problem === undefined;
  }

  setHandler(abandonSignal, (request?: AbandonRequest) => {
    if (checked('abandon', request, ['reason'])) onStaffSignal('abandon', { type: 'ABANDON', reason: request?.reason });
  });
  setHandler(resetSignal, (request?: EmptyRequest) => {
    if (checked('reset', request)) onStaffSignal('reset', { type: 'RESET' });
  });
  setHandler(retrySignal, (request?: EmptyRequest) => {
    if (checked('retry', request)) onStaffSignal('retry', { type: 'RETRY' });
  });
  setHandler(pollNowSignal, (request?: EmptyRequest) => {
    if (!checked('pollNow', request)) return;
    context.pollNow();
    record('pollNow', 'accepted');
  });
  setDefaultSignalHandler((name: string) => {
    record(
      name,
      'unknown',
      'no such signal: abandon, reset, retry and pollNow are signals; resubmit and provideDocuments are updates',
    );
  });
  return notices;
}

/**
 * Deadlines of the waiting states (domain/deadlines.ts): while the application waits in one of them,
 * durable timers bring its reminders and its deadline, each an event (`reminder`, `overdue`), and at
 * the deadline the firm's escalation: none, an `escalated` event for staff, or abandonment with the
 * deadline as its reason.
 *
 * The firm's policy is read (an activity) when the application enters a waiting state, and again at
 * each mark and at least daily while it waits, so that a change applies to applications already
 * waiting, without restarting them. A state entered again starts its deadline again.
 *
 * Not a local activity: a local activity's result can reach the workflow in a later task than the one
 * whose completion recorded its marker (seen when another activity completed while it ran), and a
 * replay then resolves it a task earlier and fails as nondeterministic. A regular activity's result is
 * an event of its own, where a replay finds it.
 */
import { condition, log, proxyActivities } from '@temporalio/workflow';
import type { ApplicationState } from '../../domain/application-states.js';
import { hasTag } from '../../domain/application-states.js';
import { deadlineMarks, escalationReason } from '../../domain/deadlines.js';
import type { DeadlineMark, DeadlineState, StateDeadline } from '../../domain/deadlines.js';
import { lifecycleState } from '../lifecycle/index.js';
import type { DeadlineActivities } from './activities.js';
import type { DeadlineView } from './messages.js';
import type { ApplicationRun } from './run.js';

const { readDeadlinePolicy } = proxyActivities<DeadlineActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** The longest a waiting application goes without reading its firm's policy again. */
const POLICY_REFRESH_MS = 24 * 60 * 60 * 1000;

/** The state the application waits in and since when: a new entry is a new deadline. */
function entryOf(run: ApplicationRun): { state: ApplicationState; at: number } {
  const last = run.transitions.at(-1);
  return { state: lifecycleState(run.snapshot) as ApplicationState, at: last?.at ?? Date.now() };
}

const isDeadlineState = (state: ApplicationState): state is DeadlineState => hasTag(state, 'deadline');

/**
 * Watches the application's deadlines until it is done; runs beside the lifecycle loop. `markAt` is
 * the time of the last mark already told for the current entry (carried through continue-as-new).
 */
export async function watchDeadlines(run: ApplicationRun): Promise<void> {
  for (;;) {
    if (run.snapshot.status === 'done') return;
    const entry = entryOf(run);
    const moved = () => {
      const now = entryOf(run);
      return run.snapshot.status === 'done' || now.state !== entry.state || now.at !== entry.at;
    };
    if (run.deadlineEntry !== entry.at) {
      run.deadlineEntry = entry.at;
      run.deadlineMarkAt = undefined;
    }
    if (!isDeadlineState(entry.state)) {
      setView(run, undefined);
      await condition(moved);
      continue;
    }
    const policy = (await readDeadlinePolicy({ csid: run.csid }))[entry.state];
    if (moved()) continue;
    if (!policy) {
      setView(run, undefined);
      await condition(moved, POLICY_REFRESH_MS);
      continue;
    }
    const marks = deadlineMarks(policy, entry.at);
    const due = marks.at(-1)!.at;
    // Marks passed since the last one told: the newest alone is told (a shortened deadline tells `overdue` once).
    const passed = marks.filter((mark) => mark.at <= Date.now() && mark.at > (run.deadlineMarkAt ?? -Infinity));
    const latest = passed.at(-1);
    if (latest) {
      run.deadlineMarkAt = latest.at;
      tell(run, entry.state, policy, latest, due);
    }
    const next = marks.find((mark) => mark.at > Date.now());
    setView(run, {
      state: entry.state,
      due,
      ...(next?.kind === 'reminder' && { nextReminderAt: next.at }),
      overdue: due <= Date.now(),
      escalation: policy.escalation,
    });
    if (moved()) continue;
    if (next) await condition(moved, Math.min(next.at - Date.now(), POLICY_REFRESH_MS));
    else await condition(moved);
  }
}

function setView(run: ApplicationRun, view: DeadlineView | undefined): void {
  if (run.deadline === view || JSON.stringify(run.deadline) === JSON.stringify(view)) return;
  run.deadline = view;
  run.publish();
}

/** The event of a mark, and at the deadline the firm's escalation. */
function tell(run: ApplicationRun, state: DeadlineState, policy: StateDeadline, mark: DeadlineMark, due: number): void {
  const deadline = {
    state,
    due: new Date(due).toISOString(),
    ...(mark.reminder !== undefined && { reminder: mark.reminder }),
    ...(mark.kind === 'overdue' && { escalation: policy.escalation }),
  };
  run.emit({
    type: mark.kind === 'reminder' ? 'application.reminder' : 'application.overdue',
    from: state,
    to: state,
    data: { deadline },
  });
  if (mark.kind !== 'overdue' || policy.escalation === 'none') return;
  log.warn('deadline passed: escalated', { state, escalation: policy.escalation });
  run.emit({ type: 'application.escalated', from: state, to: state, data: { deadline } });
  if (policy.escalation === 'abandon') {
    const event = { type: 'ABANDON', reason: escalationReason(state, policy) } as const;
    // Abandon as staff would; a state that takes no abandon (none of the deadline states) keeps waiting.
    if (run.refusal(event) === undefined) run.handleEscalation(event);
  }
}

/**
 * The application's lifecycle events (domain/events.ts): which events a step makes, and the outbox
 * that writes them to the event log through an activity, one batch at a time and in sequence, so that
 * the log holds each application's events in the order they happened.
 *
 * An activity, not a local one: its input is in history before it runs, so whatever happens to the
 * workflow task that made the events (a worker killed before it completed, a signal that arrives
 * meanwhile and changes what the task's next attempt does), the events written are the ones history
 * holds, and the same id never names two events. While the database is away the write is retried by
 * the server without adding to history. The application neither continues as new nor ends with an
 * event unwritten.
 */
import { condition, proxyActivities, workflowInfo } from '@temporalio/workflow';
import { hasTag } from '../../domain/application-states.js';
import type { ApplicationState } from '../../domain/application-states.js';
import { stateEventType } from '../../domain/events.js';
import type { EventData, EventDraft, EventType, NewEvent } from '../../domain/events.js';
import type { LifecycleContext, LifecycleEvent } from '../lifecycle/index.js';
import type { EventActivities } from './activities.js';

/** The events' writes; `finishApplication` (steps.ts) is the last one, and starts the retention too. */
export const { recordEvents, finishApplication } = proxyActivities<EventActivities>({
  startToCloseTimeout: '30 seconds',
  // The database (or, for the retention's start, the Temporal service) may be away a while: never given up.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Events written per activity. */
const BATCH = 100;

export type { EventDraft };

/** The lifecycle events whose name says more than the state they lead to. */
const NAMED_BY_EVENT: Partial<Record<LifecycleEvent['type'], EventType>> = {
  VALIDATED: 'application.validated',
  CREATED: 'application.created',
  DOCUMENTS_SUBMITTED: 'application.documents_submitted',
  RESET_CONFIRMED: 'application.reset',
};

/** The name of a staff message, as the `staff_action` event gives it. */
export const STAFF_ACTIONS: Partial<Record<LifecycleEvent['type'], string>> = {
  RESUBMIT: 'resubmit',
  PROVIDE_DOCUMENTS: 'provideDocuments',
  ABANDON: 'abandon',
  RESET: 'reset',
  RETRY: 'retry',
};

/** What the firm learns of the state `to`: only what the brokerage said or the firm already has. */
function stateData(to: ApplicationState, context: LifecycleContext, event: LifecycleEvent): EventData {
  // What the client is asked for: the brokerage's tasks.
  if (hasTag(to, 'needsClient')) return { tasks: context.tasks.map((task) => task.formNumber) };
  switch (to) {
    case 'needsCorrection':
      return { errors: [...context.corrections] };
    case 'blocked':
      return context.blocked ? { reason: context.blocked.reason } : {};
    case 'unconfirmed':
      return context.unconfirmed ? { reason: context.unconfirmed.reason } : {};
    case 'open':
    case 'rejected':
    case 'closed':
    case 'awaitingApproval':
      return context.status ? { status: context.status } : {};
    default:
      return 'error' in event && typeof event.error === 'string' ? { reason: event.error } : {};
  }
}

/**
 * The events one step makes: documents the brokerage newly rejected (a status read), then the change
 * of state, if any. (A staff message is told before its step: ApplicationRun.handleStaff.)
 */
export function eventsOfStep(
  event: LifecycleEvent,
  before: { state: ApplicationState; context: LifecycleContext },
  after: { state: ApplicationState; context: LifecycleContext },
): EventDraft[] {
  const drafts: EventDraft[] = [];
  if (event.type === 'STATUS') {
    const rejectedBefore = new Set(
      before.context.tasks
        .filter((task) => task.state === 'Rejected')
        .map((task) => `${task.formNumber}\n${task.reason}`),
    );
    for (const task of after.context.tasks) {
      if (task.state !== 'Rejected' || rejectedBefore.has(`${task.formNumber}\n${task.reason}`)) continue;
      drafts.push({
        type: 'application.document_rejected',
        from: before.state,
        to: after.state,
        data: { formNumber: task.formNumber, ...(task.reason !== undefined && { reason: task.reason }) },
      });
    }
  }
  if (after.state !== before.state) {
    drafts.push({
      type: NAMED_BY_EVENT[event.type] ?? stateEventType(after.state),
      from: before.state,
      to: after.state,
      data: stateData(after.state, after.context, event),
    });
  }
  return drafts;
}

/**
 * Resolves once the rest of the activation has run (the loop's continuation up to its next command): a
 * condition is first evaluated when made, false here, and again only after the activation's microtasks.
 */
function settled(): Promise<void> {
  let evaluated = false;
  return condition(() => {
    const again = evaluated;
    evaluated = true;
    return again;
  });
}

/**
 * Numbers events, keeps them until written, writes them in order.
 *
 * Events ride with steps: an event is not written by itself when it is made. The loop hands what is
 * unwritten to the activity it schedules next (`ride`), which writes it before it calls the brokerage;
 * what no step takes in the activation that made it (a wait follows, or a message arrived while a step
 * runs) is written alone by `writeAlone` (workflow.ts runs it beside the loop). Every write carries the
 * events from the oldest unwritten one, so two under way at once (a step's and one alone) overlap, and the
 * log takes them in turn (runtime/events.ts): each event is written once, in order.
 */
export class EventOutbox {
  private readonly pending: NewEvent[] = [];
  /** The last event number each write under way carries. */
  private readonly carried: number[] = [];

  constructor(
    /** The number of the last event made (carried through continue-as-new). */
    private seq: number,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  /** Whether every event made is written. */
  get written(): boolean {
    return this.pending.length === 0;
  }

  /** Whether an event waits that no write under way carries. */
  get unclaimed(): boolean {
    const through = Math.max(0, ...this.carried);
    return this.pending.some((event) => event.seq > through);
  }

  add(draft: EventDraft, who: { csid: string; externalId: string; accountId?: string }): void {
    this.pending.push({
      application: this.application,
      seq: ++this.seq,
      ...draft,
      csid: who.csid,
      externalId: who.externalId,
      ...(who.accountId !== undefined && { accountId: who.accountId }),
      at: Date.now(),
    });
  }

  /** The application's key in the event log: its workflow id and first run id. */
  get application(): string {
    const info = workflowInfo();
    return `${info.workflowId}/${info.firstExecutionRunId}`;
  }

  /** An event a step wrote itself (a create's `created`), taken as the next one, in the log already. */
  adopt(event: NewEvent): void {
    this.seq = event.seq;
  }

  /**
   * The events the next step carries (undefined when none wait). Call `rode` when the step ends, whatever
   * its outcome.
   */
  ride(): NewEvent[] | undefined {
    if (this.pending.length === 0) return undefined;
    const events = this.pending.slice(0, BATCH);
    this.carried.push(events.at(-1)!.seq);
    return events;
  }

  /** The step that carried `events` ended; `written` when it completed (it wrote them first). */
  rode(events: NewEvent[] | undefined, written: boolean): void {
    if (!events) return;
    const through = events.at(-1)!.seq;
    this.release(through);
    if (written) this.settle(through);
  }

  /** Writes what waits unclaimed, alone, until nothing does (workflow.ts runs it beside the loop). */
  async writeAlone(): Promise<never> {
    for (;;) {
      await condition(() => this.unclaimed);
      // The step that follows may still take them: the activation's other work runs first.
      await settled();
      if (!this.unclaimed) continue;
      const events = this.pending.slice(0, BATCH);
      const through = events.at(-1)!.seq;
      this.carried.push(through);
      try {
        await recordEvents({ events });
        this.settle(through);
      } finally {
        this.release(through);
      }
    }
  }

  /** A write that carried events through `through` ended. */
  private release(through: number): void {
    const index = this.carried.indexOf(through);
    if (index >= 0) this.carried.splice(index, 1);
  }

  private settle(through: number): void {
    while (this.pending.length > 0 && this.pending[0]!.seq <= through) this.pending.shift();
  }
}

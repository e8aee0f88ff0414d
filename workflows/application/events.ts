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
import { log, proxyActivities, workflowInfo } from '@temporalio/workflow';
import type { ApplicationState } from '../../domain/application-states.js';
import { stateEventType } from '../../domain/events.js';
import type { EventData, EventType, NewEvent } from '../../domain/events.js';
import type { LifecycleContext, LifecycleEvent } from '../lifecycle/index.js';
import type { EventActivities } from './activities.js';

const { recordEvents } = proxyActivities<EventActivities>({
  startToCloseTimeout: '30 seconds',
  // The database may be away for a while: the write is tried again, never given up.
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Events written per activity. */
const BATCH = 100;

/** An event before it is numbered and addressed. */
export interface EventDraft {
  type: EventType;
  from: ApplicationState;
  to: ApplicationState;
  data: EventData;
}

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
  switch (to) {
    case 'needsCorrection':
      return { errors: [...context.corrections] };
    case 'needsDocuments':
    case 'awaitingClient':
      return { tasks: context.tasks.map((task) => task.formNumber) };
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

/** Numbers events, keeps them until written, writes them in order. */
export class EventOutbox {
  private readonly pending: NewEvent[] = [];
  private writing: Promise<void> | undefined;

  constructor(
    /** The number of the last event made (carried through continue-as-new). */
    private seq: number,
  ) {}

  get lastSeq(): number {
    return this.seq;
  }

  /** Whether every event made is written. */
  get written(): boolean {
    return this.pending.length === 0 && this.writing === undefined;
  }

  add(draft: EventDraft, who: { csid: string; externalId: string; accountId?: string }): void {
    const info = workflowInfo();
    this.pending.push({
      application: `${info.workflowId}/${info.firstExecutionRunId}`,
      seq: ++this.seq,
      ...draft,
      csid: who.csid,
      externalId: who.externalId,
      ...(who.accountId !== undefined && { accountId: who.accountId }),
      at: Date.now(),
    });
    this.write();
  }

  /** Starts writing what is pending, unless a write is under way (it goes on with the rest). */
  private write(): void {
    if (this.writing || this.pending.length === 0) return;
    this.writing = this.writeAll().then(
      () => {
        this.writing = undefined;
        // Events made while the last write's answer was on its way.
        this.write();
      },
      (error: unknown) => {
        // Only a cancelled workflow gets here (the write is retried without end): the events stay pending.
        this.writing = undefined;
        log.warn('events not written', { error: (error as Error).message });
      },
    );
  }

  private async writeAll(): Promise<void> {
    while (this.pending.length > 0) {
      const batch = this.pending.slice(0, BATCH);
      await recordEvents({ events: batch });
      this.pending.splice(0, batch.length);
    }
  }
}

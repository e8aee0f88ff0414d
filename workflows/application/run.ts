/**
 * The state of one run of `accountApplication` and what every step does with it: feed an event to the
 * lifecycle, publish search attributes and current details, answer the `state` query. The steps
 * (steps.ts, updates.ts, waits.ts) and the message handlers (handlers.ts) work through it.
 */
import type { ApplicationState } from '../../domain/application-states.js';
import {
  ApplicationFailure,
  log,
  metricMeter,
  setCurrentDetails,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import {
  isRejectedFile,
  lifecycleState,
  persistLifecycle,
  restoreLifecycle,
  startLifecycle,
  step,
} from '../lifecycle/index.js';
import type { LifecycleContext, LifecycleEvent, LifecycleSnapshot } from '../lifecycle/index.js';
import { durationMs } from '../../domain/durations.js';
import { NO_OBSERVATION, observationFingerprint } from '../../domain/observation.js';
import type { AccountSnapshot, TaskView } from '../../domain/account.js';
import type { FormDocument } from '../../domain/documents.js';
import {
  EcaAccountId,
  EcaAccountStatus,
  EcaCsid,
  EcaExternalId,
  EcaLifecycleState,
  EcaObserved,
} from '../../domain/search-attributes.js';
import { renderDetails } from './details.js';
import { EventOutbox, eventsOfStep, STAFF_ACTIONS } from './events.js';
import type { EventDraft } from './events.js';
import type { NewEvent } from '../../domain/events.js';
import { DOCUMENT_REJECTED } from './messages.js';
import type {
  AccountObservation,
  ApplicationInput,
  ApplicationResult,
  ApplicationStateView,
  CarriedState,
  DeadlineView,
  RejectedFile,
  StaffNotice,
  TransitionRecord,
} from './messages.js';
import { describeMessage } from './staff-input.js';
import type { LifecycleSettings } from './settings.js';

const MAX_TRANSITIONS_KEPT = 200;

export class ApplicationRun {
  readonly csid: string;
  readonly externalId: string;
  snapshot: LifecycleSnapshot;
  readonly transitions: TransitionRecord[];
  readonly runs: number;
  lastPollAt: number | undefined;
  nextPoll: number | undefined;
  /** Bumped by every staff message, so that waits end and the loop re-reads the state. */
  messages = 0;
  pollRequested: boolean;
  /** Staff signals as taken (staff-signals.ts), shown in the current details. */
  staffNotices: StaffNotice[] = [];
  /** Fingerprint of the last account read, published as EcaObserved for the sweep to compare. */
  observed: string;
  /** The newest wake-up of the status sweep. */
  observation: AccountObservation | undefined;
  /** When the read the application last took began: its own read's start, or a taken wake-up's `observedAt`. */
  readFrom: number | undefined;
  /** When the last update the application sent was decided: a read begun before may not show it. */
  updatedAt: number | undefined;
  /** Where the application stands with the deadline of its waiting state (deadlines.ts). */
  deadline: DeadlineView | undefined;
  /** The entry into a waiting state whose deadline marks are being told, and the last mark told (carried). */
  deadlineEntry: number | undefined;
  deadlineMarkAt: number | undefined;
  /** The lifecycle events made and not yet written to the event log (events.ts). */
  readonly outbox: EventOutbox;
  /** The search attributes last written, so that a poll that changes nothing writes nothing. */
  private published: string | undefined;
  /** `eca_lifecycle_transitions` (see workers/metrics.ts); the SDK records nothing while replaying. */
  private readonly transitionsMetric: ReturnType<typeof metricMeter.createCounter>;

  constructor(
    readonly input: ApplicationInput,
    readonly settings: LifecycleSettings,
  ) {
    const { csid, externalId } = input;
    this.csid = csid;
    this.externalId = externalId;
    this.snapshot = input.carried
      ? restoreLifecycle(input.carried.lifecycle)
      : startLifecycle({ csid, externalId, application: input.application, documents: input.documents });
    this.transitions = input.carried?.transitions ?? [
      { state: lifecycleState(this.snapshot), event: 'start', at: Date.now() },
    ];
    this.runs = input.carried?.runs ?? 0;
    this.lastPollAt = input.carried?.lastPollAt;
    this.pollRequested = input.carried?.pollRequested ?? false;
    this.observed = input.carried?.observed ?? NO_OBSERVATION;
    this.readFrom = input.carried?.readFrom;
    this.observation = input.carried?.observation;
    this.updatedAt = input.carried?.updatedAt;
    this.outbox = new EventOutbox(input.carried?.eventSeq ?? 0);
    this.deadlineEntry = input.carried?.deadline?.entry;
    this.deadlineMarkAt = input.carried?.deadline?.markAt;
    if (!input.carried) {
      const state = lifecycleState(this.snapshot) as ApplicationState;
      this.emit({ type: 'application.validating', from: state, to: state, data: {} });
    }
    this.transitionsMetric = metricMeter.createCounter(
      'eca_lifecycle_transitions',
      'transition',
      'Lifecycle state changes of account applications',
    );
  }

  /** The account this application drives (empty before create). */
  account(): { csid: string; accountId: string } {
    return { csid: this.csid, accountId: this.snapshot.context.accountId ?? '' };
  }

  /**
   * Feeds the lifecycle an event and makes the events of the step. `logged`: events a step already wrote
   * of its own outcome (a create's `created`), taken as made where they are the ones the step makes.
   */
  apply(event: LifecycleEvent, logged?: readonly NewEvent[]): void {
    const previous = this.snapshot;
    const before = lifecycleState(previous);
    this.snapshot = step(previous, event);
    const after = lifecycleState(this.snapshot);
    const drafts = eventsOfStep(
      event,
      { state: before as ApplicationState, context: previous.context },
      { state: after as ApplicationState, context: this.snapshot.context },
    );
    for (const draft of drafts) {
      const kept = logged?.find((written) => written.seq === this.outbox.lastSeq + 1);
      if (kept && sameEvent(kept, draft, this.snapshot.context.accountId)) this.outbox.adopt(kept);
      else {
        if (kept)
          log.error('an event a step wrote is not the one its outcome makes', { seq: kept.seq, type: kept.type });
        this.emit(draft);
      }
    }
    if (after !== before) {
      const transitions = this.transitions;
      transitions.push({ state: after, event: event.type, at: Date.now() });
      if (transitions.length > MAX_TRANSITIONS_KEPT) transitions.splice(0, transitions.length - MAX_TRANSITIONS_KEPT);
      log.info('lifecycle transition', { from: before, to: after, event: event.type });
      this.transitionsMetric.add(1, { from: before, to: after, event: event.type });
    }
    this.publish();
  }

  /** Makes an event of this application (written to the event log in order, events.ts). */
  emit(draft: EventDraft): void {
    this.outbox.add(draft, {
      csid: this.csid,
      externalId: this.externalId,
      accountId: this.snapshot.context.accountId,
    });
  }

  publish(): void {
    const { context } = this.snapshot;
    const attributes = [
      { key: EcaLifecycleState, value: lifecycleState(this.snapshot) },
      { key: EcaCsid, value: this.csid },
      { key: EcaExternalId, value: this.externalId },
      ...(context.accountId ? [{ key: EcaAccountId, value: context.accountId }] : []),
      ...(context.status ? [{ key: EcaAccountStatus, value: context.status }] : []),
      { key: EcaObserved, value: this.observed },
    ];
    const signature = JSON.stringify(attributes.map(({ key, value }) => [key.name, value]));
    if (signature !== this.published) upsertSearchAttributes(attributes);
    this.published = signature;
    setCurrentDetails(renderDetails(this.view(), workflowInfo().workflowId));
  }

  view(): ApplicationStateView {
    const { context } = this.snapshot;
    const state = lifecycleState(this.snapshot);
    return {
      csid: this.csid,
      externalId: this.externalId,
      // A snapshot at rest is never on `pending` or `deciding` (transient): effects.ts checks the rest.
      lifecycleState: state as ApplicationState,
      done: this.snapshot.status === 'done',
      application: {
        sha1: context.application.sha1,
        length: context.application.length,
        // A query's answer, not a command: histories recorded without it replay the same.
        ...(context.application.canonicalSha256 && { canonicalSha256: context.application.canonicalSha256 }),
      },
      accountId: context.accountId,
      userName: context.userName,
      ...(context.credentials && { credentials: context.credentials }),
      status: context.status,
      stateText: context.stateText,
      pendingTasks: context.tasks,
      // A query's answer, not a command: a held file the brokerage rejected is not one to send.
      waitingDocuments: Object.values(context.waitingDocuments)
        .filter((document) => this.rejectedTaskOf(document) === undefined)
        .map((document) => document.formNumber),
      corrections: context.corrections,
      lastRefusal: context.lastRefusal,
      ...(context.abandonReason && this.snapshot.hasTag('abandonment') ? { abandonReason: context.abandonReason } : {}),
      unconfirmed: context.unconfirmed,
      ...inDoubt(context),
      ...(context.blocked && { blocked: context.blocked }),
      lastPollAt: this.lastPollAt,
      nextPollAt: this.nextPoll,
      transitions: [...this.transitions],
      runs: this.runs,
      ...(this.staffNotices.length > 0 ? { staffNotices: [...this.staffNotices] } : {}),
      ...(this.deadline && { deadline: { ...this.deadline } }),
    };
  }

  /** Why the lifecycle does not take a staff message now, or undefined when it does. */
  refusal(event: LifecycleEvent): string | undefined {
    if (this.snapshot.can(event)) return undefined;
    return `${describeMessage(event.type)} is not allowed while the application is ${lifecycleState(this.snapshot)}`;
  }

  /** Staff messages are refused, with a typed failure, where the lifecycle does not take them. */
  allowed(event: LifecycleEvent): void {
    const message = this.refusal(event);
    if (message) throw ApplicationFailure.create({ type: 'NotAllowedInState', message, nonRetryable: true });
  }

  /**
   * `provideDocuments` is refused a PDF that is the very file the brokerage rejected for its form: sent
   * again, it would be rejected again, and held, it would stand for a document the application still needs.
   * The failure (`DocumentRejected`) names the forms; their names and the brokerage's reasons are its details.
   */
  refuseRejectedFiles(documents: readonly FormDocument[]): void {
    const rejected: RejectedFile[] = documents.flatMap((document) => {
      const task = this.rejectedTaskOf(document);
      return task ? [{ formNumber: document.formNumber, formName: task.formName, reason: task.reason }] : [];
    });
    if (rejected.length === 0) return;
    const forms = [...new Set(rejected.map((file) => file.formNumber))];
    const what = forms.length === 1 ? `the PDF for form ${forms[0]} is` : `the PDFs for forms ${forms.join(', ')} are`;
    throw ApplicationFailure.create({
      type: DOCUMENT_REJECTED,
      message: `${what} the very file the brokerage rejected: provide a different one`,
      details: [rejected],
      nonRetryable: true,
    });
  }

  /**
   * The rejected task whose last sent file `document` is (tasks.ts `isRejectedFile`), if any. Only tasks read
   * after the last update was decided can reject what it sent: until the next read, a file just sent (a
   * caller's retry sends it again) meets the rejection of the one before it.
   */
  private rejectedTaskOf(document: FormDocument): TaskView | undefined {
    const readSinceUpdate =
      this.updatedAt === undefined || (this.readFrom !== undefined && this.readFrom > this.updatedAt);
    if (!readSinceUpdate) return undefined;
    const { tasks, submittedDocuments } = this.snapshot.context;
    return tasks.find((task) => isRejectedFile(task, document, submittedDocuments));
  }

  handleStaff(event: LifecycleEvent): ApplicationStateView {
    this.messages++;
    const action = STAFF_ACTIONS[event.type];
    const state = lifecycleState(this.snapshot) as ApplicationState;
    if (action) this.emit({ type: 'application.staff_action', from: state, to: state, data: { action } });
    this.apply(event);
    return this.view();
  }

  /** A deadline's escalation (deadlines.ts): taken as a staff message is, told as `escalated` instead. */
  handleEscalation(event: LifecycleEvent): void {
    this.messages++;
    this.apply(event);
  }

  /** When an abandoned application's retention ends: `abandonedRetention` after it entered its state. */
  retentionEnds(settings: LifecycleSettings): number {
    const enteredAt = this.transitions.at(-1)?.at ?? Date.now();
    return enteredAt + durationMs(settings.abandonedRetention);
  }

  result(outcome: ApplicationResult['outcome']): ApplicationResult {
    const { accountId, status } = this.snapshot.context;
    return { outcome, accountId, status, transitions: this.transitions };
  }

  /** What the next run continues with (continue-as-new). */
  carried(): CarriedState {
    return {
      lifecycle: persistLifecycle(this.snapshot),
      transitions: this.transitions,
      lastPollAt: this.lastPollAt,
      runs: this.runs + 1,
      observed: this.observed,
      eventSeq: this.outbox.lastSeq,
      ...(this.readFrom !== undefined && { readFrom: this.readFrom }),
      ...(this.observation && { observation: this.observation }),
      ...(this.updatedAt !== undefined && { updatedAt: this.updatedAt }),
      ...(this.deadlineEntry !== undefined && {
        deadline: {
          entry: this.deadlineEntry,
          ...(this.deadlineMarkAt !== undefined && { markAt: this.deadlineMarkAt }),
        },
      }),
      ...(this.pollRequested && { pollRequested: this.pollRequested }),
    };
  }

  /** Publishes `at` as the next own read (`state` query, current details); answers how long until then. */
  scheduleRead(at: number): number {
    this.nextPoll = at;
    this.publish();
    return at - Date.now();
  }

  /** An account read (its own or the sweep's, begun at `readFrom`) fed to the lifecycle. */
  observe(account: AccountSnapshot, readFrom: number): void {
    this.lastPollAt = Date.now();
    this.readFrom = readFrom;
    this.observed = observationFingerprint(account);
    this.apply({ type: 'STATUS', account });
  }
}

/** Whether an event a step wrote (`logged`) is the one the workflow makes of its outcome. */
function sameEvent(logged: NewEvent, draft: EventDraft, accountId: string | undefined): boolean {
  return (
    logged.type === draft.type &&
    logged.from === draft.from &&
    logged.to === draft.to &&
    logged.accountId === accountId &&
    JSON.stringify(logged.data) === JSON.stringify(draft.data)
  );
}

/** The write in doubt, if any, as the state view shows it. */
function inDoubt(context: LifecycleContext): Pick<ApplicationStateView, 'inDoubt'> {
  const create = context.accountId === undefined ? context.createMayHaveBeenSent : undefined;
  if (create) return { inDoubt: { step: 'create', since: create.at, reason: create.reason } };
  if (context.request?.inDoubt && context.request.responseFile === undefined) {
    return { inDoubt: { step: context.request.functionName } };
  }
  return {};
}

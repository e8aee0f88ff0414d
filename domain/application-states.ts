/**
 * The states an application is seen in (its lifecycle statechart's leaf states, workflows/lifecycle/),
 * as a list for validation and schemas and as a literal union for callers. workflows/lifecycle/effects.ts
 * checks at compile time that the list and the statechart name the same states.
 */
export const APPLICATION_STATES = [
  'validating',
  'creating',
  'submittingDocuments',
  'tracking',
  'needsDocuments',
  'awaitingClient',
  'awaitingApproval',
  'needsCorrection',
  'unconfirmed',
  'blocked',
  'abandoning',
  'abandoned',
  'resetting',
  'open',
  'rejected',
  'closed',
  'closedAsAbandoned',
] as const;

export type ApplicationState = (typeof APPLICATION_STATES)[number];

/**
 * The classes a state belongs to. Each state has exactly one owner, the party whose move comes next:
 * - `working`: the engine runs a step (an activity);
 * - `waitsOnBrokerage`: the brokerage reviews or approves;
 * - `needsClient`: the client provides documents or completes portal tasks (the events name the tasks);
 * - `needsStaff`: staff correct, retry, resubmit, abandon or reset;
 * - `final`: nobody, the application takes no more messages.
 *
 * And across owners:
 * - `swept`: waits for its account to change, which the firm's status sweep reads (activities/sweep.ts);
 * - `deadline`: a firm's deadline policy gives it reminders and a deadline (domain/deadlines.ts);
 * - `abandonment`: being abandoned or abandoned, where the state view shows the reason staff gave.
 */
export type StateTag =
  'working' | 'waitsOnBrokerage' | 'needsClient' | 'needsStaff' | 'final' | 'swept' | 'deadline' | 'abandonment';

/** The owner tags: every state carries exactly one. */
export const OWNER_TAGS = [
  'working',
  'waitsOnBrokerage',
  'needsClient',
  'needsStaff',
  'final',
] as const satisfies readonly StateTag[];

/**
 * The tags of each state, as the statechart carries them (`tags` on its state nodes, workflows/lifecycle/machine.ts;
 * a test checks each node against this table and each class against the states' kinds). The one list of state
 * classes: the sets below are derived from it, in this order (the order the API and the CLI list them in).
 * It lives here, below the chart, because the deadline policy's checks (domain/, runtime/) read it too.
 */
export const STATE_TAGS = {
  validating: ['working'],
  creating: ['working'],
  submittingDocuments: ['working'],
  tracking: ['waitsOnBrokerage', 'swept'],
  needsCorrection: ['needsStaff', 'deadline'],
  needsDocuments: ['needsClient', 'swept', 'deadline'],
  awaitingClient: ['needsClient', 'swept', 'deadline'],
  awaitingApproval: ['waitsOnBrokerage', 'swept'],
  unconfirmed: ['needsStaff', 'deadline'],
  blocked: ['needsStaff', 'deadline'],
  abandoning: ['working', 'abandonment'],
  // Waits for staff's reset until its retention ends it.
  abandoned: ['needsStaff', 'abandonment'],
  resetting: ['working'],
  open: ['final'],
  rejected: ['final'],
  closed: ['final'],
  closedAsAbandoned: ['final', 'abandonment'],
} as const satisfies Record<ApplicationState, readonly StateTag[]>;

type StateTags = typeof STATE_TAGS;

/** The states that carry `Tag`, as a literal union: `TaggedState<'deadline'>` is `'needsCorrection' | …`. */
export type TaggedState<Tag extends StateTag> = {
  [State in keyof StateTags]: Tag extends StateTags[State][number] ? State : never;
}[keyof StateTags];

/** Whether `state` (an application state, or any text) carries `tag`. */
export function hasTag(state: string, tag: StateTag): boolean {
  return (
    Object.hasOwn(STATE_TAGS, state) && (STATE_TAGS[state as ApplicationState] as readonly StateTag[]).includes(tag)
  );
}

function tagged<Tag extends StateTag>(tag: Tag): readonly TaggedState<Tag>[] {
  const states = (Object.keys(STATE_TAGS) as ApplicationState[]).filter((state) => hasTag(state, tag));
  return Object.freeze(states as TaggedState<Tag>[]);
}

/** The states of each class, derived from STATE_TAGS. */
export const stateClasses = {
  /** The states the status sweep reads the account of. */
  swept: tagged('swept'),
  /** The states a firm's deadline policy applies to. */
  deadline: tagged('deadline'),
  /** The states an application ends in: it takes no more messages. */
  final: tagged('final'),
  needsClient: tagged('needsClient'),
  needsStaff: tagged('needsStaff'),
  abandonment: tagged('abandonment'),
} as const;

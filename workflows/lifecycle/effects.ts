/**
 * What the workflow does in each state of the lifecycle. The machine decides; this table says which
 * activity or wait a state stands for, so the workflow's loop is a plain interpreter of it.
 */
import type { ApplicationState } from '../../domain/application-states.js';
import type { SnapshotFrom, StateValueFrom } from 'xstate';
import { documentPlan } from './tasks.js';
import type { LifecycleMachine } from './machine.js';
import type { LifecycleContext } from './types.js';
import type { FormDocument } from '../../domain/documents.js';

export type LifecycleSnapshot = SnapshotFrom<LifecycleMachine>;

export type LifecycleEffect =
  | { kind: 'validate' }
  | { kind: 'create' }
  | { kind: 'submitDocuments'; documents: FormDocument[] }
  | { kind: 'abandon' }
  | { kind: 'reset' }
  | { kind: 'poll' }
  | { kind: 'awaitStaff' }
  | { kind: 'awaitReset' }
  | { kind: 'done'; outcome: LifecycleOutcome };

export type LifecycleOutcome = 'open' | 'rejected' | 'closed' | 'abandoned';

/** Leaf names of a state value type: `{ pending: 'tracking' | 'deciding' } | 'open'` gives `'tracking' | 'deciding' | 'open'`. */
type Leaves<T> = T extends string
  ? T
  : T extends object
    ? { [K in keyof T]-?: Leaves<NonNullable<T[K]>> }[keyof T]
    : never;

/** Every leaf state of the lifecycle, as the machine's own type says: a renamed state changes this type. */
export type LifecycleState = Leaves<StateValueFrom<LifecycleMachine>>;

/** The leaf state as one word (`tracking`, `needsDocuments`...), as shown to people and search. */
export function lifecycleState(snapshot: LifecycleSnapshot): LifecycleState {
  let value: unknown = snapshot.value;
  while (value !== null && typeof value === 'object') value = Object.values(value)[0];
  return value as LifecycleState;
}

/**
 * The effect of each leaf state. Keyed by the machine's own state type, so a state added, renamed or
 * removed in the chart fails the typecheck here until its effect is stated.
 */
const EFFECTS: { [State in LifecycleState]: (context: LifecycleContext) => LifecycleEffect } = {
  validating: () => ({ kind: 'validate' }),
  creating: () => ({ kind: 'create' }),
  submittingDocuments: (context) => ({ kind: 'submitDocuments', documents: documentsToSubmit(context) }),
  abandoning: () => ({ kind: 'abandon' }),
  resetting: () => ({ kind: 'reset' }),
  tracking: () => ({ kind: 'poll' }),
  needsDocuments: () => ({ kind: 'poll' }),
  awaitingClient: () => ({ kind: 'poll' }),
  awaitingApproval: () => ({ kind: 'poll' }),
  needsCorrection: () => ({ kind: 'awaitStaff' }),
  unconfirmed: () => ({ kind: 'awaitStaff' }),
  blocked: () => ({ kind: 'awaitStaff' }),
  abandoned: () => ({ kind: 'awaitReset' }),
  open: () => ({ kind: 'done', outcome: 'open' }),
  rejected: () => ({ kind: 'done', outcome: 'rejected' }),
  closed: () => ({ kind: 'done', outcome: 'closed' }),
  closedAsAbandoned: () => ({ kind: 'done', outcome: 'abandoned' }),
  // A snapshot never rests on a compound state or on `deciding` (transient: `always`).
  pending: () => noEffect('pending'),
  deciding: () => noEffect('deciding'),
};

/** The states a snapshot rests in are the list callers see (domain/application-states.ts), no more, no less. */
type RestingState = Exclude<LifecycleState, 'pending' | 'deciding'>;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
export const APPLICATION_STATES_MATCH_THE_CHART: Same<RestingState, ApplicationState> = true;

export function effectOf(snapshot: LifecycleSnapshot): LifecycleEffect {
  return EFFECTS[lifecycleState(snapshot)](snapshot.context);
}

function noEffect(state: string): never {
  throw new Error(`lifecycle state "${state}" has no effect`);
}

function documentsToSubmit(context: LifecycleContext): FormDocument[] {
  return documentPlan(context.tasks, context.waitingDocuments, context.submittedDocuments).toSubmit;
}

import { initialTransition, transition } from 'xstate';
import { lifecycleMachine } from './machine.js';
import type { LifecycleContext, LifecycleEvent, LifecycleInput } from './types.js';
import type { LifecycleSnapshot } from './effects.js';

export * from './effects.js';
export * from './machine.js';
export type * from './types.js';
export * from './tasks.js';

/** The part of a snapshot that is carried through continue-as-new. */
export interface PersistedLifecycle {
  value: LifecycleSnapshot['value'];
  context: LifecycleContext;
}

export function startLifecycle(input: LifecycleInput): LifecycleSnapshot {
  return initialTransition(lifecycleMachine, input)[0];
}

export function restoreLifecycle(persisted: PersistedLifecycle): LifecycleSnapshot {
  return lifecycleMachine.resolveState({ value: persisted.value, context: persisted.context });
}

export function persistLifecycle(snapshot: LifecycleSnapshot): PersistedLifecycle {
  return { value: snapshot.value, context: snapshot.context };
}

/** Feeds one event; an event the current state does not take leaves the snapshot unchanged. */
export function step(snapshot: LifecycleSnapshot, event: LifecycleEvent): LifecycleSnapshot {
  return transition(lifecycleMachine, snapshot, event)[0];
}

import { initialTransition, transition } from 'xstate';
import { lifecycleMachine } from './machine.js';
import type { LifecycleContext, LifecycleEvent, LifecycleInput } from './types.js';
import { lifecycleState } from './effects.js';
import type { LifecycleSnapshot } from './effects.js';
import type { AccountSnapshot } from '../../domain/account.js';

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

/**
 * Whether an application just created, having read nothing of its account, takes this read of it without
 * anything to do or to tell: no task, and its lifecycle stays where a create leaves it (status N or P, not
 * in the approval queue). Decided by the lifecycle itself. The status sweep does not wake an application
 * that has read nothing for such a read (activities/sweep.ts): it would cost a workflow task and change
 * nothing but the status it shows.
 */
export function firstReadChangesNothing(account: AccountSnapshot): boolean {
  if (account.tasks.length > 0) return false;
  justCreated ??= createdProbe();
  return lifecycleState(step(justCreated, { type: 'STATUS', account })) === lifecycleState(justCreated);
}

/** A lifecycle as a create leaves it, made once: a slot asks about every account whose application read nothing. */
let justCreated: LifecycleSnapshot | undefined;

function createdProbe(): LifecycleSnapshot {
  const probe = { sha1: '0'.repeat(40), length: 0, ref: 'probe' };
  const started = startLifecycle({ csid: 'probe', externalId: 'probe', application: probe, documents: [] });
  return step(step(started, { type: 'VALIDATED' }), { type: 'CREATED', accountId: 'probe' });
}

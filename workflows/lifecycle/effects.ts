/**
 * What the workflow does in each state of the lifecycle. The machine decides; this table says which
 * activity or wait a state stands for, so the workflow's loop is a plain interpreter of it.
 */
import type { SnapshotFrom } from 'xstate';
import { documentPlan } from './tasks.js';
import type { LifecycleContext, LifecycleMachine } from './machine.js';
import type { FormDocument } from '../../domain/documents.js';

export type LifecycleSnapshot = SnapshotFrom<LifecycleMachine>;

/** How often a polling state reads the service; the workflow maps each to a configured interval. */
export type PollCadence = 'tracking' | 'documents' | 'portal' | 'approval';

export type LifecycleEffect =
  | { kind: 'validate' }
  | { kind: 'create' }
  | { kind: 'submitDocuments'; documents: FormDocument[] }
  | { kind: 'abandon' }
  | { kind: 'reset' }
  | { kind: 'poll'; cadence: PollCadence }
  | { kind: 'awaitStaff' }
  | { kind: 'awaitReset' }
  | { kind: 'done'; outcome: LifecycleOutcome };

export type LifecycleOutcome = 'open' | 'rejected' | 'closed' | 'abandoned';

/** The leaf state as one word (`tracking`, `needsDocuments`...), as shown to people and search. */
export function lifecycleState(snapshot: LifecycleSnapshot): string {
  let value: unknown = snapshot.value;
  while (value !== null && typeof value === 'object') value = Object.values(value)[0];
  return String(value);
}

export function effectOf(snapshot: LifecycleSnapshot): LifecycleEffect {
  const state = lifecycleState(snapshot);
  switch (state) {
    case 'validating':
      return { kind: 'validate' };
    case 'creating':
      return { kind: 'create' };
    case 'submittingDocuments':
      return { kind: 'submitDocuments', documents: documentsToSubmit(snapshot.context) };
    case 'abandoning':
      return { kind: 'abandon' };
    case 'resetting':
      return { kind: 'reset' };
    case 'tracking':
      return { kind: 'poll', cadence: 'tracking' };
    case 'needsDocuments':
      return { kind: 'poll', cadence: 'documents' };
    case 'awaitingClient':
      return { kind: 'poll', cadence: 'portal' };
    case 'awaitingApproval':
      return { kind: 'poll', cadence: 'approval' };
    case 'needsCorrection':
    case 'unconfirmed':
    case 'blocked':
      return { kind: 'awaitStaff' };
    case 'abandoned':
      return { kind: 'awaitReset' };
    case 'open':
    case 'rejected':
    case 'closed':
      return { kind: 'done', outcome: state };
    case 'closedAsAbandoned':
      return { kind: 'done', outcome: 'abandoned' };
    default:
      throw new Error(`lifecycle state "${state}" has no effect`);
  }
}

function documentsToSubmit(context: LifecycleContext): FormDocument[] {
  return documentPlan(context.tasks, context.waitingDocuments, context.submittedDocuments).toSubmit;
}

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

/** The states an application ends in: it takes no more messages. */
export const FINAL_STATES: readonly ApplicationState[] = ['open', 'rejected', 'closed', 'closedAsAbandoned'];

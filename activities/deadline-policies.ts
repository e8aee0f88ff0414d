/**
 * The deadline policy an application follows (domain/deadlines.ts), read by the application workflow
 * each time it enters a waiting state, so that a firm's change applies without restarting anything.
 */
import { log } from '@temporalio/activity';
import { stateClasses } from '../domain/application-states.js';
import { effectivePolicy, stateDeadlineProblems } from '../domain/deadlines.js';
import type { DeadlinePolicy, StateDeadline } from '../domain/deadlines.js';
import type { DeadlinePolicies } from '../runtime/deadline-policies.js';

export interface ReadDeadlinePolicyInput {
  csid: string;
}

/**
 * `stored` less the states whose entry no longer validates (stored under older rules, or written to
 * the table by hand): those take the default, with a warning, rather than fail the waiting workflow.
 */
function usableEntries(csid: string, stored: DeadlinePolicy): DeadlinePolicy {
  const usable: DeadlinePolicy = {};
  for (const state of stateClasses.deadline) {
    const entry: StateDeadline | null | undefined = stored[state];
    if (entry === undefined) continue;
    const problems = entry === null ? [] : stateDeadlineProblems(state, entry);
    if (problems.length === 0) usable[state] = entry;
    else log.warn('a stored deadline is not valid; the default applies to its state', { csid, state, problems });
  }
  return usable;
}

/** A firm without a stored policy follows the defaults. */
export function createDeadlinePolicyActivities(policies: DeadlinePolicies) {
  return {
    /** The effective policy of firm `csid`: its own entries over the defaults, for every deadline state. */
    async readDeadlinePolicy({ csid }: ReadDeadlinePolicyInput): Promise<DeadlinePolicy> {
      const stored = await policies.get(csid);
      return effectivePolicy(stored && usableEntries(csid, stored));
    },
  };
}

export type DeadlinePolicyActivities = ReturnType<typeof createDeadlinePolicyActivities>;

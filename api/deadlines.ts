/**
 * The firm's deadline policy (domain/deadlines.ts, stored by runtime/deadline-policies.ts): how long an
 * application may wait in each waiting state, the reminders before, and what happens at the deadline.
 * The firm's own entries are stored; the engine's defaults fill in every state it leaves out.
 */
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { stateClasses } from '../domain/application-states.js';
import { effectivePolicy, ESCALATIONS } from '../domain/deadlines.js';
import type { DeadlineState } from '../domain/deadlines.js';
import { DeadlinePolicies, DeadlinePolicyError } from '../runtime/deadline-policies.js';
import type { Queryable } from '../runtime/database/index.js';
import { principalOf, READERS, STAFF } from './auth.js';
import { ApiProblem } from './problems.js';
import { problems } from './schemas.js';

const tags = ['deadlines'];

export const StateDeadline = z
  .object({
    deadline: z.string().describe('How long after entering the state the application is overdue (`10d`, `4h`)'),
    reminders: z.array(z.string()).describe('Durations after entering the state, each before the deadline'),
    businessDays: z.boolean().optional().describe('Durations count business days (Mon–Fri UTC): whole days only'),
    escalation: z
      .enum(ESCALATIONS)
      .describe('At the deadline: `none` (the overdue event), `alert` (also an escalation for staff), `abandon`'),
  })
  .meta({ id: 'StateDeadline', description: 'The deadline of one waiting state' });

const stateEntry = StateDeadline.nullable().describe('`null`: no deadline in this state');

const statesOf = <T extends z.ZodType>(entry: T) =>
  Object.fromEntries(stateClasses.deadline.map((state) => [state, entry])) as Record<DeadlineState, T>;

export const DeadlinePolicy = z.object(statesOf(stateEntry.optional())).meta({
  id: 'DeadlinePolicy',
  description: 'A firm’s deadlines by waiting state: a state left out takes the default',
});

const EffectiveDeadlinePolicy = z.object(statesOf(stateEntry)).meta({
  id: 'EffectiveDeadlinePolicy',
  description: 'The deadline of every waiting state, as applications follow it',
});

const DeadlinePolicyView = z
  .object({
    policy: DeadlinePolicy.describe('The firm’s own entries (empty when it set none)'),
    effective: EffectiveDeadlinePolicy,
    defaults: EffectiveDeadlinePolicy.describe('The engine’s defaults'),
  })
  .meta({
    id: 'DeadlinePolicyView',
    description: 'The firm’s deadline policy, what applications follow, and the defaults',
  });

const SetDeadlinePolicyRequest = z
  .strictObject({
    policy: z
      .record(z.string(), z.unknown())
      .describe(
        `A DeadlinePolicy: by state (${stateClasses.deadline.join(', ')}), a StateDeadline or null. Checked in full: every problem is named.`,
      ),
  })
  .meta({
    id: 'SetDeadlinePolicyRequest',
    description: 'The firm’s new deadline policy (it replaces the previous one)',
  });

const REREAD =
  'Applications waiting now read the policy again at their next reminder and at least daily; those entering a waiting state read it then.';

/** `needsDocuments.reminders[1]`, the field a problem of domain/deadlines.ts starts with, under the body's `policy`. */
function fieldOf(problem: string | undefined): string {
  const path = problem?.split(':')[0] ?? '';
  return path === '' || path === 'policy' ? 'policy' : `policy.${path}`;
}

export function deadlineRoutes(app: FastifyInstance, database: Queryable): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const policies = new DeadlinePolicies(database);
  const defaults = effectivePolicy(undefined);

  const view = async (csid: string) => {
    const policy = (await policies.get(csid)) ?? {};
    return { policy, effective: effectivePolicy(policy), defaults };
  };

  api.get('/v1/deadlines', {
    config: { roles: READERS },
    schema: {
      tags,
      operationId: 'getDeadlinePolicy',
      summary: 'The firm’s deadlines, reminders and escalations per waiting state',
      description: `The defaults apply to every state the firm leaves out. ${REREAD}`,
      response: { 200: DeadlinePolicyView, ...problems() },
    },
    handler: async (request) => view(principalOf(request).csid),
  });

  api.put('/v1/deadlines', {
    config: { roles: STAFF },
    schema: {
      tags,
      operationId: 'setDeadlinePolicy',
      summary: 'Replace the firm’s deadline policy (staff)',
      description: `Every problem of the policy is named in the 400 answer's detail; \`field\` is the first one's path. ${REREAD}`,
      body: SetDeadlinePolicyRequest,
      response: { 200: DeadlinePolicyView, ...problems() },
    },
    handler: async (request) => {
      const { csid } = principalOf(request);
      try {
        await policies.set(csid, request.body.policy);
      } catch (error) {
        if (error instanceof DeadlinePolicyError) {
          throw new ApiProblem('INVALID_INPUT', error.problems.join('; '), fieldOf(error.problems[0]));
        }
        throw error;
      }
      return view(csid);
    },
  });

  api.delete('/v1/deadlines', {
    config: { roles: STAFF },
    schema: {
      tags,
      operationId: 'clearDeadlinePolicy',
      summary: 'Remove the firm’s policy: the defaults apply again (staff)',
      description: REREAD,
      response: { 200: DeadlinePolicyView, ...problems() },
    },
    handler: async (request) => {
      const { csid } = principalOf(request);
      await policies.clear(csid);
      return view(csid);
    },
  });
}

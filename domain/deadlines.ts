/**
 * Deadlines of the waiting states: per firm and per state, how long an application may wait there, when
 * to remind before that, and what happens at the deadline. Pure and clock-free (the entry time is an
 * input), so that the application workflow can turn a policy into durable timers; the firm's policy is
 * stored by runtime/deadline-policies.ts and read through an activity, so a change applies to the next
 * state an application enters, without restarting it.
 *
 * Durations are strings as domain/durations.ts reads them (`"10d"`, `"4h"`, `"90 minutes"`), counted from
 * entering the state. With `businessDays`, each duration must be a whole number of days and counts
 * business days (Monday to Friday, UTC) by the rule of domain/business-days.ts: `"3d"` entered on a
 * Friday at 15:00 is the next Wednesday at 15:00, and a weekend entry counts from Monday 00:00 UTC.
 */
import { hasTag, stateClasses } from './application-states.js';
import type { TaggedState } from './application-states.js';
import { addBusinessDays, DAY_MS } from './business-days.js';
import { durationMs } from './durations.js';

/** The waiting states a firm can give a deadline (tag `deadline`): each waits on the firm, its client or staff. */
export type DeadlineState = TaggedState<'deadline'>;

/**
 * What happens at the deadline: `none` emits the overdue event only; `alert` also an escalated event
 * for staff; `abandon` also abandons the application, with `escalationReason` as its reason.
 */
export const ESCALATIONS = ['none', 'alert', 'abandon'] as const;

export type Escalation = (typeof ESCALATIONS)[number];

/** The deadline of one waiting state. */
export interface StateDeadline {
  /** How long after entering the state the application is overdue (`"10d"`, `"4h"`). */
  deadline: string;
  /** When to remind, each a duration after entering the state and before the deadline; in any order. */
  reminders: string[];
  /** Day counts are business days (Mon–Fri UTC); every duration is then a whole number of days. */
  businessDays?: boolean;
  escalation: Escalation;
}

/** A firm's deadlines by state: a state left out takes the default, `null` means no deadline there. */
export type DeadlinePolicy = Partial<Record<DeadlineState, StateDeadline | null>>;

/**
 * A reminder or the deadline itself, at `at` (epoch milliseconds);
 * `reminder` numbers reminders 1, 2… in time order.
 */
export interface DeadlineMark {
  at: number;
  kind: 'reminder' | 'overdue';
  reminder?: number;
}

/** The longest deadline a policy may set: longer is more likely a typo (`"10y"`) than a wish. */
export const MAX_DEADLINE_MS = 365 * DAY_MS;
/** The most reminders per state: each is a durable timer in every waiting application. */
export const MAX_REMINDERS = 10;

/**
 * The engine's policy where a firm sets none:
 *
 * | state           | deadline         | reminders after    | escalation |
 * | --------------- | ---------------- | ------------------ | ---------- |
 * | needsCorrection | 10 business days | 3, 7 business days | none       |
 * | needsDocuments  | 30 days          | 7, 14, 21 days     | none       |
 * | awaitingClient  | 30 days          | 7, 21 days         | none       |
 * | unconfirmed     | 1 day            | 4 hours            | none       |
 * | blocked         | 1 day            | 4 hours            | none       |
 *
 * The firm corrects its own data within two working weeks; the client has a month for documents and
 * signatures; `unconfirmed` and `blocked` wait on staff (an outcome the engine could not establish, a
 * configuration to fix), who should hear of them the same day.
 */
export const DEFAULT_DEADLINE_POLICY: Readonly<Record<DeadlineState, Readonly<StateDeadline>>> = Object.freeze({
  needsCorrection: freeze({ deadline: '10d', reminders: ['3d', '7d'], businessDays: true, escalation: 'none' }),
  needsDocuments: freeze({ deadline: '30d', reminders: ['7d', '14d', '21d'], escalation: 'none' }),
  awaitingClient: freeze({ deadline: '30d', reminders: ['7d', '21d'], escalation: 'none' }),
  unconfirmed: freeze({ deadline: '1d', reminders: ['4h'], escalation: 'none' }),
  blocked: freeze({ deadline: '1d', reminders: ['4h'], escalation: 'none' }),
});

function freeze(deadline: StateDeadline): Readonly<StateDeadline> {
  Object.freeze(deadline.reminders);
  return Object.freeze(deadline);
}

function copy(deadline: Readonly<StateDeadline>): StateDeadline {
  return { ...deadline, reminders: [...deadline.reminders] };
}

/**
 * The policy applications follow: for every deadline state, the firm's entry when it has one (a
 * deadline, or `null` for none), else the default. A fresh copy: the caller may change it.
 */
export function effectivePolicy(firm: DeadlinePolicy | undefined): Record<DeadlineState, StateDeadline | null> {
  const policy = {} as Record<DeadlineState, StateDeadline | null>;
  for (const state of stateClasses.deadline) {
    const own = firm?.[state];
    policy[state] = own === null ? null : copy(own ?? DEFAULT_DEADLINE_POLICY[state]);
  }
  return policy;
}

/** A policy (or one state's deadline) that cannot be used; `problems` name each bad field. */
export class DeadlinePolicyError extends Error {
  override readonly name = 'DeadlinePolicyError';
  constructor(readonly problems: readonly string[]) {
    super(`invalid deadline policy: ${problems.join('; ')}`);
  }
}

/**
 * The reminders and the deadline of `deadline` for a state entered at `enteredAtMs`, in time order,
 * the overdue mark last. Throws a DeadlinePolicyError when `deadline` is not valid (check stored
 * policies with `deadlinePolicyProblems` first).
 */
export function deadlineMarks(deadline: StateDeadline, enteredAtMs: number): DeadlineMark[] {
  const problems = stateDeadlineProblems('deadline', deadline);
  if (problems.length > 0) throw new DeadlinePolicyError(problems);
  if (!Number.isFinite(enteredAtMs))
    throw new RangeError(`enteredAtMs: expected epoch milliseconds, got ${enteredAtMs}`);
  const at = (duration: string) =>
    deadline.businessDays
      ? addBusinessDays(enteredAtMs, durationMs(duration) / DAY_MS)
      : enteredAtMs + durationMs(duration);
  const reminders = deadline.reminders.map(at).sort((a, b) => a - b);
  return [
    ...reminders.map((time, index): DeadlineMark => ({ at: time, kind: 'reminder', reminder: index + 1 })),
    { at: at(deadline.deadline), kind: 'overdue' },
  ];
}

/**
 * The reason an application abandoned by its deadline's escalation gives (shown to staff and in its
 * events): `deadline passed: needsDocuments for longer than 30d`, or `… than 10 business days`.
 */
export function escalationReason(state: DeadlineState, deadline: StateDeadline): string {
  const length = deadline.businessDays ? `${durationMs(deadline.deadline) / DAY_MS} business days` : deadline.deadline;
  return `deadline passed: ${state} for longer than ${length}`;
}

const STATE_FIELDS = ['deadline', 'reminders', 'businessDays', 'escalation'] as const;

/** `value` for a message: JSON, cut short. */
function show(value: unknown): string {
  const text = value === undefined ? 'nothing' : JSON.stringify(value);
  return text.length > 40 ? `${text.slice(0, 37)}...` : text;
}

/** `key` as written in a field path: itself when it reads as a name, else quoted (and cut short). */
function keyName(key: string): string {
  return /^[A-Za-z_$][\w$]{0,39}$/.test(key) ? key : show(key);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * What is wrong with `input` as a DeadlinePolicy, one message per problem, each starting with the field
 * (`needsDocuments.reminders[1]: "40d" is not before the deadline "30d"`); empty when it is valid.
 */
export function deadlinePolicyProblems(input: unknown): string[] {
  if (!isRecord(input)) return [`policy: expected an object keyed by state, got ${show(input)}`];
  const problems: string[] = [];
  for (const [key, value] of Object.entries(input)) {
    if (!hasTag(key, 'deadline')) {
      problems.push(`${keyName(key)}: not a state with a deadline (one of ${stateClasses.deadline.join(', ')})`);
    } else if (value !== null && value !== undefined) {
      problems.push(...stateDeadlineProblems(key, value));
    }
  }
  return problems;
}

/** `input` as a DeadlinePolicy (known fields only, no `undefined`); a DeadlinePolicyError lists every problem. */
export function checkDeadlinePolicy(input: unknown): DeadlinePolicy {
  const problems = deadlinePolicyProblems(input);
  if (problems.length > 0) throw new DeadlinePolicyError(problems);
  const policy: DeadlinePolicy = {};
  for (const state of stateClasses.deadline) {
    const value = (input as Record<string, StateDeadline | null | undefined>)[state];
    if (value === null) policy[state] = null;
    else if (value !== undefined) {
      const { deadline, reminders, businessDays, escalation } = value;
      policy[state] = { deadline, reminders: [...reminders], escalation };
      if (businessDays !== undefined) policy[state].businessDays = businessDays;
    }
  }
  return policy;
}

/**
 * What is wrong with `input` as the deadline of one state, each message starting with `field` (the
 * state's name in a policy).
 */
export function stateDeadlineProblems(field: string, input: unknown): string[] {
  if (!isRecord(input)) {
    return [`${field}: expected a deadline { deadline, reminders, escalation } or null for none, got ${show(input)}`];
  }
  const problems: string[] = [];
  for (const key of Object.keys(input)) {
    if (!(STATE_FIELDS as readonly string[]).includes(key)) {
      problems.push(`${field}.${keyName(key)}: not a field of a deadline (${STATE_FIELDS.join(', ')})`);
    }
  }
  const { businessDays } = input;
  if (businessDays !== undefined && typeof businessDays !== 'boolean') {
    problems.push(`${field}.businessDays: expected true or false, got ${show(businessDays)}`);
  }
  const wholeDays = businessDays === true;
  const deadline = durationProblem(`${field}.deadline`, input.deadline, wholeDays, problems);
  if (deadline !== undefined && deadline > MAX_DEADLINE_MS) {
    problems.push(`${field}.deadline: ${show(input.deadline)} is longer than the longest deadline, 365 days`);
  }
  const { reminders } = input;
  if (!Array.isArray(reminders)) {
    problems.push(`${field}.reminders: expected a list of durations ([] for none), got ${show(reminders)}`);
  } else {
    if (reminders.length > MAX_REMINDERS) {
      problems.push(`${field}.reminders: ${reminders.length} reminders, at most ${MAX_REMINDERS}`);
    }
    const seen = new Map<number, number>();
    reminders.forEach((reminder: unknown, index) => {
      const name = `${field}.reminders[${index}]`;
      const after = durationProblem(name, reminder, wholeDays, problems);
      if (after === undefined) return;
      if (deadline !== undefined && after >= deadline) {
        problems.push(`${name}: ${show(reminder)} is not before the deadline ${show(input.deadline)}`);
      }
      const first = seen.get(after);
      if (first !== undefined) problems.push(`${name}: ${show(reminder)} is the same time as reminders[${first}]`);
      else seen.set(after, index);
    });
  }
  if (!(ESCALATIONS as readonly unknown[]).includes(input.escalation)) {
    problems.push(`${field}.escalation: expected one of ${ESCALATIONS.join(', ')}, got ${show(input.escalation)}`);
  }
  return problems;
}

/**
 * The milliseconds of `value` when it is a usable duration; otherwise undefined, with the problem added
 * to `problems`: not a string, unreadable, not more than zero, not whole milliseconds, or (`wholeDays`)
 * not a whole number of days.
 */
function durationProblem(name: string, value: unknown, wholeDays: boolean, problems: string[]): number | undefined {
  if (typeof value !== 'string') {
    problems.push(`${name}: expected a duration such as "10d" or "4h", got ${show(value)}`);
    return undefined;
  }
  let millis: number;
  try {
    millis = durationMs(value);
  } catch {
    problems.push(`${name}: ${show(value)} is not a duration (such as "10d", "4h" or "90 minutes")`);
    return undefined;
  }
  if (!(millis > 0) || !Number.isSafeInteger(millis)) {
    problems.push(`${name}: ${show(value)} is not a positive whole number of milliseconds`);
    return undefined;
  }
  if (wholeDays && millis % DAY_MS !== 0) {
    problems.push(`${name}: ${show(value)} is not a whole number of days, as business days require`);
    return undefined;
  }
  return millis;
}

/** Deadlines of the waiting states (domain/deadlines.ts) and business days (domain/business-days.ts). */
import assert from 'node:assert/strict';
import { APPLICATION_STATES, stateClasses } from '../../../domain/application-states.js';
import { addBusinessDays, businessStart, DAY_MS } from '../../../domain/business-days.js';
import {
  checkDeadlinePolicy,
  deadlineMarks,
  deadlinePolicyProblems,
  DeadlinePolicyError,
  DEFAULT_DEADLINE_POLICY,
  effectivePolicy,
  escalationReason,
  MAX_REMINDERS,
} from '../../../domain/deadlines.js';
import type { StateDeadline } from '../../../domain/deadlines.js';
import { fc, fuzzParameters } from '../../support/fuzz.js';

const HOUR_MS = 60 * 60 * 1000;
const utc = (iso: string) => Date.parse(`${iso}Z`);
const iso = (epochMs: number) => new Date(epochMs).toISOString().slice(0, 16);
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** `2024-01-05T15:00 Fri`: a mark as a reader checks it. */
const shown = (epochMs: number) => `${iso(epochMs)} ${DAYS[new Date(epochMs).getUTCDay()]}`;

/** Business days the slow, obvious way: step a day at a time from the business start. */
function naiveBusinessDays(epochMs: number, days: number): number {
  let at = businessStart(epochMs);
  for (let left = days; left > 0;) {
    at += DAY_MS;
    const day = new Date(at).getUTCDay();
    if (day !== 0 && day !== 6) left--;
  }
  return at;
}

describe('deadlines (domain/deadlines)', function () {
  describe('defaults', function () {
    it('give every deadline state a valid deadline, as documented', function () {
      assert.deepEqual(deadlinePolicyProblems(DEFAULT_DEADLINE_POLICY), []);
      assert.deepEqual(Object.keys(DEFAULT_DEADLINE_POLICY).sort(), [...stateClasses.deadline].sort());
      for (const state of stateClasses.deadline) assert.ok(APPLICATION_STATES.includes(state), state);
      assert.deepEqual(DEFAULT_DEADLINE_POLICY, {
        needsCorrection: { deadline: '10d', reminders: ['3d', '7d'], businessDays: true, escalation: 'none' },
        needsDocuments: { deadline: '30d', reminders: ['7d', '14d', '21d'], escalation: 'none' },
        awaitingClient: { deadline: '30d', reminders: ['7d', '21d'], escalation: 'none' },
        unconfirmed: { deadline: '1d', reminders: ['4h'], escalation: 'none' },
        blocked: { deadline: '1d', reminders: ['4h'], escalation: 'none' },
      });
    });

    it('cannot be changed in place', function () {
      assert.throws(() => {
        DEFAULT_DEADLINE_POLICY.blocked.reminders.push('5h');
      }, TypeError);
      assert.throws(() => {
        (DEFAULT_DEADLINE_POLICY.blocked as StateDeadline).deadline = '2d';
      }, TypeError);
    });
  });

  describe('effectivePolicy', function () {
    it('is the defaults for a firm without a policy, as a copy the caller may change', function () {
      const policy = effectivePolicy(undefined);
      assert.deepEqual(policy, DEFAULT_DEADLINE_POLICY);
      policy.blocked.reminders.push('5h');
      assert.deepEqual(DEFAULT_DEADLINE_POLICY.blocked.reminders, ['4h']);
    });

    it("takes the firm's entry per state, null for none, and the default for the rest", function () {
      const own: StateDeadline = { deadline: '90d', reminders: ['30d', '60d'], escalation: 'abandon' };
      const policy = effectivePolicy({ needsDocuments: own, blocked: null, unconfirmed: undefined });
      assert.deepEqual(policy, {
        needsCorrection: DEFAULT_DEADLINE_POLICY.needsCorrection,
        needsDocuments: own,
        awaitingClient: DEFAULT_DEADLINE_POLICY.awaitingClient,
        unconfirmed: DEFAULT_DEADLINE_POLICY.unconfirmed,
        blocked: null,
      });
      assert.notEqual(policy.needsDocuments, own, 'a copy');
    });
  });

  describe('deadlineMarks', function () {
    it('puts reminders after entering the state, in time order, and the overdue mark at the deadline', function () {
      const entered = utc('2024-03-01T10:00');
      const marks = deadlineMarks({ deadline: '30d', reminders: ['21d', '7d', '14d'], escalation: 'none' }, entered);
      assert.deepEqual(marks, [
        { at: entered + 7 * DAY_MS, kind: 'reminder', reminder: 1 },
        { at: entered + 14 * DAY_MS, kind: 'reminder', reminder: 2 },
        { at: entered + 21 * DAY_MS, kind: 'reminder', reminder: 3 },
        { at: entered + 30 * DAY_MS, kind: 'overdue' },
      ]);
      assert.deepEqual(deadlineMarks(DEFAULT_DEADLINE_POLICY.blocked, entered), [
        { at: entered + 4 * HOUR_MS, kind: 'reminder', reminder: 1 },
        { at: entered + DAY_MS, kind: 'overdue' },
      ]);
      assert.deepEqual(deadlineMarks({ deadline: '90 minutes', reminders: [], escalation: 'alert' }, entered), [
        { at: entered + 90 * 60_000, kind: 'overdue' },
      ]);
    });

    it('counts business days over weekends (the default of needsCorrection)', function () {
      const marks = (entered: string) =>
        deadlineMarks(DEFAULT_DEADLINE_POLICY.needsCorrection, utc(entered)).map(({ at }) => shown(at));
      // 2024-01-05 is a Friday: 3, 7 and 10 business days later, at the same time of day.
      assert.deepEqual(marks('2024-01-05T15:00'), [
        '2024-01-10T15:00 Wed',
        '2024-01-16T15:00 Tue',
        '2024-01-19T15:00 Fri',
      ]);
      // A weekend entry counts from Monday 00:00 UTC.
      for (const weekend of ['2024-01-06T10:00', '2024-01-07T23:59', '2024-01-08T00:00']) {
        assert.deepEqual(marks(weekend), ['2024-01-11T00:00 Thu', '2024-01-17T00:00 Wed', '2024-01-22T00:00 Mon']);
      }
      // Across a month and a year end: Wednesday 2024-12-25 + 10 business days (no holidays).
      assert.deepEqual(marks('2024-12-25T08:30'), [
        '2024-12-30T08:30 Mon',
        '2025-01-03T08:30 Fri',
        '2025-01-08T08:30 Wed',
      ]);
    });

    it('follows the business-day rule at its edges', function () {
      const cases: Array<[string, number, string]> = [
        ['2024-01-05T15:00', 1, '2024-01-08T15:00 Mon'], // Friday + 1: Monday, same time
        ['2024-01-05T00:00', 1, '2024-01-08T00:00 Mon'],
        ['2024-01-06T10:00', 1, '2024-01-09T00:00 Tue'], // Saturday counts as Monday 00:00
        ['2024-01-07T23:59', 0, '2024-01-08T00:00 Mon'],
        ['2024-01-08T09:30', 5, '2024-01-15T09:30 Mon'],
        ['2024-01-10T12:00', 12, '2024-01-26T12:00 Fri'],
        ['2024-02-28T12:00', 2, '2024-03-01T12:00 Fri'], // across a leap day
      ];
      for (const [entered, days, expected] of cases) {
        assert.equal(shown(addBusinessDays(utc(entered), days)), expected, `${entered} + ${days}`);
      }
      assert.throws(() => addBusinessDays(0, 1.5), /whole number of business days/);
      assert.throws(() => addBusinessDays(Number.NaN, 1), /time in milliseconds/);
    });

    it('refuses a deadline that is not valid, naming the problem', function () {
      assert.throws(
        () => deadlineMarks({ deadline: '10d', reminders: ['12d'], escalation: 'none' }, 0),
        (error: unknown) =>
          error instanceof DeadlinePolicyError &&
          error.problems.length === 1 &&
          error.problems[0] === 'deadline.reminders[0]: "12d" is not before the deadline "10d"',
      );
      assert.throws(
        () => deadlineMarks(DEFAULT_DEADLINE_POLICY.blocked, Number.NaN),
        /enteredAtMs: expected epoch milliseconds/,
      );
    });

    it('are sorted, all after entering the state, the overdue mark last (property)', function () {
      const valid = fc.boolean().chain((businessDays) => {
        const unit = businessDays
          ? fc.constant({ suffix: 'd', ms: DAY_MS })
          : fc.constantFrom({ suffix: 'm', ms: 60_000 }, { suffix: 'h', ms: HOUR_MS }, { suffix: 'd', ms: DAY_MS });
        return unit.chain(({ suffix, ms }) =>
          fc.integer({ min: 1, max: Math.floor((365 * DAY_MS) / ms) }).chain((deadline) =>
            fc.record({
              deadline: fc.constant(`${deadline}${suffix}`),
              reminders: fc
                .uniqueArray(fc.integer({ min: 1, max: Math.max(1, deadline - 1) }), { maxLength: MAX_REMINDERS })
                .map((counts) => counts.filter((count) => count < deadline).map((count) => `${count}${suffix}`)),
              businessDays: fc.constant(businessDays),
              escalation: fc.constantFrom('none' as const, 'alert' as const, 'abandon' as const),
            }),
          ),
        );
      });
      const entered = fc.integer({ min: utc('2000-01-01T00:00'), max: utc('2100-01-01T00:00') });
      fc.assert(
        fc.property(valid, entered, (deadline, enteredAt) => {
          assert.deepEqual(deadlinePolicyProblems({ awaitingClient: deadline }), []);
          const marks = deadlineMarks(deadline, enteredAt);
          assert.equal(marks.length, deadline.reminders.length + 1);
          assert.equal(marks.at(-1)!.kind, 'overdue');
          marks
            .slice(0, -1)
            .forEach((mark, index) => assert.deepEqual(mark, { ...mark, kind: 'reminder', reminder: index + 1 }));
          assert.ok(marks[0]!.at > enteredAt, 'after entering');
          for (let i = 1; i < marks.length; i++) assert.ok(marks[i]!.at > marks[i - 1]!.at, 'strictly in order');
          if (deadline.businessDays) {
            for (const { at } of marks) assert.ok(![0, 6].includes(new Date(at).getUTCDay()), 'on a weekday');
          }
        }),
        fuzzParameters('deadline marks', 300),
      );
    });

    it('count business days as stepping a day at a time does (property)', function () {
      const entered = fc.integer({ min: utc('2000-01-01T00:00'), max: utc('2100-01-01T00:00') });
      fc.assert(
        fc.property(entered, fc.integer({ min: 0, max: 400 }), (at, days) => {
          assert.equal(addBusinessDays(at, days), naiveBusinessDays(at, days));
        }),
        fuzzParameters('business days', 300),
      );
    });
  });

  describe('deadlinePolicyProblems', function () {
    it('names each bad field', function () {
      const problems = deadlinePolicyProblems({
        needsDocuments: { deadline: '30d', reminders: ['7d', '40d', '7 days', 5], escalation: 'email' },
        needsCorrection: { deadline: '36h', reminders: ['1.5d'], businessDays: true, escalation: 'alert' },
        awaitingClient: { deadline: 'soon', reminders: '7d', escalation: 'none', reminder: ['7d'], 'x y': 1 },
        unconfirmed: { deadline: '0d', reminders: ['-1h'], businessDays: 'yes', escalation: 'none' },
        blocked: { deadline: '2y', reminders: [] },
        approved: null,
        'needs documents': null,
      });
      assert.deepEqual(problems, [
        'needsDocuments.reminders[1]: "40d" is not before the deadline "30d"',
        'needsDocuments.reminders[2]: "7 days" is the same time as reminders[0]',
        'needsDocuments.reminders[3]: expected a duration such as "10d" or "4h", got 5',
        'needsDocuments.escalation: expected one of none, alert, abandon, got "email"',
        'needsCorrection.deadline: "36h" is not a whole number of days, as business days require',
        'needsCorrection.reminders[0]: "1.5d" is not a whole number of days, as business days require',
        'awaitingClient.reminder: not a field of a deadline (deadline, reminders, businessDays, escalation)',
        'awaitingClient."x y": not a field of a deadline (deadline, reminders, businessDays, escalation)',
        'awaitingClient.deadline: "soon" is not a duration (such as "10d", "4h" or "90 minutes")',
        'awaitingClient.reminders: expected a list of durations ([] for none), got "7d"',
        'unconfirmed.businessDays: expected true or false, got "yes"',
        'unconfirmed.deadline: "0d" is not a positive whole number of milliseconds',
        'unconfirmed.reminders[0]: "-1h" is not a positive whole number of milliseconds',
        'blocked.deadline: "2y" is longer than the longest deadline, 365 days',
        'blocked.escalation: expected one of none, alert, abandon, got nothing',
        'approved: not a state with a deadline (one of needsCorrection, needsDocuments, awaitingClient, unconfirmed, blocked)',
        '"needs documents": not a state with a deadline (one of needsCorrection, needsDocuments, awaitingClient, unconfirmed, blocked)',
      ]);
    });

    it('refuses what is not a policy, too many reminders, and a state that is not a deadline', function () {
      assert.deepEqual(deadlinePolicyProblems([]), ['policy: expected an object keyed by state, got []']);
      assert.deepEqual(deadlinePolicyProblems(null), ['policy: expected an object keyed by state, got null']);
      assert.deepEqual(deadlinePolicyProblems({ blocked: '1d' }), [
        'blocked: expected a deadline { deadline, reminders, escalation } or null for none, got "1d"',
      ]);
      const reminders = Array.from({ length: 11 }, (_, index) => `${index + 1}h`);
      assert.deepEqual(deadlinePolicyProblems({ blocked: { deadline: '1d', reminders, escalation: 'none' } }), [
        'blocked.reminders: 11 reminders, at most 10',
      ]);
    });

    it('accepts an empty policy, null and left-out states, and any readable duration', function () {
      assert.deepEqual(deadlinePolicyProblems({}), []);
      assert.deepEqual(
        deadlinePolicyProblems({
          blocked: null,
          unconfirmed: undefined,
          awaitingClient: { deadline: '2 weeks', reminders: ['90 minutes', '3d'], escalation: 'alert' },
          needsDocuments: { deadline: '20d', reminders: ['2w'], businessDays: true, escalation: 'abandon' },
        }),
        [],
      );
    });

    it('answers messages, never throws, whatever it is given (property)', function () {
      const states = fc.constantFrom(...stateClasses.deadline, 'other');
      const entry = fc.record(
        {
          deadline: fc.oneof(fc.string(), fc.constantFrom('1d', '4h', '10 days', '0d')),
          reminders: fc.oneof(
            fc.array(fc.oneof(fc.string(), fc.constantFrom('1d', '2h'), fc.jsonValue())),
            fc.jsonValue(),
          ),
          businessDays: fc.jsonValue(),
          escalation: fc.oneof(fc.constantFrom('none', 'alert', 'abandon'), fc.jsonValue()),
        },
        { requiredKeys: [] },
      );
      const input = fc.oneof(fc.jsonValue(), fc.dictionary(states, fc.oneof(entry, fc.jsonValue())));
      fc.assert(
        fc.property(input, (policy) => {
          const problems = deadlinePolicyProblems(policy);
          const named = (problem: string) =>
            typeof policy === 'object' && policy !== null && !Array.isArray(policy)
              ? Object.keys(policy).some(
                  (key) => problem.startsWith(key) || problem.startsWith(JSON.stringify(key).slice(0, 37)),
                )
              : problem.startsWith('policy: ');
          for (const problem of problems) assert.ok(named(problem), problem);
          if (problems.length === 0) checkDeadlinePolicy(policy);
          else assert.throws(() => checkDeadlinePolicy(policy), DeadlinePolicyError);
        }),
        fuzzParameters('deadline policy validation', 300),
      );
    });
  });

  describe('checkDeadlinePolicy', function () {
    it('answers the known fields only, as a copy', function () {
      const reminders = ['1h'];
      const checked = checkDeadlinePolicy({
        blocked: { deadline: '1d', reminders, escalation: 'alert', businessDays: undefined },
        unconfirmed: null,
        awaitingClient: undefined,
      });
      assert.deepEqual(checked, {
        blocked: { deadline: '1d', reminders: ['1h'], escalation: 'alert' },
        unconfirmed: null,
      });
      assert.ok(!('businessDays' in checked.blocked));
      assert.notEqual(checked.blocked.reminders, reminders);
      assert.throws(
        () => checkDeadlinePolicy({ blocked: { deadline: 'x' } }),
        (error: unknown) =>
          error instanceof DeadlinePolicyError &&
          error.message.startsWith('invalid deadline policy: blocked.deadline: "x" is not a duration'),
      );
    });
  });

  it('gives an abandoned application a reason that names the state and the deadline', function () {
    assert.equal(
      escalationReason('needsCorrection', DEFAULT_DEADLINE_POLICY.needsCorrection),
      'deadline passed: needsCorrection for longer than 10 business days',
    );
    assert.equal(
      escalationReason('needsDocuments', { deadline: '30d', reminders: [], escalation: 'abandon' }),
      'deadline passed: needsDocuments for longer than 30d',
    );
  });
});

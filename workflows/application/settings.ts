import type { Duration } from '@temporalio/common';
import { durationMs } from '../../domain/durations.js';
import { lookPace } from '../requests.js';
import type { RequestPace } from '../requests.js';
import type { PollCadence } from '../lifecycle/index.js';

/** How an application workflow paces itself; every field has a default. */
export interface LifecycleSettings {
  /**
   * Poll interval per waiting state; polls fall on shared wall-clock slots of this length. The
   * approval queue is checked on the next business day unless `approval` is set (compressed time).
   */
  pollIntervals: Record<Exclude<PollCadence, 'approval'>, Duration> & { approval?: Duration };
  /** Time of day (UTC, `HH:MM`) of the approval check on the next business day. */
  approvalCheckTime: string;
  /** How long an abandoned application waits for a reset before the workflow ends. */
  abandonedRetention: Duration;
  /** Continue-as-new after this many history events (or earlier when the server suggests it). */
  continueAsNewAfterEvents: number;
  /**
   * How long a request sent with update may stay unlisted or PENDING in getAmRequestStatus before the
   * application stops in `unconfirmed` for staff.
   */
  requestConfirmTimeout: Duration;
  /** The first wait between reads of a request that is PENDING; each next one doubles, up to 30 minutes (also its cap). */
  requestPollInterval: Duration;
  /**
   * How long a write whose outcome is not established yet is looked for before the application stops in
   * `unconfirmed` for staff: a create whose answer was lost (getResponseFile by external id), a processed
   * create whose account is not found yet (getAccountStatus over the creation days + getFileDetails), an
   * update whose answer was lost (getAmRequestStatus by account). The spec promises no time within which
   * a processed write is listed; nothing is sent again meanwhile.
   */
  lostAnswerWindow: Duration;
  /** The first wait between those looks; each next one doubles, up to 10 minutes. */
  createConfirmInterval: Duration;
  /**
   * Where a waiting application learns that its account changed. `sweep`: the firm's status sweep
   * (workflows/sweep) reads every pending account of the firm once a slot and wakes only the
   * applications whose account changed; the application reads its account itself only on `pollNow`
   * and after `safetyPollInterval` without a wake-up. `poll`: every application reads its own account
   * each `pollIntervals` slot.
   */
  statusSource: 'sweep' | 'poll';
  /** In `sweep` mode: an application's own read after this long without a wake-up (a stopped sweep strands none). */
  safetyPollInterval: Duration;
  /**
   * How long the documents of a finished application stay in the store (application XMLs, PDFs, an
   * untaken response file with temporary passwords) before a `documentRetention` workflow deletes
   * them; `null` deletes nothing.
   */
  // eslint-disable-next-line @typescript-eslint/no-redundant-type-constituents -- the linter reads `ms`'s StringValue as any
  documentRetention: Duration | null;
}

export const DEFAULT_SETTINGS: LifecycleSettings = {
  pollIntervals: { tracking: '15 minutes', documents: '1 hour', portal: '1 hour' },
  approvalCheckTime: '06:00',
  abandonedRetention: '30 days',
  continueAsNewAfterEvents: 2_000,
  requestConfirmTimeout: '2 days',
  requestPollInterval: '1 minute',
  lostAnswerWindow: '1 hour',
  createConfirmInterval: '1 minute',
  statusSource: 'sweep',
  safetyPollInterval: '1 day',
  documentRetention: '30 days',
};

/** What a caller may override: any field, and any single poll interval. */
export type SettingsOverrides = Partial<Omit<LifecycleSettings, 'pollIntervals'>> & {
  pollIntervals?: Partial<LifecycleSettings['pollIntervals']>;
};

/** Longest duration a setting takes (timers and slots are computed in ms): ten years. */
const MAX_SETTING_MS = 10 * 365 * 24 * 60 * 60 * 1000;

/** Why `value` is not a positive duration of at most ten years, or undefined. */
function durationProblem(name: string, value: unknown): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return `${name} must be a duration such as '15 minutes'`;
  let millis: number;
  try {
    millis = durationMs(value as Duration);
  } catch {
    return `${name} must be a duration such as '15 minutes', not ${JSON.stringify(value)}`;
  }
  // Timers resolve to the millisecond: a fraction of one could put a slot boundary on now itself.
  if (!(millis >= 1) || millis > MAX_SETTING_MS)
    return `${name} must be positive (at least 1 ms) and at most 10 years, not ${JSON.stringify(value)}`;
  if (!Number.isInteger(millis)) return `${name} must be whole milliseconds, not ${JSON.stringify(value)}`;
  return undefined;
}

const DURATIONS = [
  'abandonedRetention',
  'requestConfirmTimeout',
  'requestPollInterval',
  'lostAnswerWindow',
  'createConfirmInterval',
  'safetyPollInterval',
] as const;

/**
 * What is wrong with settings overrides (empty when nothing is): checked by the client before a start
 * and by the workflow in its first task, so that a bad value is refused with its name instead of
 * failing the workflow's tasks over and over.
 */
export function settingsProblems(overrides: unknown): string[] {
  if (overrides === undefined || overrides === null) return [];
  if (typeof overrides !== 'object' || Array.isArray(overrides)) return ['settings must be an object'];
  const given = overrides as Record<string, unknown>;
  // Each check adds its problem, or undefined when the value is fine.
  const problems: Array<string | undefined> = Object.keys(given)
    .filter((key) => !(key in DEFAULT_SETTINGS))
    .map((key) => `settings.${key} is not a setting (${Object.keys(DEFAULT_SETTINGS).join(', ')})`);
  const intervals = given.pollIntervals;
  if (intervals !== undefined) {
    if (typeof intervals !== 'object' || intervals === null || Array.isArray(intervals)) {
      problems.push('settings.pollIntervals must be an object of durations');
    } else {
      for (const [cadence, value] of Object.entries(intervals)) {
        problems.push(
          ['tracking', 'documents', 'portal', 'approval'].includes(cadence)
            ? durationProblem(`settings.pollIntervals.${cadence}`, value)
            : `settings.pollIntervals.${cadence} is not a poll interval (tracking, documents, portal, approval)`,
        );
      }
    }
  }
  for (const name of DURATIONS) {
    if (given[name] !== undefined) problems.push(durationProblem(`settings.${name}`, given[name]));
  }
  if (given.documentRetention !== undefined && given.documentRetention !== null) {
    problems.push(durationProblem('settings.documentRetention', given.documentRetention));
  }
  const time = given.approvalCheckTime;
  if (time !== undefined && !(typeof time === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(time))) {
    problems.push(`settings.approvalCheckTime must be HH:MM (UTC), not ${JSON.stringify(time)}`);
  }
  const events = given.continueAsNewAfterEvents;
  if (events !== undefined && !(Number.isInteger(events) && (events as number) >= 10 && (events as number) <= 50_000)) {
    problems.push(
      `settings.continueAsNewAfterEvents must be a whole number from 10 to 50000, not ${JSON.stringify(events)}`,
    );
  }
  const source = given.statusSource;
  if (source !== undefined && source !== 'sweep' && source !== 'poll') {
    problems.push(`settings.statusSource must be 'sweep' or 'poll', not ${JSON.stringify(source)}`);
  }
  return problems.filter((problem): problem is string => problem !== undefined);
}

export function resolveSettings(overrides: SettingsOverrides | undefined): LifecycleSettings {
  return {
    ...DEFAULT_SETTINGS,
    ...overrides,
    pollIntervals: { ...DEFAULT_SETTINGS.pollIntervals, ...overrides?.pollIntervals },
  };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** The first slot boundary after `now`: workflows with the same interval wake together. */
export function nextSlot(now: number, interval: Duration): number {
  const ms = durationMs(interval);
  if (!(ms > 0)) throw new RangeError(`a poll interval must be positive, got ${String(interval)}`);
  const next = (Math.floor(now / ms) + 1) * ms;
  // Rounding can land a boundary on now itself (a fraction of a millisecond): the slot after it, then.
  return next > now ? next : next + ms;
}

/** The approval check time on the next business day (Monday to Friday, UTC) after `now`. */
export function nextBusinessDayCheck(now: number, checkTime: string): number {
  const match = /^(\d{2}):(\d{2})$/.exec(checkTime);
  if (!match) throw new TypeError(`approvalCheckTime must be HH:MM, got "${checkTime}"`);
  const offset = (Number(match[1]) * 60 + Number(match[2])) * 60_000;
  let day = Math.floor(now / DAY_MS) * DAY_MS + DAY_MS;
  while ([0, 6].includes(new Date(day).getUTCDay())) day += DAY_MS;
  return day + offset;
}

export function nextPollAt(now: number, cadence: PollCadence, settings: LifecycleSettings): number {
  if (cadence === 'approval' && settings.pollIntervals.approval === undefined) {
    return nextBusinessDayCheck(now, settings.approvalCheckTime);
  }
  return nextSlot(now, durationMs(settings.pollIntervals[cadence] ?? 0));
}

/** In `sweep` mode, when an application reads its account itself if no wake-up came. */
export function nextSafetyPollAt(now: number, settings: LifecycleSettings): number {
  return nextSlot(now, durationMs(settings.safetyPollInterval));
}

/** The looks at a write in doubt: `createConfirmInterval` doubling, within `lostAnswerWindow` from `began`. */
export function lookPaceOf(settings: LifecycleSettings, began: number): RequestPace {
  return lookPace(durationMs(settings.createConfirmInterval), durationMs(settings.lostAnswerWindow), began);
}

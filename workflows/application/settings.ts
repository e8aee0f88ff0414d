import type { Duration } from '@temporalio/common';
import { durationMs } from '../../domain/durations.js';
import { lookPace } from '../requests.js';
import type { RequestPace } from '../requests.js';

/** How an application workflow paces itself; every field has a default. */
export interface LifecycleSettings {
  /**
   * `tracking`: the slot of the firm's status sweep (workflows/sweep) when a start of this application
   * begins it; a sweep already running keeps its own, and a client's `sweepInterval` comes first.
   */
  pollIntervals: { tracking: Duration };
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
   * A waiting application learns that its account changed from the firm's status sweep (workflows/sweep),
   * which reads every pending account of the firm once a slot and wakes only the applications whose
   * account changed. The application reads its account itself only on `pollNow` and after this long
   * without a wake-up (a stopped sweep strands none).
   */
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
  pollIntervals: { tracking: '15 minutes' },
  abandonedRetention: '30 days',
  continueAsNewAfterEvents: 2_000,
  requestConfirmTimeout: '2 days',
  requestPollInterval: '1 minute',
  lostAnswerWindow: '1 hour',
  createConfirmInterval: '1 minute',
  safetyPollInterval: '1 day',
  documentRetention: '30 days',
};

/** What a caller may override: any field. */
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
          cadence === 'tracking'
            ? durationProblem(`settings.pollIntervals.${cadence}`, value)
            : `settings.pollIntervals.${cadence} is not a poll interval (tracking)`,
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
  const events = given.continueAsNewAfterEvents;
  if (events !== undefined && !(Number.isInteger(events) && (events as number) >= 10 && (events as number) <= 50_000)) {
    problems.push(
      `settings.continueAsNewAfterEvents must be a whole number from 10 to 50000, not ${JSON.stringify(events)}`,
    );
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

/** The first slot boundary after `now`: workflows with the same interval wake together. */
export function nextSlot(now: number, interval: Duration): number {
  const ms = durationMs(interval);
  if (!(ms > 0)) throw new RangeError(`a poll interval must be positive, got ${String(interval)}`);
  const next = (Math.floor(now / ms) + 1) * ms;
  // Rounding can land a boundary on now itself (a fraction of a millisecond): the slot after it, then.
  return next > now ? next : next + ms;
}

/** When an application reads its account itself if no wake-up came. */
export function nextSafetyPollAt(now: number, settings: LifecycleSettings): number {
  return nextSlot(now, durationMs(settings.safetyPollInterval));
}

/** The looks at a write in doubt: `createConfirmInterval` doubling, within `lostAnswerWindow` from `began`. */
export function lookPaceOf(settings: LifecycleSettings, began: number): RequestPace {
  return lookPace(durationMs(settings.createConfirmInterval), durationMs(settings.lostAnswerWindow), began);
}

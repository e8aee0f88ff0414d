/**
 * Simulated time for the stand-in brokerage.
 *
 * Business time runs `timeScale` times faster than real time and can jump forward through the
 * control API, so that days of account opening pass in seconds. SSO URLs are different: their
 * 60-second validity is meant for a person clicking a link, so it is measured on a "wall" clock that
 * runs at real speed and only moves faster through explicit jumps.
 */

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The last instant the wire's timestamps can write (`YYYY-MM-DD HH:MM:SS` has a four-digit year): simulated time
 * stops there. A jump past it is refused; a time scale that would run past it holds there.
 */
export const LATEST_SIMULATED_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** What a data dir keeps of the clock, so that simulated time carries on across a restart. */
export interface ClockSnapshot {
  /** Simulated epoch ms at `realAnchor`. */
  simAnchor: number;
  /** Real epoch ms at which `simAnchor` held. */
  realAnchor: number;
  timeScale: number;
  /** Sum of explicit jumps, applied to the wall clock too. */
  jumpedMs: number;
}

export interface ClockOptions {
  /** Simulated epoch ms to start from; real time by default. */
  start?: number;
  timeScale?: number;
  /** Injected for tests of the clock itself. */
  realNow?: () => number;
}

export class SimClock {
  #simAnchor: number;
  #realAnchor: number;
  #timeScale: number;
  #jumpedMs = 0;
  readonly #realNow: () => number;

  constructor(options: ClockOptions = {}) {
    this.#realNow = options.realNow ?? Date.now;
    this.#realAnchor = this.#realNow();
    this.#simAnchor = options.start ?? this.#realAnchor;
    this.#timeScale = checkScale(options.timeScale ?? 1);
  }

  /** Resumes a saved clock: the time that passed while the simulator was down counts at the old scale. */
  static restore(snapshot: ClockSnapshot, options: { timeScale?: number; realNow?: () => number } = {}): SimClock {
    const realNow = options.realNow ?? Date.now;
    const now = snapshot.simAnchor + (realNow() - snapshot.realAnchor) * snapshot.timeScale;
    const clock = new SimClock({ start: now, timeScale: options.timeScale ?? snapshot.timeScale, realNow });
    clock.#jumpedMs = snapshot.jumpedMs;
    return clock;
  }

  /** Simulated epoch ms. */
  now(): number {
    return Math.min(this.#simAnchor + (this.#realNow() - this.#realAnchor) * this.#timeScale, LATEST_SIMULATED_MS);
  }

  /** Real epoch ms plus explicit jumps: the clock of SSO URL validity. */
  wallNow(): number {
    return this.#realNow() + this.#jumpedMs;
  }

  get timeScale(): number {
    return this.#timeScale;
  }

  /** Jumps simulated time (and the wall clock) forward. */
  advance(ms: number): number {
    if (!Number.isFinite(ms) || ms < 0) throw new RangeError('the clock only moves forward');
    if (this.now() + ms > LATEST_SIMULATED_MS) throw new RangeError('the clock cannot move past 9999-12-31');
    this.#reanchor();
    this.#simAnchor += ms;
    this.#jumpedMs += ms;
    return this.now();
  }

  setTimeScale(timeScale: number): void {
    this.#reanchor();
    this.#timeScale = checkScale(timeScale);
  }

  snapshot(): ClockSnapshot {
    return {
      simAnchor: this.#simAnchor,
      realAnchor: this.#realAnchor,
      timeScale: this.#timeScale,
      jumpedMs: this.#jumpedMs,
    };
  }

  #reanchor(): void {
    this.#simAnchor = this.now();
    this.#realAnchor = this.#realNow();
  }
}

function checkScale(timeScale: number): number {
  if (!Number.isFinite(timeScale) || timeScale <= 0) throw new RangeError('timeScale must be a positive number');
  return timeScale;
}

/** Monday to Friday, in UTC: the simulated brokerage keeps no holiday calendar. */
export function isBusinessDay(epochMs: number): boolean {
  const day = new Date(epochMs).getUTCDay();
  return day !== 0 && day !== 6;
}

/** `hourUtc` o'clock on the first business day strictly after the day of `epochMs`. */
export function nextBusinessDayAt(epochMs: number, hourUtc: number): number {
  const startOfDay = Math.floor(epochMs / DAY_MS) * DAY_MS;
  let day = startOfDay + DAY_MS;
  while (!isBusinessDay(day)) day += DAY_MS;
  return day + hourUtc * HOUR_MS;
}

/** Parses a duration given to the control API as milliseconds or as `{ days, hours, minutes, seconds }`. */
export interface DurationParts {
  ms?: number;
  seconds?: number;
  minutes?: number;
  hours?: number;
  days?: number;
  businessDays?: number;
}

/** The milliseconds of `parts` counted from `from`; infinite when they end past the last instant the clock shows. */
export function durationMs(parts: DurationParts, from: number): number {
  let total =
    (parts.ms ?? 0) +
    (parts.seconds ?? 0) * 1000 +
    (parts.minutes ?? 0) * 60_000 +
    (parts.hours ?? 0) * HOUR_MS +
    (parts.days ?? 0) * DAY_MS;
  let businessDays = parts.businessDays ?? 0;
  let at = from + total;
  // Each business day is at least a day: a duration past the last instant is infinite, before any counting.
  if (!(at + Math.max(businessDays, 0) * DAY_MS <= LATEST_SIMULATED_MS)) return Number.POSITIVE_INFINITY;
  // Any seven days in a row hold five business days: whole weeks are skipped, the rest counted day by day.
  const weeks = Math.max(Math.floor((businessDays - 1) / 5), 0);
  at += weeks * 7 * DAY_MS;
  businessDays -= weeks * 5;
  while (businessDays > 0) {
    at += DAY_MS;
    if (isBusinessDay(at)) businessDays -= 1;
  }
  total = at - from;
  return at > LATEST_SIMULATED_MS ? Number.POSITIVE_INFINITY : total;
}

export { DAY_MS, HOUR_MS };

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
    return this.#simAnchor + (this.#realNow() - this.#realAnchor) * this.#timeScale;
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
    const real = this.#realNow();
    this.#simAnchor += (real - this.#realAnchor) * this.#timeScale;
    this.#realAnchor = real;
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

export function durationMs(parts: DurationParts, from: number): number {
  let total =
    (parts.ms ?? 0) +
    (parts.seconds ?? 0) * 1000 +
    (parts.minutes ?? 0) * 60_000 +
    (parts.hours ?? 0) * HOUR_MS +
    (parts.days ?? 0) * DAY_MS;
  let businessDays = parts.businessDays ?? 0;
  let at = from + total;
  while (businessDays > 0) {
    at += DAY_MS;
    if (isBusinessDay(at)) businessDays -= 1;
  }
  total = at - from;
  return total;
}

export { DAY_MS, HOUR_MS };

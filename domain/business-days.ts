/**
 * Business days: Monday to Friday in UTC, no holidays. Pure and clock-free, so that workflows can set
 * their deadline timers with it (domain/deadlines.ts).
 *
 * The rule: `addBusinessDays(t, n)` moves `t` forward by `n` weekdays, keeping its time of day. A time
 * on a Saturday or Sunday first moves to the next Monday 00:00 UTC, so that a weekend entry counts as
 * an entry at the start of the week. Examples (UTC):
 *
 * | entered              | + 1 business day | + 5 business days |
 * | -------------------- | ---------------- | ----------------- |
 * | Mon 09:30            | Tue 09:30        | next Mon 09:30    |
 * | Fri 15:00            | Mon 15:00        | next Fri 15:00    |
 * | Sat 10:00, Sun 23:59 | Tue 00:00        | next Mon 00:00    |
 *
 * A result therefore always falls on a weekday, and a later start never gives an earlier result.
 */

export const DAY_MS = 24 * 60 * 60 * 1000;

/** 0 (Sunday) to 6 (Saturday) of the UTC day that `epochMs` falls in. */
function weekday(epochMs: number): number {
  return new Date(epochMs).getUTCDay();
}

function isWeekend(epochMs: number): boolean {
  const day = weekday(epochMs);
  return day === 0 || day === 6;
}

/** `epochMs`, or the next Monday 00:00 UTC when it falls on a weekend. */
export function businessStart(epochMs: number): number {
  if (!isWeekend(epochMs)) return epochMs;
  const midnight = Math.floor(epochMs / DAY_MS) * DAY_MS;
  return midnight + (weekday(epochMs) === 6 ? 2 : 1) * DAY_MS;
}

/** `epochMs` plus `days` business days (a whole number, 0 or more), by the rule above. */
export function addBusinessDays(epochMs: number, days: number): number {
  if (!Number.isFinite(epochMs)) throw new RangeError(`expected a time in milliseconds, got ${epochMs}`);
  if (!Number.isInteger(days) || days < 0) {
    throw new RangeError(`expected a whole number of business days (0 or more), got ${days}`);
  }
  let at = businessStart(epochMs);
  // Whole weeks first (five business days each, any weekday to the same weekday), then the rest.
  at += Math.floor(days / 5) * 7 * DAY_MS;
  for (let left = days % 5; left > 0;) {
    at += DAY_MS;
    if (!isWeekend(at)) left--;
  }
  return at;
}

/**
 * Calendar days of a firm (`yyyy-mm-dd` in an IANA time zone). Pure: used by workflows (the day a
 * submission belongs to, the end of a grace period) and by activities (is a record of today?).
 */

/** The calendar day of `epochMs` in `timeZone`, as `yyyy-mm-dd`. */
export function dayIn(epochMs: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).formatToParts(new Date(epochMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')}`;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `day` plus `days` calendar days. */
export function addDays(day: string, days: number): string {
  const match = DAY.exec(day);
  if (!match) throw new TypeError(`expected a day as yyyy-mm-dd, got "${day}"`);
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]) + days));
  return date.toISOString().slice(0, 10);
}

export function isDay(value: unknown): value is string {
  return typeof value === 'string' && DAY.test(value) && addDays(value, 0) === value;
}

/** A time zone the runtime knows (`Europe/Zurich`, `UTC`...). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value === '') return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

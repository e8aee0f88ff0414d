/**
 * The brokerage's maintenance windows, when no call should go out: spans of a week on a time zone's
 * clock, every day (`03:00-03:30`) or on one weekday (`Sun 22:00-02:00`: Sunday 22:00 to Monday
 * 02:00). A window that ends at or before its start runs past midnight. Pure: the call budget
 * (runtime/call-budget.ts) asks whether an instant is inside one, and until when.
 *
 * Local time is read from the time zone at the instant asked about; a window that spans a change of
 * daylight saving time is off by the hour the clock moved.
 */

export interface MaintenanceWindow {
  /** 0 (Sunday) to 6, or every day when absent. */
  weekday?: number;
  /** Minutes after local midnight. */
  startMinute: number;
  /** Length in minutes, 1 to 1,440. */
  minutes: number;
}

export class MaintenanceWindowError extends Error {
  constructor(readonly part: string) {
    super(`maintenance window "${part}": expected HH:MM-HH:MM, optionally after a weekday (Sun 22:00-02:00)`);
    this.name = 'MaintenanceWindowError';
  }
}

const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const MINUTE_MS = 60_000;
const WEEK_MINUTES = 7 * 1440;
const PART = /^(?:([a-z]{3})\s+)?([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]|24):([0-5]\d)$/i;

/** `03:00-03:30; Sun 22:00-02:00` (`;` or `,` between windows); an empty text is no window. */
export function parseMaintenanceWindows(text: string): MaintenanceWindow[] {
  return text
    .split(/[;,]/)
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const match = PART.exec(part);
      if (!match) throw new MaintenanceWindowError(part);
      const [, day, startHour, startMinute, endHour, endMinute] = match;
      const weekday = day === undefined ? undefined : WEEKDAYS.indexOf(day.toLowerCase());
      if (weekday === -1) throw new MaintenanceWindowError(part);
      const start = Number(startHour) * 60 + Number(startMinute);
      const end = Number(endHour) * 60 + Number(endMinute);
      if (end > 1440) throw new MaintenanceWindowError(part);
      const minutes = end > start ? end - start : end + 1440 - start;
      return { ...(weekday !== undefined && { weekday }), startMinute: start, minutes };
    });
}

/** Milliseconds since the start of the local week (Sunday 00:00) of `epochMs` in `timeZone`. */
function localWeekMs(epochMs: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(epochMs));
  const part = (type: Intl.DateTimeFormatPartTypes) => parts.find((candidate) => candidate.type === type)?.value ?? '';
  const weekday = WEEKDAYS.indexOf(part('weekday').toLowerCase());
  const seconds = ((weekday * 24 + Number(part('hour'))) * 60 + Number(part('minute'))) * 60 + Number(part('second'));
  return seconds * 1000 + (((epochMs % 1000) + 1000) % 1000);
}

/** When the window `epochMs` is in ends (the latest, if windows overlap); undefined outside every window. */
export function maintenanceEnd(
  windows: readonly MaintenanceWindow[],
  epochMs: number,
  timeZone: string,
): number | undefined {
  if (windows.length === 0) return undefined;
  const now = localWeekMs(epochMs, timeZone);
  let end: number | undefined;
  for (const window of windows) {
    const days = window.weekday === undefined ? [0, 1, 2, 3, 4, 5, 6] : [window.weekday];
    for (const day of days) {
      const start = (day * 1440 + window.startMinute) * MINUTE_MS;
      const into =
        (((now - start) % (WEEK_MINUTES * MINUTE_MS)) + WEEK_MINUTES * MINUTE_MS) % (WEEK_MINUTES * MINUTE_MS);
      if (into < window.minutes * MINUTE_MS) {
        const ends = epochMs + window.minutes * MINUTE_MS - into;
        end = Math.max(end ?? ends, ends);
      }
    }
  }
  return end;
}

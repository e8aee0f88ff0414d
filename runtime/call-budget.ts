/**
 * The firm's budget of brokerage calls, shared by every worker through the engine's database: at most
 * N calls a second in all and per operation, as the firm configures (no cap unless it does). The spec
 * names no limit; the brokerage's newer API documents 10 requests/s per endpoint and 600 a minute per
 * master account.
 *
 * Calls are spaced, not counted: each takes the next free slot of its scopes (`*` and its operation)
 * in one transaction that locks the scopes' rows in a fixed order, and goes out at its slot. A call
 * that would go out more than `LATE_MS` after its slot (its process was busy when the slot came) takes
 * a new one instead, and slots are spaced (1000 + 2 × LATE_MS) / N ms apart: so however late within
 * that allowance calls leave, no second holds more than N as they leave (what the network adds is
 * outside the engine; the workers' clocks must agree within `LATE_MS`). A call whose slot is further
 * away than `maxWaitMs` is not sent at all: `CallPutOff` says when to try again (the client throws it on as
 * its protocol's `put-off` error, and its activity is retried then, see activities/brokerage-errors.ts), so that no activity waits long
 * inside its timeout. A call that falls in one of the brokerage's maintenance windows
 * (`ECA_MAINTENANCE_WINDOWS`) is deferred the same way, to the window's end: waits that come due in a
 * window move past it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { CallPutOff } from '../domain/brokerage-errors.js';
import type { EcaOperation } from '../eca/index.js';
import type { Database } from './database/index.js';
import { maintenanceEnd, parseMaintenanceWindows } from '../domain/maintenance-windows.js';
import type { MaintenanceWindow } from '../domain/maintenance-windows.js';

export interface CallBudgetSettings {
  /** Calls a second in all. */
  perSecond?: number;
  /** Calls a second per operation. */
  perOperation?: Partial<Record<EcaOperation, number>>;
  /** The longest a call waits for its slot; a later slot defers it. */
  maxWaitMs: number;
  /** The brokerage's maintenance windows: a call is deferred to the window's end (domain/maintenance-windows.ts). */
  maintenance?: { windows: readonly MaintenanceWindow[]; timeZone: string };
}

/** How late after its slot a call may still go out; a later one takes a new slot. */
export const LATE_MS = 25;

/** The spacing of slots for N calls a second: the lateness allowed, on both sides of a second, included. */
export function slotSpacingMs(perSecond: number): number {
  return Math.ceil((1000 + 2 * LATE_MS) / perSecond);
}

/** The scope of every call, beside each operation's own. */
const ALL = '*';

export interface CallBudget {
  /** Waits for the call's slot (EcaClientOptions.pace), or throws CallPutOff when it is too far. */
  readonly pace: (operation: EcaOperation, signal?: AbortSignal) => Promise<void>;
}

/** Whether the settings cap anything or close any window: otherwise the engine's calls are not paced. */
export function pacesCalls(settings: CallBudgetSettings): boolean {
  return (
    settings.perSecond !== undefined ||
    Object.keys(settings.perOperation ?? {}).length > 0 ||
    (settings.maintenance?.windows.length ?? 0) > 0
  );
}

/** The budget a worker's configuration asks for (runtime/config.ts: ECA_CALLS_PER_SECOND…). */
export function callBudgetOf(config: {
  callsPerSecond?: number;
  callsPerSecondByOperation?: Partial<Record<EcaOperation, number>>;
  callWaitMaxMs: number;
  maintenanceWindows?: string;
  maintenanceTimeZone: string;
}): CallBudgetSettings {
  const windows = parseMaintenanceWindows(config.maintenanceWindows ?? '');
  return {
    ...(config.callsPerSecond !== undefined && { perSecond: config.callsPerSecond }),
    ...(config.callsPerSecondByOperation && { perOperation: config.callsPerSecondByOperation }),
    maxWaitMs: config.callWaitMaxMs,
    ...(windows.length > 0 && { maintenance: { windows, timeZone: config.maintenanceTimeZone } }),
  };
}

/** `10/s in all, create 2/s`: for the worker's start line. */
export function describeBudget(settings: CallBudgetSettings): string {
  return [
    ...(settings.perSecond !== undefined ? [`${settings.perSecond}/s in all`] : []),
    ...Object.entries(settings.perOperation ?? {}).map(([operation, n]) => `${operation} ${n}/s`),
    ...(settings.maintenance
      ? [`${settings.maintenance.windows.length} maintenance window(s) in ${settings.maintenance.timeZone}`]
      : []),
  ].join(', ');
}

export function createCallBudget(
  db: Database,
  csid: string,
  settings: CallBudgetSettings,
  clock: { now: () => number; sleep: (ms: number, signal?: AbortSignal) => Promise<void> } = {
    now: Date.now,
    sleep: (ms, signal) => delay(ms, undefined, { signal }),
  },
): CallBudget {
  function scopesOf(operation: EcaOperation): { scope: string; spacingMs: number }[] {
    const own = settings.perOperation?.[operation];
    return [
      ...(settings.perSecond !== undefined ? [{ scope: ALL, spacingMs: slotSpacingMs(settings.perSecond) }] : []),
      ...(own !== undefined ? [{ scope: operation, spacingMs: slotSpacingMs(own) }] : []),
    ].sort((a, b) => (a.scope < b.scope ? -1 : 1));
  }

  /** Defers the call to the end of the maintenance window it falls in, if any. */
  function closedUntil(): void {
    if (!settings.maintenance) return;
    const now = clock.now();
    const end = maintenanceEnd(settings.maintenance.windows, now, settings.maintenance.timeZone);
    if (end !== undefined) throw new CallPutOff(end - now, 'the brokerage is in a maintenance window');
  }

  /** The call's slot: reserved when within `maxWaitMs`, only looked at otherwise. */
  function reserve(scopes: { scope: string; spacingMs: number }[]): Promise<{ at: number; reserved: boolean }> {
    const names = scopes.map(({ scope }) => scope);
    return db.transaction(async (tx) => {
      await tx.query(
        'INSERT INTO call_budget (csid, scope, next_at) SELECT $1, scope, 0 FROM unnest($2::text[]) AS scope ON CONFLICT DO NOTHING',
        [csid, names],
      );
      const rows = await tx.query<{ next_at: string }>(
        'SELECT next_at FROM call_budget WHERE csid = $1 AND scope = ANY($2::text[]) ORDER BY scope COLLATE "C" FOR UPDATE',
        [csid, names],
      );
      const now = clock.now();
      const at = Math.max(now, ...rows.map((row) => Number(row.next_at)));
      if (at - now > settings.maxWaitMs) return { at, reserved: false };
      await tx.query(
        `UPDATE call_budget AS b SET next_at = v.next_at
           FROM unnest($2::text[], $3::bigint[]) AS v(scope, next_at)
          WHERE b.csid = $1 AND b.scope = v.scope`,
        [csid, names, scopes.map(({ spacingMs }) => String(at + spacingMs))],
      );
      return { at, reserved: true };
    });
  }

  return {
    async pace(operation, signal) {
      closedUntil();
      const scopes = scopesOf(operation);
      if (scopes.length === 0) return;
      for (;;) {
        const { at, reserved } = await reserve(scopes);
        const wait = at - clock.now();
        if (!reserved) throw new CallPutOff(wait, "the firm's call budget is taken for now");
        if (wait > 0) await clock.sleep(wait, signal);
        if (clock.now() - at <= LATE_MS) break;
      }
      closedUntil(); // a window that opened while the call waited for its slot
    },
  };
}

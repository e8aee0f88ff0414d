/** What every operation handler receives, and the shared request checks. */
import { z } from 'zod';
import { serviceTimeZones, timestamp } from '../formats/wire-text.js';
import type { BrokerageKeys, FirmKeyCache } from '../keys.js';
import type { FirmRecord } from '../model.js';
import type { SsoSessions } from '../sso-sessions.js';
import type { Store } from '../store.js';

export type SimulatorEnv = 'qa' | 'prod';

export interface OperationContext {
  store: Store;
  keys: BrokerageKeys;
  firmKeys: FirmKeyCache;
  sso: SsoSessions;
  env: SimulatorEnv;
  /** Base of the hosted portal, e.g. `http://127.0.0.1:8700/portal`. */
  portalUrl: string;
}

export interface OperationRequest {
  body: unknown;
  /** The caller's address as the socket sees it. */
  ip: string;
}

export interface OperationResult {
  status: number;
  body: unknown;
}

export type Operation = (
  ctx: OperationContext,
  request: OperationRequest,
) => OperationResult | Promise<OperationResult>;

/** A request the service refuses as a whole (as opposed to per-account errors inside a 200 answer). */
export class RequestRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function ok(body: unknown): OperationResult {
  return { status: 200, body };
}

/** An answer's `timestamp`: now, in the service's time zone (serviceTimeZones). */
export function nowText(ctx: OperationContext): string {
  return timestamp(ctx.store.now(), serviceTimeZones(ctx.store.unpromised).timestampOffsetMs);
}

/** Parses the body with `schema`; a failure names the first offending field. */
export function parseBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join('.') || 'body';
  throw new RequestRefused(400, `Invalid request: ${field}: ${issue?.message ?? 'invalid'}`);
}

export function firmOf(ctx: OperationContext, csid: string): FirmRecord {
  const firm = ctx.store.firms.get(csid);
  if (!firm) throw new RequestRefused(401, 'Invalid CSID: the client service id is not registered');
  return firm;
}

export const csidField = z.string().min(1);

/** A single account may be sent as a plain string. */
export const accountIdsField = z
  .union([z.string().min(1), z.array(z.string())])
  .transform((value) => (typeof value === 'string' ? [value] : value));

export function notAssociated(accountId: string, firm: FirmRecord): string {
  return `Account ${accountId} is not associated with the advisor or broker account ${firm.masterAccount}`;
}

/** `yyyy-mm-dd` naming a day of the calendar: `2024-02-30` has the form but is no date. */
export function isCalendarDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** A numeric string (digits only), the type the spec gives `formNumber` in the account queries. */
export const numericStringField = z.string().regex(/^\d+$/, 'expected a numeric string');

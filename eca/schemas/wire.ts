/**
 * The wire's primitive types (booleans sent as text, numbers or text, timestamps, status codes) and the helpers
 * that build every per-entry schema: unknown fields kept in `extra`, the shared per-account fields normalised.
 */
import { z } from 'zod';
import { parseAccountStatus, parseTimestamp } from '../types.js';

// ---------------------------------------------------------------------------------------------------------------
// Primitive wire types

export const wireBoolean = z
  .union([z.boolean(), z.string().regex(/^\s*(true|false)\s*$/i, 'expected true or false')])
  .transform((value) => (typeof value === 'boolean' ? value : value.trim().toLowerCase() === 'true'));
export const optionalBoolean = wireBoolean.nullish().transform((value) => value ?? undefined);
export const wireText = z.union([z.string(), z.number()]).transform((value) => String(value));
export const optionalText = wireText
  .nullish()
  .transform((value) => (value === null || value === undefined ? undefined : value));
export const optionalNonEmptyText = optionalText.transform((value) =>
  value === undefined || value.trim() === '' ? undefined : value,
);
export const optionalTimestamp = wireText
  .nullish()
  .transform((value) =>
    value === null || value === undefined || value.trim() === '' ? undefined : parseTimestamp(value),
  );
export const optionalStatusCode = optionalNonEmptyText.transform((value) =>
  value === undefined ? undefined : parseAccountStatus(value),
);
export const optionalNumberOrText = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((value) => {
    if (value === null || value === undefined || value === '') return undefined;
    return typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : value;
  });

export type Extra = Record<string, unknown>;

export function extraFields(value: Record<string, unknown>, known: ReadonlySet<string>): Extra {
  const extra: Extra = {};
  for (const [key, inner] of Object.entries(value)) if (!known.has(key)) extra[key] = inner;
  return extra;
}

/** Drops undefined members so normalised objects only carry fields the wire had. */
export function compact<T extends object>(value: T): T {
  for (const key of Object.keys(value) as Array<keyof T>) if (value[key] === undefined) delete value[key];
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// Per-account entry fields shared by every list

export const ACCOUNT_ID_ALIASES = [
  'acctId',
  'accountId',
  'Account ID',
  'AccountID',
  'accountID',
  'acctID',
  'account_id',
] as const;
export const ERROR_ALIASES = ['error', 'Error', 'ERROR', 'errorMessage'] as const;

export const entryCommonShape = {
  ...Object.fromEntries(ACCOUNT_ID_ALIASES.map((alias) => [alias, optionalNonEmptyText])),
  ...Object.fromEntries(ERROR_ALIASES.map((alias) => [alias, optionalText])),
  isError: optionalBoolean,
} as Record<(typeof ACCOUNT_ID_ALIASES)[number] | (typeof ERROR_ALIASES)[number], typeof optionalText> & {
  isError: typeof optionalBoolean;
};

export interface EntryCommon {
  isError: boolean;
  error?: string;
}

export function commonOf(value: Record<string, unknown>): EntryCommon & { accountId: string | undefined } {
  const pick = (aliases: readonly string[]): string | undefined =>
    aliases.map((alias) => value[alias]).find((inner): inner is string => typeof inner === 'string');
  const error = pick(ERROR_ALIASES);
  const isError = value.isError === true;
  const common: EntryCommon & { accountId: string | undefined } = { accountId: pick(ACCOUNT_ID_ALIASES), isError };
  if (error !== undefined && (isError || error.trim() !== '')) common.error = error;
  return common;
}

export const COMMON_KEYS: readonly string[] = [...ACCOUNT_ID_ALIASES, ...ERROR_ALIASES, 'isError'];

/**
 * An entry must name its account, except an error entry: convention 3 says a failing account leaves
 * the others unaffected, so an error entry without an account id is kept (accountId '') instead of
 * failing the whole response.
 */
export function requireAccountId(value: Record<string, unknown>, ctx: z.RefinementCtx): void {
  if (value.isError === true) return;
  if (!ACCOUNT_ID_ALIASES.some((alias) => typeof value[alias] === 'string')) {
    ctx.addIssue({ code: 'custom', message: 'the entry has no account id (acctId, accountId or Account ID)' });
  }
}

export type Wire<S extends z.ZodRawShape> = z.output<z.ZodObject<S, z.core.$loose>>;
export type Known<S extends z.ZodRawShape> = z.output<z.ZodObject<S, z.core.$strip>>;

/**
 * An entry of a list: its wire shape (loose, so fields this library does not know land in `extra`) and the
 * normalised fields made from its known fields; members left undefined are dropped.
 */
export function entry<S extends z.ZodRawShape, T extends object>(
  shape: S,
  fields: (value: Known<S>) => T,
): z.ZodType<T & { extra: Extra }> {
  const keys = new Set(Object.keys(shape));
  return z.looseObject(shape).transform((value) => {
    const known = Object.fromEntries(Object.entries(value).filter(([key]) => keys.has(key))) as Known<S>;
    return compact({ ...fields(known), extra: extraFields(value, keys) });
  });
}

/**
 * A per-account entry: like `entry`, plus the fields every account list shares (account id under any alias,
 * isError, error). With `accountId: 'required'` an entry must name its account unless it is an error entry
 * (accountId ''). `fields` sees the whole wire object and may supply `extra` itself.
 */
export function accountEntry<S extends z.ZodRawShape, T extends object>(
  accountId: 'required' | 'optional',
  shape: S,
  fields: (value: Wire<S & typeof entryCommonShape>, ctx: z.RefinementCtx) => T,
): z.ZodType<T & EntryCommon & { accountId: string; extra: Extra }> {
  const full = { ...entryCommonShape, ...shape };
  const keys = new Set([...COMMON_KEYS, ...Object.keys(full)]);
  const object = z.looseObject(full);
  const checked = accountId === 'required' ? object.superRefine(requireAccountId) : object;
  return checked.transform((value, ctx) => {
    const { accountId: id, ...common } = commonOf(value);
    return compact({
      accountId: accountId === 'required' ? (id ?? '') : id,
      ...common,
      extra: extraFields(value, keys),
      ...fields(value as Wire<S & typeof entryCommonShape>, ctx),
    });
  }) as z.ZodType<T & EntryCommon & { accountId: string; extra: Extra }>;
}

/** The usual response: the entries under `result`, and the call's timestamp. */
export function resultList<T>(item: z.ZodType<T>) {
  return z.looseObject({ result: z.array(item), timestamp: optionalTimestamp });
}

export const parseOptional =
  <T>(parse: (text: string) => T) =>
  (text: string | undefined): T | undefined =>
    text === undefined ? undefined : parse(text);

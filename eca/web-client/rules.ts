/** Request rules checked before anything is sent: each failure is an EcaRequestError naming the parameter. */
import { EcaRequestError } from '../errors.js';
import { isIsoDate } from '../types.js';
import type { Timestamp } from '../types.js';
import type { AccountSelection } from './types.js';

export function checkCsid(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new EcaRequestError('CSID', 'a client service id is required');
  return value.trim();
}

/** A single id may be a string; the wire always gets a list. */
export function normaliseAccountIds(value: unknown, parameter = 'accountIds'): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) throw new EcaRequestError(parameter, 'expected an account id or a list of them');
  if (list.length === 0) throw new EcaRequestError(parameter, 'the list is empty; omit it to select all accounts');
  const ids = list.map((id, index) => {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(id.trim())) {
      throw new EcaRequestError(`${parameter}[${index}]`, 'expected an account number');
    }
    return id.trim();
  });
  return [...new Set(ids)];
}

export function checkNumericString(value: unknown, parameter: string): string {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) {
    throw new EcaRequestError(parameter, 'expected a numeric string');
  }
  return value.trim();
}

export function selectionBody(request: AccountSelection, csid: string): Record<string, unknown> {
  const body: Record<string, unknown> = { CSID: checkCsid(request.CSID ?? csid) };
  if (request.accountIds !== undefined) body.accountIds = normaliseAccountIds(request.accountIds);
  if (request.startDate !== undefined) {
    if (typeof request.startDate !== 'string' || !isIsoDate(request.startDate)) {
      throw new EcaRequestError('startDate', 'expected a date written yyyy-mm-dd');
    }
    if (request.endDate === undefined) throw new EcaRequestError('endDate', 'required when startDate is sent');
    body.startDate = request.startDate;
  }
  if (request.endDate !== undefined) {
    if (typeof request.endDate !== 'string' || !isIsoDate(request.endDate)) {
      throw new EcaRequestError('endDate', 'expected a date written yyyy-mm-dd');
    }
    if (request.startDate !== undefined && request.endDate < request.startDate) {
      throw new EcaRequestError('endDate', 'must not be before startDate');
    }
    body.endDate = request.endDate;
  }
  return body;
}

/**
 * Spec, preference/set: "Languages are given as short lower-case codes." The allowed list is not shown, so only
 * the form is checked: two or three lower-case letters (`en`, `zh`, `fra`). Region or script subtags (`en-US`,
 * `zh-Hans`) and upper case are refused before anything is sent.
 */
export const LANGUAGE_CODE_PATTERN = /^[a-z]{2,3}$/;

/** A language of preference/set that is not a short lower-case code; `value` is the text as given. */
export class EcaLanguageCodeError extends EcaRequestError {
  readonly value: unknown;

  constructor(parameter: string, value: unknown) {
    const shown =
      typeof value === 'string' ? JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value) : typeof value;
    super(parameter, `${shown} is not a short lower-case language code (two or three letters a-z, e.g. en, zh, fra)`);
    this.value = value;
  }
}

/** Whether `value` is a language code that preference/set accepts (see {@link LANGUAGE_CODE_PATTERN}). */
export function isLanguageCode(value: unknown): boolean {
  return typeof value === 'string' && LANGUAGE_CODE_PATTERN.test(value);
}

export function checkLanguage(value: unknown, parameter: string): string {
  if (typeof value !== 'string' || !isLanguageCode(value)) throw new EcaLanguageCodeError(parameter, value);
  return value;
}

export function withTimestamp<T extends object>(
  value: T,
  timestamp: Timestamp | undefined,
): T & { timestamp?: Timestamp } {
  return timestamp ? { timestamp, ...value } : value;
}

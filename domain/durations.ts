/**
 * Durations as Temporal takes them (`'5 minutes'`, `'10s'` or milliseconds), turned into milliseconds
 * with the same parser the SDK uses (`ms`), through public packages only. Safe in the workflow sandbox.
 */
import type { Duration } from '@temporalio/common';
import ms from 'ms';

/** Milliseconds of `value`; a string `ms` cannot read is a TypeError naming it. */
export function durationMs(value: Duration): number {
  if (typeof value === 'number') return value;
  const millis = ms(String(value));
  if (millis === undefined || millis === null || Number.isNaN(millis)) {
    throw new TypeError(`Invalid duration string: '${value}'`);
  }
  return millis;
}

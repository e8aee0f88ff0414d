/** A namespace's retention as the CLI and `setupNamespace` take it; light, so that `eca --help` loads no SDK. */
import { InvalidInputError, parseDurationMs } from './errors.js';

export const DAY_MS = 24 * 60 * 60 * 1000;

/** The retention a namespace the setup creates gets when none is asked for. */
export const DEFAULT_RETENTION = '30d';

/** A retention as milliseconds, at least one day (the server's minimum outside development). */
export function parseRetention(value: string | number): number {
  const ms = parseDurationMs(value, 'retention', '30d, 720h or "30 days"');
  if (ms < DAY_MS) throw new InvalidInputError('retention', `${String(value)} is under the minimum of one day`);
  return ms;
}

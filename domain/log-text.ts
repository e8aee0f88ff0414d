/**
 * Failure texts as log lines may carry them. Some failures quote the brokerage: a per-account error entry
 * (`AccountEntryError`, `RequestListingRefused`) and the excerpt of an HTTP answer refused (`EcaHttpError`).
 * The spec gives no catalogue of these texts, so one may name an account holder in prose, which no pattern
 * tells from other words. Logs withhold the brokerage's words and keep the engine's (the operation, the
 * account, the HTTP status); staff read the whole text in the application's state, whose history the codec
 * encrypts. runtime/logger.ts applies this to every error it logs, the workflows to the failures they log.
 */
import { REQUEST_LISTING_REFUSED } from './error-types.js';

/** What a withheld text reads. */
export const WITHHELD = "[the brokerage's text, withheld from logs]";

/** The failure types whose text quotes the brokerage after a prefix the engine wrote (matched here). */
const QUOTING: Readonly<Record<string, RegExp>> = {
  AccountEntryError: /^(getAccountStatus|getPendingTasks): /,
  [REQUEST_LISTING_REFUSED]: /^getAmRequestStatus lists no requests for account \S+: /,
  EcaHttpError: /^\S+: HTTP \d{3} \(/,
};

/** `message` of a failure of type `type` (an error's name, an ApplicationFailure's type), the brokerage's words withheld. */
export function loggableText(type: string | undefined, message: string): string {
  const prefix = type === undefined ? undefined : QUOTING[type];
  if (!prefix) return message;
  const engine = prefix.exec(message)?.[0];
  // Not in the shape the engine writes: all of it is withheld.
  return engine === undefined ? WITHHELD : `${engine}${WITHHELD}${engine.endsWith('(') ? ')' : ''}`;
}

/**
 * The text of a failure a workflow met, for its log line: an activity's failure by its cause, whose type
 * is the activity error's name (activities/brokerage-errors.ts `typedFailure`).
 */
export function failureLogText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.name === 'ActivityFailure' && error.cause instanceof Error ? error.cause : error;
  const type = (cause as Error & { type?: unknown }).type;
  return loggableText(typeof type === 'string' ? type : cause.name, cause.message);
}

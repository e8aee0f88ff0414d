/**
 * Every patch id of the engine's workflows (`patched()`), each the name of one change to workflow code.
 * Histories recorded before a change replay down its old path; the SDK writes these ids into history
 * as they are (the only payloads outside the codec), so they are code names, never data.
 */

/** Search attributes are written only when they change (see README: changing workflow code safely). */
export const PATCH_UPSERT_ON_CHANGE = 'search-attributes-on-change';

/**
 * Update requests confirmed from spec fields only: the account's requests listed before sending, the
 * response file name matched in getAmRequestStatus by account, a bounded wait. Histories recorded
 * before follow request ids read from the response file (`settle`).
 */
export const PATCH_CONFIRM_BY_FILE = 'confirm-requests-by-file';

/** Staff messages taken as signals too (staff-signals.ts), with a handler for unknown signal names. */
export const PATCH_STAFF_SIGNALS = 'staff-signals';

/**
 * Waiting applications wake on the firm's status sweep (`statusSource: 'sweep'`) instead of reading
 * their account every slot. Histories recorded before replay with per-application polls.
 */
export const PATCH_STATUS_SWEEP = 'status-sweep';

/**
 * An activity failure no retry mends (non-retryable, or past the worker's bounds; see
 * activities/configuration-errors.ts) stops the application in `blocked` for staff. Histories recorded
 * before fail the workflow, as they did.
 */
export const PATCH_BLOCKED_STATE = 'blocked-state';

/**
 * A finished application leaves a `documentRetention` workflow that deletes its documents after
 * `documentRetention`. Histories recorded before complete without it.
 */
export const PATCH_DOCUMENT_RETENTION = 'document-retention';

/** All of them, for the checks of histories (test/support/history-privacy.ts). */
export const PATCH_IDS: readonly string[] = [
  PATCH_UPSERT_ON_CHANGE,
  PATCH_CONFIRM_BY_FILE,
  PATCH_STAFF_SIGNALS,
  PATCH_STATUS_SWEEP,
  PATCH_BLOCKED_STATE,
  PATCH_DOCUMENT_RETENTION,
];

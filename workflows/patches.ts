/**
 * The patch ids of the engine's workflows (docs/architecture.md, "Changing workflow code"): written into
 * history in the clear, so code names only; each is listed where test/support/history-privacy.ts checks markers.
 */

/**
 * The ids that cannot collide across firms (domain/workflow-ids.ts): the retention child and the documents'
 * owner of an application, the day's `dailyDocuments` child. Before it, 1.0.0's `<kind>-<CSID>-<rest>`.
 */
export const FIRM_SAFE_IDS_PATCH = 'firm-safe-ids';

/**
 * Events ride with the step that follows them (workflows/application/events.ts): the activity the loop
 * schedules next writes them first; only a wait writes alone, a create writes its own outcome's event, and
 * the last activity writes the last events and starts the document retention. Before it, every batch of
 * events was a `recordEvents` activity of its own and the retention a child workflow.
 */
export const EVENTS_RIDE_PATCH = 'events-ride';

/**
 * The patch ids of the engine's workflows (docs/architecture.md, "Changing workflow code"): written into
 * history in the clear, so code names only; each is listed where test/support/history-privacy.ts checks markers.
 */

/**
 * The ids that cannot collide across firms (domain/workflow-ids.ts): the retention child and the documents'
 * owner of an application, the day's `dailyDocuments` child. Before it, 1.0.0's `<kind>-<CSID>-<rest>`.
 */
export const FIRM_SAFE_IDS_PATCH = 'firm-safe-ids';

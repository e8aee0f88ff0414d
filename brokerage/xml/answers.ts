/** The XML service's answers to a write, read in the engine's terms. */

/**
 * The `error` text of an update or submitDocuments answer, if it has one. The spec lists no such field
 * (update: `timestamp`, `fileData`; submitDocuments: `timestamp`, `isProcessed`, `fileData`): the text
 * is only quoted for staff, it never decides anything.
 */
export function answerError(raw: unknown): string | undefined {
  const error = (raw as { error?: unknown } | null)?.error;
  return typeof error === 'string' ? error : undefined;
}

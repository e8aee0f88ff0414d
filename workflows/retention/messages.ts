/** Definitions of the `documentRetention` workflow, importable without workflow code. */

export const DOCUMENT_RETENTION_WORKFLOW = 'documentRetention';

/** `documents-retention-<CSID>-<externalId>`: one per finished application. */
export function documentRetentionWorkflowId(csid: string, externalId: string): string {
  return `documents-retention-${csid}-${externalId}`;
}

export interface DocumentRetentionInput {
  csid: string;
  externalId: string;
  /** SHA-1 references of the application's documents. */
  sha1s: string[];
  /** Workflow time the application finished, ms since the epoch. */
  finishedAt: number;
  retentionMs: number;
}

export interface DocumentRetentionResult {
  deleted: number;
  /** Documents stored again after the application finished (another application's), left in place. */
  kept: number;
}

/** Definitions of the `documentRetention` workflow, importable without workflow code. */

export const DOCUMENT_RETENTION_WORKFLOW = 'documentRetention';

/** `documents-retention-<CSID>-<externalId>`: one per finished application. */
export function documentRetentionWorkflowId(csid: string, externalId: string): string {
  return `documents-retention-${csid}-${externalId}`;
}

export interface DocumentRetentionInput {
  csid: string;
  externalId: string;
  /** The owner its documents were stored under: the application's workflow id. */
  owner: string;
  /** Workflow time the application finished, ms since the epoch. */
  finishedAt: number;
  retentionMs: number;
}

export interface DocumentRetentionResult {
  deleted: number;
  /** Documents another application holds too, or stored without an owner: left in place. */
  kept: number;
}

/** Definitions of the `documentRetention` workflow, importable without workflow code. */

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

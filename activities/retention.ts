/** Deletion of a finished application's documents once its retention ends (workflows/retention). */
import type { FileDocumentStore } from './document-store.js';
import type { RetentionActivities } from './retention-contract.js';

export function createRetentionActivities(options: { store: FileDocumentStore }): RetentionActivities {
  return {
    releaseDocuments: ({ owner }) => options.store.release(owner),
  };
}

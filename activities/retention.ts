/** Deletion of a finished application's documents once its retention ends (workflows/retention). */
import type { FileDocumentStore } from '../runtime/document-store.js';
import type { RetentionActivities } from '../workflows/retention/activities.js';

export function createRetentionActivities(options: { store: FileDocumentStore }): RetentionActivities {
  return {
    releaseDocuments: ({ owner }) => options.store.release(owner),
  };
}

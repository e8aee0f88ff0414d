/** Deletion of a finished application's documents once its retention ends (workflows/retention). */
import type { FileDocumentStore } from './document-store.js';
import type { RetentionActivities } from './retention-contract.js';

export function createRetentionActivities(options: { store: FileDocumentStore }): RetentionActivities {
  const { store } = options;
  return {
    async deleteDocuments({ sha1s, keepIfStoredAfter }) {
      let deleted = 0;
      let kept = 0;
      for (const sha1 of new Set(sha1s)) {
        if (await store.deleteUnlessStoredSince(sha1, keepIfStoredAfter)) deleted++;
        else kept++;
      }
      return { deleted, kept };
    },
  };
}

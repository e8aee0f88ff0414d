/**
 * `documentRetention`: started by a finished application (and left running when it closes), it waits
 * out the retention period on a durable timer, then deletes the documents the application referenced
 * from the store: its application XMLs, its PDFs and the create's response file (temporary passwords)
 * if staff never took it. Its history holds SHA-1 references only, never a document or personal data.
 */
import { proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { RetentionActivities } from '../../activities/retention-contract.js';
import type { DocumentRetentionInput, DocumentRetentionResult } from './messages.js';

const store = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export async function documentRetention(input: DocumentRetentionInput): Promise<DocumentRetentionResult> {
  const deleteAt = input.finishedAt + input.retentionMs;
  const documents = `${input.sha1s.length} document(s) of application ${input.externalId}`;
  setCurrentDetails(`**Deletes** ${documents} at ${new Date(deleteAt).toISOString()}`);
  await sleep(Math.max(deleteAt - Date.now(), 0), { summary: `retention of ${documents}` });
  const result = await store.deleteDocuments.executeWithOptions({ summary: `delete ${documents}` }, [
    { sha1s: input.sha1s, keepIfStoredAfter: input.finishedAt },
  ]);
  setCurrentDetails(`**Deleted** ${result.deleted} of ${documents}; ${result.kept} kept (stored again since)`);
  return result;
}

/**
 * `documentRetention`: started by a finished application (and left running when it closes), it waits
 * out the retention period on a durable timer, then releases the documents the application stored
 * (application XMLs, PDFs, the create's response file with temporary passwords if staff never took
 * it): each is deleted unless another application holds the same bytes. Its history holds the
 * application's workflow id and counts only, never a document or personal data.
 */
import { proxyActivities, setCurrentDetails, sleep } from '@temporalio/workflow';
import type { RetentionActivities } from './activities.js';
import type { DocumentRetentionInput, DocumentRetentionResult } from './messages.js';

const store = proxyActivities<RetentionActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes' },
});

export async function documentRetention(input: DocumentRetentionInput): Promise<DocumentRetentionResult> {
  const deleteAt = input.finishedAt + input.retentionMs;
  const documents = `the documents of application ${input.externalId}`;
  setCurrentDetails(`**Deletes** ${documents} at ${new Date(deleteAt).toISOString()}`);
  await sleep(Math.max(deleteAt - Date.now(), 0), { summary: `retention of ${documents}` });
  const result = await store.releaseDocuments.executeWithOptions({ summary: `delete ${documents}` }, [
    { owner: input.owner },
  ]);
  setCurrentDetails(
    `**Deleted** ${result.deleted} of ${documents}; ${result.kept} kept (held by another application too)`,
  );
  return result;
}

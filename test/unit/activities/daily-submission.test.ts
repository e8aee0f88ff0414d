/**
 * The daily submission's answer read on the spec's fields (`timestamp`, `isProcessed`, `fileData` only when
 * isProcessed is true): `isProcessed` decides, an `error` text (not in the spec) is only quoted.
 */
import assert from 'node:assert/strict';
import { createDocumentsActivities } from '../../../activities/documents.js';
import type { DailyDocumentsLedger } from '../../../activities/forms.js';
import type { EcaClient, SubmitDocumentsResponse } from '../../../eca/index.js';
import type { DocumentStore } from '../../../runtime/document-store.js';
import { inActivity } from '../../support/activity-context.js';

const form = { formNumber: '3024', fileName: '3024.pdf', sha1: 'a'.repeat(40), length: 3, ref: 'pdf' };

function submitting(answer: Omit<SubmitDocumentsResponse, 'sent'>) {
  const eca = {
    submitDocuments: () => Promise.resolve({ ...answer, sent: [] }),
  } as unknown as EcaClient;
  const store = { get: () => Promise.resolve(new TextEncoder().encode('PDF')) } as unknown as DocumentStore;
  return inActivity(createDocumentsActivities({ eca, store, ledger: {} as DailyDocumentsLedger }));
}

describe('daily submission: the answer on spec fields', function () {
  it('isProcessed true without fileData is processed: no form is known accepted, so the creates carry them', async function () {
    const outcome = await submitting({ isProcessed: true, raw: { isProcessed: true } }).submitDailyDocuments({
      csid: 'F1',
      documents: [form],
    });
    assert.deepEqual(outcome, { processed: true, documents: [] });
  });

  it('isProcessed false is not processed, with an error text quoted when there is one and a reason when not', async function () {
    const quoted = await submitting({ isProcessed: false, raw: { error: 'late' } }).submitDailyDocuments({
      csid: 'F1',
      documents: [form],
    });
    assert.deepEqual(quoted, {
      processed: false,
      error: 'submitDocuments was not processed (isProcessed false): «late»',
    });
    const bare = await submitting({ isProcessed: false, raw: {} }).submitDailyDocuments({
      csid: 'F1',
      documents: [form],
    });
    assert.deepEqual(bare, { processed: false, error: 'submitDocuments was not processed (isProcessed false)' });
  });
});

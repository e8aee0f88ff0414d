/**
 * The daily document submission's activities: read the forms directory into the document store,
 * submit the agreements and disclosures once, read the report, keep the day's record for create.
 */
import type { EcaClient } from '../eca/index.js';
import type { DocumentsActivities, SubmissionOutcome } from '../workflows/documents/activities.js';
import type { DailyDocumentsResult } from '../workflows/documents/messages.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { FormsManifestInvalid, storeForms } from './forms.js';
import type { DailyDocumentsLedger } from './forms.js';
import { callBrokerage, typedFailure } from './brokerage-errors.js';
import { WriteAttempt } from './write-attempt.js';
import type { Brokerage } from '../brokerage/port.js';
import { xmlBrokerages } from '../brokerage/xml/index.js';

export interface DocumentsActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
  ledger: DailyDocumentsLedger;
  now?: () => Date;
  /** Told when a firm's day is recorded (the worker keeps the time: an alert when a day is missed). */
  onRecorded?: (result: DailyDocumentsResult) => void;
  /**
   * Each firm's brokerage on its protocol (runtime/firm-brokerages.ts `brokerageFor`), to which the day's
   * documents go; without it, every firm's through `eca` on the XML service.
   */
  brokerageFor?: (csid: string) => Promise<Brokerage>;
}

/** A submission that may have been processed: never sent again (there is no look-up for one, on either protocol). */
const inDoubt = (error: string): SubmissionOutcome => ({ processed: false, ambiguous: true, error });
const MAY_HAVE_BEEN_PROCESSED =
  'an earlier attempt may have been processed (its answer was lost) and the service offers no look-up: not sent again';

export function createDocumentsActivities(options: DocumentsActivityOptions): DocumentsActivities {
  const { eca, store, ledger } = options;
  const now = options.now ?? (() => new Date());
  const brokerageFor = options.brokerageFor ?? xmlBrokerages(eca);

  return {
    async gatherForms({ csid, formsDir, day }) {
      try {
        const forms = await storeForms(formsDir, store);
        const previous = (await ledger.latest(csid, day))?.result;
        return previous ? { forms, previous } : { forms };
      } catch (error) {
        if (error instanceof FormsManifestInvalid) throw typedFailure(error, { nonRetryable: true });
        throw error;
      }
    },

    async submitDailyDocuments({ csid, documents }): Promise<SubmissionOutcome> {
      // Neither protocol offers a look-up for a submission (the XML service's getResponseFile is keyed by an
      // application's external_id, getAmRequestStatus lists update requests). A submission that may have been
      // processed is never sent again: the day stays unconfirmed and today's creates carry every PDF, which the
      // spec allows on any day (submitDocuments rule 3: "otherwise the PDFs go with each application"). An
      // attempt that failed before anything was sent (a document read, a call put off by the call budget, a
      // request the library refused) leaves the proof that lets the next one send (write-attempt.ts).
      return WriteAttempt.run(
        async (attempt) => {
          if (!attempt.maySend) return inDoubt(MAY_HAVE_BEEN_PROCESSED);
          // Had inside the attempt: a firm that may not call (disabled, say) sent nothing, and proves it.
          const brokerage = await brokerageFor(csid);
          const signedAt = now();
          const files = await Promise.all(
            documents.map(async (document) => ({
              formNumber: document.formNumber,
              fileName: document.fileName,
              data: await store.get(document),
            })),
          );
          const sent = await callBrokerage(() => attempt.send(() => brokerage.submitDailyDocuments(files, signedAt)));
          return 'unknown' in sent ? inDoubt(sent.unknown) : sent.answer;
        },
        { inDoubt },
      );
    },

    async recordDailyDocuments({ result, catalogue }) {
      await ledger.write({ result, catalogue, recordedAt: now().toISOString() });
      options.onRecorded?.(result);
    },
  };
}

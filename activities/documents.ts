/**
 * The daily document submission's activities: read the forms directory into the document store,
 * submit the agreements and disclosures once, read the report, keep the day's record for create.
 */
import { quoteService } from '../eca/index.js';
import type { EcaClient } from '../eca/index.js';
import type { DocumentsActivities, SubmissionOutcome } from '../workflows/documents/activities.js';
import type { DailyDocumentsResult } from '../workflows/documents/messages.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { FormsManifestInvalid, storeForms } from './forms.js';
import type { DailyDocumentsLedger } from './forms.js';
import { answerError, callBrokerageOrRefusal, typedFailure } from './brokerage-errors.js';
import { WriteAttempt } from './write-attempt.js';
import { signedForms } from './stored.js';
import { documentJson } from './application-json.js';
import type { Protocol } from '../runtime/firm-settings.js';
import type { WebApiClient } from '../webapi/index.js';
import type { FormDocument } from '../domain/documents.js';

export interface DocumentsActivityOptions {
  eca: EcaClient;
  store: DocumentStore;
  ledger: DailyDocumentsLedger;
  now?: () => Date;
  /** Told when a firm's day is recorded (the worker keeps the time: an alert when a day is missed). */
  onRecorded?: (result: DailyDocumentsResult) => void;
  /** The firms on the Web API: each firm's protocol and client (runtime/firm-brokerages.ts); without it, all on XML. */
  webApi?: {
    protocolOf(csid: string): Promise<Protocol>;
    clientFor(csid: string): Promise<WebApiClient>;
  };
}

/** A submission that may have been processed: never sent again (there is no look-up for one, on either protocol). */
const inDoubt = (error: string): SubmissionOutcome => ({ processed: false, ambiguous: true, error });
const MAY_HAVE_BEEN_PROCESSED =
  'an earlier attempt may have been processed (its answer was lost) and the service offers no look-up: not sent again';

/**
 * `POST /gw/api/v1/accounts/documents`, under the same rules as submitDocuments. Its answer names a request
 * and no report of the forms (the document does not describe `fileData.data`): no form is known to be
 * accepted, so today's creates carry every PDF, as after a processed submission without a report.
 */
function submitOnWebApi(
  api: WebApiClient,
  store: DocumentStore,
  signedAt: Date,
  documents: FormDocument[],
): Promise<SubmissionOutcome> {
  return WriteAttempt.run(
    async (attempt) => {
      if (!attempt.maySend) return inDoubt(MAY_HAVE_BEEN_PROCESSED);
      const body = await Promise.all(
        documents.map(async (document) => documentJson(document, await store.get(document), signedAt)),
      );
      const sent = await attempt.send(() => api.submitAgreements(body));
      if ('unknown' in sent) return inDoubt(sent.unknown);
      const { answer } = sent;
      if (answer.hasError === true) {
        const description = answer.errorDescription ? `: ${quoteService(answer.errorDescription)}` : '';
        return { processed: false, error: `POST /gw/api/v1/accounts/documents answered an error${description}` };
      }
      return { processed: true, ...(answer.fileData?.name && { reportFile: answer.fileData.name }), documents: [] };
    },
    { inDoubt },
  );
}

export function createDocumentsActivities(options: DocumentsActivityOptions): DocumentsActivities {
  const { eca, store, ledger } = options;
  const now = options.now ?? (() => new Date());

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
      if (options.webApi && (await options.webApi.protocolOf(csid)) === 'webapi') {
        return submitOnWebApi(await options.webApi.clientFor(csid), store, now(), documents);
      }
      // The spec offers no look-up for a submission (getResponseFile is keyed by an application's
      // external_id, getAmRequestStatus lists update requests). A submission that may have been processed
      // is never sent again: the day stays unconfirmed and today's creates carry every PDF, which the spec
      // allows on any day (submitDocuments rule 3: "otherwise the PDFs go with each application"). An
      // attempt that failed before anything was sent (a document read, a call put off by the call budget)
      // leaves the proof that lets the next one send (write-attempt.ts).
      return WriteAttempt.run(
        async (attempt) => {
          if (!attempt.maySend) return inDoubt(MAY_HAVE_BEEN_PROCESSED);
          const signedAt = now();
          const files = await Promise.all(
            documents.map(async (document) => ({
              formNumber: document.formNumber,
              file: { fileName: document.fileName, data: await store.get(document) },
            })),
          );
          const sent = await attempt.send(() =>
            callBrokerageOrRefusal(() =>
              eca.submitDocuments({ CSID: csid, documents: signedForms(files, signedAt, ({ file }) => file) }),
            ),
          );
          if ('unknown' in sent) return inDoubt(sent.unknown);
          if (sent.answer.refusal) {
            return { processed: false, error: `submitDocuments refused: HTTP ${sent.answer.refusal.status}` };
          }
          const response = sent.answer.answer;
          // `isProcessed` decides (the spec's fields); an `error` text, which the spec does not list, is only quoted.
          if (!response.isProcessed) {
            const error = answerError(response.raw);
            return {
              processed: false,
              error: `submitDocuments was not processed (isProcessed false)${error === undefined ? '' : `: ${quoteService(error)}`}`,
            };
          }
          // Processed without a report ("fileData appears only when isProcessed is true", not always then):
          // no form is known to be accepted, so today's creates carry every PDF.
          const report = response.fileData?.report.documents ?? [];
          return {
            processed: true,
            ...(response.fileData?.name && { reportFile: response.fileData.name }),
            documents: report.map((document) => ({
              formNumber: document.formNumber,
              fileName: document.fileName,
              status: document.status,
              accepted: document.accepted,
              ...(document.checksumMismatch && { checksumMismatch: document.checksumMismatch }),
            })),
          };
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

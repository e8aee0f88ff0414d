/**
 * The application workflow's activities: every call to the brokerage service, through `eca/`.
 * Transport failures are thrown (the workflow's retry policy backs off); refusals by the service come
 * back as results the lifecycle handles; broken configuration or input fails without retry
 * (brokerage-errors.ts). A create and an accepted reset register their account with the status sweep
 * (sweep-snapshot.ts).
 */
import { buildDocumentSubmissionXml, buildUpdateRequestXml } from '../eca/index.js';
import type { FormDocument } from '../domain/documents.js';
import type {
  ApplicationActivities,
  ApplicationUpdateFunction,
  UpdateOutcome,
} from '../workflows/application/activities.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { createCreationActivities } from './create.js';
import type { CreationOptions } from './create.js';
import { registerReset } from './sweep-snapshot.js';
import type { SweepSnapshot } from '../runtime/sweep-snapshot.js';
import { confirmedByEffect, requestByFile, shownInEffect } from './request-status.js';
import { statusReaderOf } from './status.js';
import { signedForms } from '../brokerage/xml/documents.js';
import type { StatusReaderOptions } from './status.js';
import { accountRequestFiles, createUpdateSender, updateInDoubt } from './update-sender.js';
import { WriteAttempt } from './write-attempt.js';

export interface ApplicationActivityOptions extends StatusReaderOptions {
  store: DocumentStore;
  now?: () => Date;
  /**
   * The PDFs a create carries, given the caller's (see planCreateDocuments in forms.ts: only the tax
   * form when the day's submission was accepted, every PDF otherwise). The caller's list when unset.
   */
  createDocuments?: CreationOptions['createDocuments'];
  /**
   * The status sweep's snapshot: a create registers the account it established, an accepted reset the
   * account it brings back (sweep-snapshot.ts). Nothing is registered without it.
   */
  snapshot?: SweepSnapshot;
}

export function createApplicationActivities(options: ApplicationActivityOptions): ApplicationActivities {
  const { eca, store } = options;
  const now = options.now ?? (() => new Date());
  const statusReader = statusReaderOf(options);
  const updates = createUpdateSender(eca, store);

  // Built before the send, unlike maintenance's: a request eca/ refuses here is thrown as it is, and its
  // type alone stops the workflow's retries.
  function updateXml(accountId: string, functionName: ApplicationUpdateFunction, documents: FormDocument[]): string {
    if (functionName !== 'DocumentSubmission') return buildUpdateRequestXml({ accountId, functionName });
    return buildDocumentSubmissionXml({
      accountId,
      documents: signedForms(documents, now(), (document) => ({
        fileName: document.fileName,
        sha1: document.sha1,
        length: document.length,
      })),
    });
  }

  return {
    ...createCreationActivities({
      eca,
      store,
      now,
      createDocuments: options.createDocuments,
      snapshot: options.snapshot,
    }),

    readAccount({ csid, accountId }) {
      return statusReader.read(csid, accountId);
    },

    listAccountRequests({ csid, accountId }) {
      return accountRequestFiles(eca, csid, accountId);
    },

    async sendApplicationUpdate({ csid, accountId, functionName, known, documents = [], mayHaveSent, lookOnly }) {
      const outcome = await WriteAttempt.run<UpdateOutcome>(async (attempt) => {
        // An earlier attempt (of this activity, of the workflow's step before a staff retry, or one whose
        // answer was lost) may have left a request the service lists: never send twice.
        if (mayHaveSent || !attempt.maySend) {
          const earlier = await updates.earlier(csid, accountId, known);
          if (earlier) return earlier;
          // Not listed (the listing may never name it): its effect on the account shows it was processed.
          const forms = documents.map((document) => document.formNumber);
          if (await shownInEffect(eca, { csid, accountId, functionName, forms })) {
            return { accepted: true, recovered: true, inEffect: true };
          }
        }
        // Nothing listed yet proves nothing: only a staff retry (`mayHaveSent`) sends then.
        if (!attempt.maySend) return { accepted: false, unknown: 'no new request file listed yet' };
        return updates.send(csid, updateXml(accountId, functionName, documents), documents, attempt);
      }, updateInDoubt(lookOnly));
      await registerReset(options.snapshot, { csid, accountId, functionName }, outcome);
      return outcome;
    },

    async readRequestByFile({ csid, accountId, responseFile, functionName, forms }) {
      const listed = requestByFile(await eca.getAmRequestStatus({ CSID: csid, accountIds: [accountId] }), responseFile);
      // Not decided by the listing: confirmed by its effect where spec fields show one (request-status.ts).
      return confirmedByEffect(eca, { csid, accountId, functionName, ...(forms && { forms }) }, listed);
    },
  };
}

/**
 * The day's result from what was sent and what the report says: per form `Accepted` or the reason,
 * the alert, and the forms to replace within the grace period (carried from earlier days, so the
 * period runs from the first day a mismatch was reported). Pure, testable without Temporal.
 */
import type { ReportedForm, SubmissionOutcome } from './activities.js';
import type { FormDocument } from '../../domain/documents.js';
import { addDays } from '../../domain/days.js';
import { GRACE_PERIOD_DAYS } from './messages.js';
import type { DailyDocumentsResult, DocumentsAlert, FormReplacement, FormResult } from './messages.js';

export interface EvaluationInput {
  csid: string;
  day: string;
  timeZone: string;
  /** The agreements and disclosures sent (or meant to be sent). */
  sent: FormDocument[];
  outcome: SubmissionOutcome;
  previous?: DailyDocumentsResult;
}

export function evaluateSubmission(input: EvaluationInput): DailyDocumentsResult {
  const { csid, day, timeZone, sent, outcome, previous } = input;
  const changedFrom = (document: FormDocument) => {
    const before = previous?.forms.find((form) => form.formNumber === document.formNumber);
    return before && before.sha1 !== document.sha1 ? { changedFrom: before.sha1 } : {};
  };

  if (!outcome.processed) {
    const status = `not submitted: ${outcome.error}`;
    return {
      csid,
      day,
      timeZone,
      submitted: false,
      accepted: false,
      alert: sent.length === 0 ? 'not-submitted' : outcome.ambiguous ? 'unconfirmed' : 'refused',
      error: outcome.error,
      forms: sent.map((document) => ({
        formNumber: document.formNumber,
        fileName: document.fileName,
        sha1: document.sha1,
        status,
        accepted: false,
        ...changedFrom(document),
      })),
      // Nothing was checked today: earlier replacements stay due.
      replacements: previous?.replacements ?? [],
    };
  }

  const forms: FormResult[] = [];
  const replacements: FormReplacement[] = [];
  for (const document of sent) {
    const reported: ReportedForm | undefined =
      outcome.documents.find(
        (entry) => entry.formNumber === document.formNumber && entry.fileName === document.fileName,
      ) ?? outcome.documents.find((entry) => entry.formNumber === document.formNumber);
    const accepted = reported?.accepted ?? false;
    forms.push({
      formNumber: document.formNumber,
      fileName: document.fileName,
      sha1: document.sha1,
      status: reported?.status ?? 'not in the report',
      accepted,
      ...changedFrom(document),
    });
    if (reported?.checksumMismatch && !accepted) {
      const earlier = previous?.replacements.find((replacement) => replacement.formNumber === document.formNumber);
      const since = earlier?.since ?? day;
      replacements.push({
        formNumber: document.formNumber,
        fileName: document.fileName,
        stored: reported.checksumMismatch.stored,
        received: document.sha1,
        since,
        replaceBy: addDays(since, GRACE_PERIOD_DAYS),
      });
    }
  }
  const allAccepted = forms.length > 0 && forms.every((form) => form.accepted);
  const alert: DocumentsAlert = replacements.length > 0 ? 'checksum-mismatch' : allAccepted ? 'none' : 'refused';
  return {
    csid,
    day,
    timeZone,
    submitted: true,
    accepted: allAccepted,
    alert,
    ...(outcome.reportFile && { reportFile: outcome.reportFile }),
    forms,
    replacements,
  };
}

/** The earliest grace-period end among the forms to replace. */
export function earliestReplaceBy(result: DailyDocumentsResult): string | undefined {
  return result.replacements.map((replacement) => replacement.replaceBy).sort()[0];
}

/**
 * Documents on the XML service: forms signed at one time, and the day's submission of the agreements and
 * disclosures (submitDocuments) read in the engine's terms.
 */
import { quoteService } from '../../eca/index.js';
import type { EcaClient } from '../../eca/index.js';
import { isRefusal } from '../../domain/brokerage-errors.js';
import type { DailyFile, DailySubmission } from '../port.js';
import { answerError } from './answers.js';

/**
 * Forms signed at one time, each with its file: how both the daily submission and an update's
 * DocumentSubmission describe them.
 */
export function signedForms<D extends { formNumber: string }, F>(
  documents: readonly D[],
  signedAt: Date,
  file: (document: D) => F,
): Array<{ formNumber: string; execTs: Date; execLoginTs: Date; files: F[] }> {
  return documents.map((document) => ({
    formNumber: document.formNumber,
    execTs: signedAt,
    execLoginTs: signedAt,
    files: [file(document)],
  }));
}

/**
 * submitDocuments with the day's PDFs: a refusal (any 4xx) is the outcome, `isProcessed` decides (the spec's
 * fields), and an `error` text, which the spec does not list, is only quoted.
 */
export async function submitDailyDocuments(
  eca: EcaClient,
  csid: string,
  files: DailyFile[],
  signedAt: Date,
): Promise<DailySubmission> {
  let response: Awaited<ReturnType<EcaClient['submitDocuments']>>;
  try {
    response = await eca.submitDocuments({
      CSID: csid,
      documents: signedForms(files, signedAt, ({ fileName, data }) => ({ fileName, data })),
    });
  } catch (error) {
    if (isRefusal(error, { transient: true })) {
      return { processed: false, error: `submitDocuments refused: HTTP ${error.status}` };
    }
    throw error;
  }
  if (!response.isProcessed) {
    const error = answerError(response.raw);
    return {
      processed: false,
      error: `submitDocuments was not processed (isProcessed false)${error === undefined ? '' : `: ${quoteService(error)}`}`,
    };
  }
  // Processed without a report ("fileData appears only when isProcessed is true", not always then): no form is
  // known to be accepted, so today's creates carry every PDF.
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
}

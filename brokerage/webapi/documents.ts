/**
 * Documents on the Web API: a form as the document's `Document`, and the day's submission of the agreements
 * and disclosures (`POST /gw/api/v1/accounts/documents`) read in the engine's terms.
 */
import { createHash } from 'node:crypto';
import { quoteService } from '../../eca/index.js';
import type { WebApiClient, WebApiDocument } from '../../webapi/index.js';
import type { DailyFile, DailySubmission } from '../port.js';

/** A form with its bytes, as the application's `documents[]` carry it (signed now). */
export function documentJson(
  form: { formNumber: string; fileName: string },
  data: Uint8Array,
  signedAt: Date,
): WebApiDocument {
  const seconds = Math.floor(signedAt.getTime() / 1000);
  return {
    formNumber: Number(form.formNumber),
    execTimestamp: seconds,
    execLoginTimestamp: seconds,
    attachedFile: {
      fileName: form.fileName,
      fileLength: data.byteLength,
      sha1Checksum: createHash('sha1').update(data).digest('hex'),
    },
    payload: { mimeType: 'application/pdf', data: Buffer.from(data).toString('base64') },
  };
}

/**
 * The day's PDFs under the same rules as submitDocuments. Its answer names a request and no report of the
 * forms (the document does not describe `fileData.data`): no form is known to be accepted, so today's creates
 * carry every PDF, as after a processed submission without a report.
 */
export async function submitDailyDocuments(
  api: WebApiClient,
  files: DailyFile[],
  signedAt: Date,
): Promise<DailySubmission> {
  const answer = await api.submitAgreements(files.map((file) => documentJson(file, file.data, signedAt)));
  if (answer.hasError === true) {
    const description = answer.errorDescription ? `: ${quoteService(answer.errorDescription)}` : '';
    return { processed: false, error: `POST /gw/api/v1/accounts/documents answered an error${description}` };
  }
  return { processed: true, ...(answer.fileData?.name && { reportFile: answer.fileData.name }), documents: [] };
}

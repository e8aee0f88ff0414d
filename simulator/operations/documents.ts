/**
 * submitDocuments: the daily delivery of agreements and disclosures. Each attached PDF is checked
 * against the SHA-1 and length that the request XML quotes, then against the brokerage's archived
 * original of that file of the form: the first copy of each file of a form number is archived, a later
 * different one is reported with the stored and received checksums.
 */
import { sha1Hex } from '../../eca/archive.js';
import { buildDocumentsReport, type ReportDocumentInput } from '../formats/report-xml.js';
import { parseSubmitDocumentsXml, type ParsedDocument } from '../formats/request-xml.js';
import { isoDate, reportFileName, XSD_VERSION } from '../formats/wire-text.js';
import { archivedFileKey, type Store } from '../store.js';
import type { FirmRecord } from '../model.js';
import { nowText, ok, type Operation } from './context.js';
import { envelope, openPayload, PayloadProblem, readPayloadArchive, sealFor } from './envelope.js';

export interface FileCheck {
  formNumber: string;
  fileName: string;
  /** Undefined when the file is as declared. */
  problem?: ReportDocumentInput;
  sha1: string;
  length: number;
  data?: Uint8Array;
}

/** The refusal of a Document that holds no AttachedFile (the spec: "one or more per Document"). */
export function withoutAttachedFile(document: ParsedDocument): string {
  return `Document form_no ${document.formNumber} holds no AttachedFile (one or more per Document)`;
}

/** Compares each attached file with the archive entry of the same name. */
export function checkAttachedFiles(documents: ParsedDocument[], files: Map<string, Uint8Array>): FileCheck[] {
  return documents.flatMap((document) =>
    document.files.map((declared): FileCheck => {
      const base = { formNumber: document.formNumber, fileName: declared.fileName };
      const data = files.get(declared.fileName);
      if (!data) {
        return {
          ...base,
          sha1: declared.sha1,
          length: declared.length,
          problem: { ...base, status: `File ${declared.fileName} is missing from the archive` },
        };
      }
      const sha1 = sha1Hex(data);
      const length = data.byteLength;
      if (sha1 !== declared.sha1) {
        return {
          ...base,
          sha1,
          length,
          data,
          problem: { ...base, checksumMismatch: { stored: declared.sha1, received: sha1 } },
        };
      }
      if (length !== declared.length) {
        const status = `File ${declared.fileName} has a different length: declared ${String(declared.length)}, received ${length}`;
        return { ...base, sha1, length, data, problem: { ...base, status } };
      }
      return { ...base, sha1, length, data };
    }),
  );
}

/**
 * Archives each file of a form on first sight (a Document holds "one or more" AttachedFile, each its own PDF,
 * known by its name: rule 8); a later copy of the same file of the form with other content is a checksum mismatch.
 */
function againstArchive(store: Store, check: FileCheck, at: number): ReportDocumentInput {
  if (check.problem) return check.problem;
  const base = { formNumber: check.formNumber, fileName: check.fileName };
  const key = archivedFileKey(base);
  const archived = store.forms.get(key);
  if (archived && archived.sha1 !== check.sha1) {
    return { ...base, checksumMismatch: { stored: archived.sha1, received: check.sha1 } };
  }
  if (!archived) store.forms.set(key, { ...base, sha1: check.sha1, length: check.length, archivedAt: at });
  return { ...base, status: 'Accepted' };
}

/**
 * Decides a day's agreements and disclosures (either protocol): each file checked, then against its form's archived
 * original; the day's accepted forms recorded for the firm under the report file's name.
 */
export function decideSubmission(
  store: Store,
  firm: FirmRecord,
  documents: ParsedDocument[],
  files: Map<string, Uint8Array>,
  now: number,
): { report: ReportDocumentInput[]; name: string } {
  const report = checkAttachedFiles(documents, files).map((check) => againstArchive(store, check, now));
  const name = reportFileName(firm.name, now, store.nextBatchId(), store.nextFileSequence());
  const accepted = report
    .filter((document) => document.status === 'Accepted')
    .map(({ formNumber, fileName }) => ({ formNumber, fileName }));
  (firm.documentSubmissions ??= []).push({ day: isoDate(now), reportFile: name, accepted });
  store.changed();
  return { report, name };
}

export const submitDocuments: Operation = async (ctx, request) => {
  const { firm, payload } = envelope(ctx, request.body);
  const now = ctx.store.now();
  // Spec, submitDocuments response: timestamp, isProcessed, and fileData "only when isProcessed is true". No
  // error text is listed, so a refusal carries none (with or without `no-error-field`): the reason passed names the
  // case, for the reader.
  const refuse = (_reason: string) => ok({ timestamp: nowText(ctx), isProcessed: false });
  // Spec, submitDocuments rule 4: "Applies to fully disclosed clients (individual, joint, retirement) and advisor
  // clients". A non-disclosed firm is refused as a whole: isProcessed false, no fileData.
  if (firm.firmType === 'non-disclosed') {
    return refuse('submitDocuments applies to fully disclosed and advisor clients only; this firm is non-disclosed');
  }
  try {
    const archive = readPayloadArchive(await openPayload(ctx, firm, payload));
    // Spec, submitDocuments rule 1: "Send once a day". A rule for the caller: the spec names no refusal of a
    // second submission, so a second one is processed like the first (and counted in /_sim/records).
    let documents: ParsedDocument[];
    try {
      documents = parseSubmitDocumentsXml(archive.xml.content).documents;
    } catch (error) {
      return refuse(`Invalid request XML: ${(error as Error).message}`);
    }
    // Spec, request XML: AttachedFile is "one or more per Document". A Document without one is no document.
    const empty = documents.find((document) => document.files.length === 0);
    if (empty) return refuse(withoutAttachedFile(empty));
    const { report, name } = decideSubmission(ctx.store, firm, documents, archive.files, now);
    const xml = buildDocumentsReport({
      version: XSD_VERSION,
      executionDate: new Date(now),
      processFile: archive.xml.fileName,
      client: firm.name,
      clientMasterAcct: firm.masterAccount,
      documents: report,
      checksumReceivedFirst: ctx.store.unpromised.has('checksum-received-first'),
    });
    return ok({ timestamp: nowText(ctx), isProcessed: true, fileData: { name, data: await sealFor(ctx, firm, xml) } });
  } catch (error) {
    if (error instanceof PayloadProblem) return refuse(error.message);
    throw error;
  }
};

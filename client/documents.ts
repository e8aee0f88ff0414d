/**
 * Input checks for what onboarding systems hand the engine: application XML and PDFs. Bad input is
 * refused here, before anything is stored or sent, with an error naming the file.
 */
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseApplication, xmlWellFormednessError } from '../eca/index.js';
import type { ApplicationSummary } from '../eca/index.js';
import type { DocumentStore } from '../runtime/document-store.js';
import { MAX_DOCUMENT_BYTES, PDF_FILE_NAME } from '../domain/documents.js';
import type { DocumentRef, FormDocument } from '../domain/documents.js';
import { InvalidInputError } from './errors.js';
import { canonicalXmlSha256 } from './canonical-xml.js';
import { applicationWorkflowId } from '../domain/workflow-ids.js';

// PDFs larger than MAX_DOCUMENT_BYTES are refused (the service states no limit; scanned documents stay well under it).
export { MAX_DOCUMENT_BYTES };

export interface DocumentInput {
  formNumber: string;
  /** Name in the archive and the request XML; defaults to the file's base name. */
  fileName?: string;
  /** The PDF, as bytes or a file path. */
  data: Uint8Array | string;
}

/** Application XML larger than this is refused (a single application is a few kilobytes). */
export const MAX_APPLICATION_BYTES = 1024 * 1024;

/** Reads a file given by path, its size checked before a byte is read; bytes given are checked too. */
export async function readInput(
  data: Uint8Array | string,
  what: string,
  maxBytes: number,
  label = typeof data === 'string' ? data : what,
): Promise<{ bytes: Uint8Array; name?: string }> {
  const tooLarge = (size: number) => new InvalidInputError(label, `${size} bytes is over the ${maxBytes}-byte limit`);
  if (typeof data !== 'string') {
    if (data.byteLength > maxBytes) throw tooLarge(data.byteLength);
    return { bytes: data };
  }
  try {
    const info = await stat(data);
    if (!info.isFile()) throw new InvalidInputError(data, 'is not a file');
    if (info.size > maxBytes) throw tooLarge(info.size);
    return { bytes: await readFile(data), name: basename(data) };
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(data, `cannot read the ${what}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** Checks an application XML (well-formed, one application with an external id) and returns its summary. */
export function checkApplicationXml(xml: string, name = 'application XML'): ApplicationSummary {
  const problem = xmlWellFormednessError(xml);
  if (problem) throw new InvalidInputError(name, `malformed XML: ${problem}`);
  let summary: ApplicationSummary;
  try {
    summary = parseApplication(xml);
  } catch (error) {
    throw new InvalidInputError(name, (error as Error).message);
  }
  if (!summary.externalId) throw new InvalidInputError(name, 'Customer@external_id is missing');
  return summary;
}

/** Reads and checks an application XML (text, bytes or a file path) without storing it. */
export async function readApplicationXml(
  xml: Uint8Array | string,
): Promise<{ bytes: Uint8Array; summary: ApplicationSummary }> {
  const isPath = typeof xml === 'string' && !xml.trimStart().startsWith('<');
  const data = isPath || typeof xml !== 'string' ? xml : new TextEncoder().encode(xml);
  const { bytes, name } = await readInput(data, 'application XML', MAX_APPLICATION_BYTES);
  return { bytes, summary: checkApplicationXml(new TextDecoder().decode(bytes), name) };
}

/**
 * Checks and stores an application XML; with the firm's CSID it is stored as its application's
 * (owner: the workflow id of its external id), so the application's retention deletes it.
 */
export async function storeApplication(
  store: DocumentStore,
  xml: Uint8Array | string,
  csid?: string,
): Promise<{ ref: DocumentRef; summary: ApplicationSummary }> {
  const { bytes, summary } = await readApplicationXml(xml);
  const owner = csid === undefined ? undefined : applicationWorkflowId(csid, summary.externalId!);
  // Its meaning's digest goes with the reference: a start tells the same application written differently by it.
  const ref = { ...(await store.put(bytes, { owner })), canonicalSha256: canonicalXmlSha256(bytes) };
  return { ref, summary };
}

/** Checks and stores PDFs; with `owner` (an application's workflow id) they are that application's. */
export async function storeDocuments(
  store: DocumentStore,
  documents: DocumentInput[],
  owner?: string,
): Promise<FormDocument[]> {
  return Promise.all(
    documents.map(async (document, index) => {
      const label = typeof document.data === 'string' ? document.data : `documents[${index}]`;
      if (!/^\d+$/.test(document.formNumber ?? '')) {
        throw new InvalidInputError(label, `form number "${document.formNumber}" is not numeric`);
      }
      const { bytes, name } = await readInput(document.data, 'PDF', MAX_DOCUMENT_BYTES, label);
      if (new TextDecoder().decode(bytes.subarray(0, 5)) !== '%PDF-') {
        throw new InvalidInputError(label, 'is not a PDF (it does not start with %PDF-)');
      }
      const fileName = document.fileName ?? name ?? `form-${document.formNumber}.pdf`;
      if (!PDF_FILE_NAME.test(fileName)) {
        throw new InvalidInputError(label, `file name "${fileName}" must be a plain name ending in .pdf`);
      }
      return { ...(await store.put(bytes, { owner })), formNumber: document.formNumber, fileName };
    }),
  );
}

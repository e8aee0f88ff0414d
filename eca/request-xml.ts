/**
 * Request XML of the file operations, as the firm writes it:
 *
 * - submitDocuments request: `AcctMgmtRequests` (import-schema namespace) / `ProcessDocuments` / `Document` /
 *   `AttachedFile`, and the same documents under `DocumentSubmission@ib_acct` for the update operation;
 * - update requests in general: `AcctMgmtRequests` / `<FunctionName ib_acct="…">body</FunctionName>`.
 *
 * The brokerage's readers of these files live with the simulator (simulator/formats/request-xml.ts).
 */
import { checkFileName } from './archive.js';
import type { AttachmentDigest } from './archive.js';
import { EcaRequestError } from './errors.js';
import { formatCompactTimestamp, parseTimestamp } from './types.js';
import { buildXml, escapeXml, isXmlName, xmlWellFormednessError } from './xml-tree.js';
import type { XmlElementSpec } from './xml-tree.js';

/**
 * The brokerage's import-schema namespace (`{import_schema_namespace}` in the spec), the one firms' application
 * files and request files are written in. A deployment told another one passes it (client option
 * `importNamespace`). Readers of this library match local names; the brokerage refuses a request root outside it.
 */
export const IMPORT_SCHEMA_NAMESPACE = 'http://www.interactivebrokers.com/schemas/IBCust_import';

/** The namespace request XML is written in unless the caller names another: {@link IMPORT_SCHEMA_NAMESPACE}. */
export const DEFAULT_IMPORT_NAMESPACE = IMPORT_SCHEMA_NAMESPACE;

export const REQUESTS_ROOT = 'AcctMgmtRequests';

// ---------------------------------------------------------------------------------------------------------------
// Document requests (submitDocuments, update/DocumentSubmission)

export interface DocumentInput {
  /** Form number of the pending task or document. */
  formNumber: string;
  /** When the customer executed (signed) the agreement; written `YYYYMMDDHHMMSS` in UTC. */
  execTs: Date | string;
  /** Login time of the session in which the client acknowledged the agreement. */
  execLoginTs: Date | string;
  files: AttachmentDigest[];
}

function compactTimestamp(value: Date | string, parameter: string): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new EcaRequestError(parameter, 'invalid date');
    return formatCompactTimestamp(value);
  }
  if (typeof value === 'string') {
    const text = value.trim();
    if (/^\d{14}$/.test(text)) {
      if (parseTimestamp(text).date) return text;
      throw new EcaRequestError(parameter, 'not a valid YYYYMMDDHHMMSS timestamp');
    }
    // ISO-8601 text with an explicit zone (or Z) is unambiguous; bare local times are not accepted.
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(text)) {
      const date = new Date(text);
      if (!Number.isNaN(date.getTime())) return formatCompactTimestamp(date);
    }
  }
  throw new EcaRequestError(parameter, 'expected a Date, YYYYMMDDHHMMSS or an ISO-8601 time with zone');
}

function documentElements(documents: DocumentInput[], parameter: string): XmlElementSpec[] {
  if (!Array.isArray(documents) || documents.length === 0) {
    throw new EcaRequestError(parameter, 'at least one document is required');
  }
  return documents.map((document, index) => {
    const at = `${parameter}[${index}]`;
    if (typeof document.formNumber !== 'string' || document.formNumber.trim() === '') {
      throw new EcaRequestError(`${at}.formNumber`, 'form number is required');
    }
    if (!Array.isArray(document.files) || document.files.length === 0) {
      throw new EcaRequestError(`${at}.files`, 'each document needs at least one attached file');
    }
    return {
      name: 'Document',
      attributes: {
        form_no: document.formNumber.trim(),
        exec_ts: compactTimestamp(document.execTs, `${at}.execTs`),
        exec_login_ts: compactTimestamp(document.execLoginTs, `${at}.execLoginTs`),
      },
      children: document.files.map((file, fileIndex) => {
        const fileAt = `${at}.files[${fileIndex}]`;
        checkFileName(file.fileName, `${fileAt}.fileName`);
        if (typeof file.sha1 !== 'string' || !/^[0-9a-fA-F]{40}$/.test(file.sha1)) {
          throw new EcaRequestError(`${fileAt}.sha1`, 'expected 40 hexadecimal digits');
        }
        if (!Number.isSafeInteger(file.length) || file.length < 0) {
          throw new EcaRequestError(`${fileAt}.length`, 'expected a non-negative integer byte count');
        }
        return {
          name: 'AttachedFile',
          attributes: {
            file_name: file.fileName,
            sha1_checksum: file.sha1.toLowerCase(),
            file_length: String(file.length),
          },
        };
      }),
    };
  });
}

function requestsRoot(namespace: string | undefined, children: XmlElementSpec[]): XmlElementSpec {
  return { name: REQUESTS_ROOT, attributes: { xmlns: namespace ?? DEFAULT_IMPORT_NAMESPACE }, children };
}

/** The submitDocuments request file: `AcctMgmtRequests/ProcessDocuments/Document/AttachedFile`. */
export function buildSubmitDocumentsXml(input: { namespace?: string; documents: DocumentInput[] }): string {
  return buildXml(
    requestsRoot(input.namespace, [
      { name: 'ProcessDocuments', children: documentElements(input.documents, 'documents') },
    ]),
  );
}

function checkAccountId(accountId: unknown, parameter = 'accountId'): string {
  if (typeof accountId !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(accountId.trim())) {
    throw new EcaRequestError(parameter, 'expected an account number');
  }
  return accountId.trim();
}

/** The update request that submits documents of a pending application: `AcctMgmtRequests/DocumentSubmission@ib_acct/…`. */
export function buildDocumentSubmissionXml(input: {
  namespace?: string;
  accountId: string;
  documents: DocumentInput[];
}): string {
  return buildXml(
    requestsRoot(input.namespace, [
      {
        name: 'DocumentSubmission',
        attributes: { ib_acct: checkAccountId(input.accountId) },
        children: documentElements(input.documents, 'documents'),
      },
    ]),
  );
}

/**
 * An update request of any function: `<AcctMgmtRequests xmlns="…"><FunctionName ib_acct="U123" …>bodyXml</FunctionName></AcctMgmtRequests>`.
 * `bodyXml` is the function's content as an XML fragment (may be empty, e.g. AbandonAccount); it must be
 * well-formed. `attributes` are written on the function element after `ib_acct`.
 */
export function buildUpdateRequestXml(input: {
  namespace?: string;
  accountId?: string;
  functionName: string;
  bodyXml?: string;
  attributes?: Record<string, string>;
}): string {
  if (typeof input.functionName !== 'string' || !isXmlName(input.functionName)) {
    throw new EcaRequestError('functionName', 'expected an XML element name such as AbandonAccount');
  }
  const attributes: Array<[string, string]> = [];
  if (input.accountId !== undefined) attributes.push(['ib_acct', checkAccountId(input.accountId)]);
  for (const [name, value] of Object.entries(input.attributes ?? {})) {
    if (!isXmlName(name) || name === 'ib_acct' || name === 'xmlns') {
      throw new EcaRequestError(`attributes.${name}`, 'not an allowed attribute name');
    }
    attributes.push([name, value]);
  }
  const body = input.bodyXml?.trim() ?? '';
  if (body !== '') {
    const problem = xmlWellFormednessError(`<fragment>${body}</fragment>`);
    if (problem) throw new EcaRequestError('bodyXml', problem.replace('the XML', 'the body fragment'));
  }
  const attributeText = attributes.map(([name, value]) => ` ${name}="${escapeXml(value)}"`).join('');
  const element =
    body === ''
      ? `<${input.functionName}${attributeText}/>`
      : `<${input.functionName}${attributeText}>${body}</${input.functionName}>`;
  const namespace = escapeXml(input.namespace ?? DEFAULT_IMPORT_NAMESPACE);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${REQUESTS_ROOT} xmlns="${namespace}">${element}</${REQUESTS_ROOT}>\n`;
}

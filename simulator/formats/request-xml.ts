/**
 * The brokerage's readers of the firm's request files: the submitDocuments request
 * (`AcctMgmtRequests/ProcessDocuments/Document/AttachedFile`) and update requests (one function element per
 * request under `AcctMgmtRequests`). The firm's writers are in eca/request-xml.ts.
 *
 * Held to the spec's words: the root is `AcctMgmtRequests` "in the namespace {import_schema_namespace}" (any other
 * namespace, or none, is refused), and `exec_ts` / `exec_login_ts` are `YYYYMMDDHHMMSS` (fourteen digits of a real
 * time; `2026-01-01 10:00:00` and other forms are refused).
 */
import { EcaSchemaError } from '../../eca/errors.js';
import { IMPORT_SCHEMA_NAMESPACE, REQUESTS_ROOT } from '../../eca/request-xml.js';
import { parseTimestamp } from '../../eca/types.js';
import type { Timestamp } from '../../eca/types.js';
import { attr, childrenNamed, firstChild, parseXmlTree, rootNamespace } from '../../eca/xml-tree.js';
import type { XmlNode } from '../../eca/xml-tree.js';

export interface ParsedAttachedFile {
  fileName: string;
  sha1: string;
  /** Byte length as written; NaN when the text is not an integer. */
  length: number;
}

export interface ParsedDocument {
  formNumber: string;
  execTs: Timestamp;
  execLoginTs: Timestamp;
  files: ParsedAttachedFile[];
}

function requiredAttr(node: XmlNode, name: string, path: string): string {
  const value = attr(node, name);
  if (value === undefined) throw new EcaSchemaError(`${path}@${name}`, 'attribute is missing');
  return value;
}

/** `YYYYMMDDHHMMSS`, the only form the spec gives `exec_ts` and `exec_login_ts`. */
function compactTimestamp(node: XmlNode, name: string, path: string): Timestamp {
  const text = requiredAttr(node, name, path);
  const parsed = /^\d{14}$/.test(text) ? parseTimestamp(text) : undefined;
  if (parsed?.date === undefined) {
    throw new EcaSchemaError(`${path}@${name}`, `expected YYYYMMDDHHMMSS, found ${JSON.stringify(text)}`);
  }
  return parsed;
}

function parseDocuments(container: XmlNode, path: string): ParsedDocument[] {
  return childrenNamed(container, 'Document').map((document, index) => {
    const at = `${path}/Document[${index + 1}]`;
    return {
      formNumber: requiredAttr(document, 'form_no', at),
      execTs: compactTimestamp(document, 'exec_ts', at),
      execLoginTs: compactTimestamp(document, 'exec_login_ts', at),
      files: childrenNamed(document, 'AttachedFile').map((file, fileIndex) => {
        const fileAt = `${at}/AttachedFile[${fileIndex + 1}]`;
        const lengthText = requiredAttr(file, 'file_length', fileAt);
        return {
          fileName: requiredAttr(file, 'file_name', fileAt),
          sha1: requiredAttr(file, 'sha1_checksum', fileAt).toLowerCase(),
          length: /^\d+$/.test(lengthText) ? Number(lengthText) : Number.NaN,
        };
      }),
    };
  });
}

function requestsRootOf(xml: string): XmlNode {
  const root = parseXmlTree(xml, REQUESTS_ROOT);
  if (root.name !== REQUESTS_ROOT) throw new EcaSchemaError(root.name, `expected root element ${REQUESTS_ROOT}`);
  const namespace = rootNamespace(xml, REQUESTS_ROOT);
  if (namespace !== IMPORT_SCHEMA_NAMESPACE) {
    throw new EcaSchemaError(
      REQUESTS_ROOT,
      `the root element must be in the namespace ${IMPORT_SCHEMA_NAMESPACE}, found ${namespace ?? 'no namespace'}`,
    );
  }
  return root;
}

/** Reads a submitDocuments request file (the brokerage side). */
export function parseSubmitDocumentsXml(xml: string): { documents: ParsedDocument[] } {
  const root = requestsRootOf(xml);
  const container = firstChild(root, 'ProcessDocuments');
  if (!container) throw new EcaSchemaError(`${REQUESTS_ROOT}/ProcessDocuments`, 'element is missing');
  const documents = parseDocuments(container, `${REQUESTS_ROOT}/ProcessDocuments`);
  if (documents.length === 0) throw new EcaSchemaError(`${REQUESTS_ROOT}/ProcessDocuments/Document`, 'no documents');
  return { documents };
}

export interface ParsedUpdateRequest {
  functionName: string;
  accountId?: string;
  /** Attributes of the function element (ib_acct included). */
  attributes: Record<string, string>;
  /** Documents, for DocumentSubmission. */
  documents?: ParsedDocument[];
  /** The function element itself, for functions whose content the caller interprets. */
  element: XmlNode;
}

/** Reads an update request file (the brokerage side): one entry per function element under the root. */
export function parseUpdateRequestXml(xml: string): ParsedUpdateRequest[] {
  const root = requestsRootOf(xml);
  return root.children.map((element, index) => {
    const accountId = attr(element, 'ib_acct');
    const request: ParsedUpdateRequest = {
      functionName: element.name,
      attributes: { ...element.attributes },
      element,
    };
    if (accountId !== undefined) request.accountId = accountId;
    if (element.name === 'DocumentSubmission') {
      request.documents = parseDocuments(element, `${REQUESTS_ROOT}/DocumentSubmission[${index + 1}]`);
    }
    return request;
  });
}

/**
 * A small element tree over fast-xml-parser, shared by every XML reader and writer of the library. Namespace
 * prefixes and `xmlns` declarations are dropped when reading, so documents are matched by local names whatever
 * namespace the brokerage configures; attribute names are exposed without any prefix.
 */
import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { EcaSchemaError } from './errors.js';

export interface XmlNode {
  name: string;
  attributes: Record<string, string>;
  children: XmlNode[];
  /** Concatenated text content directly inside this element (trimmed). */
  text: string;
}

type OrderedEntry = Record<string, unknown>;

const ATTRIBUTES = ':@';
const TEXT = '#text';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Only the built-in entities are decoded: documents with a DOCTYPE are refused before parsing.
  processEntities: true,
  htmlEntities: false,
});

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function toNode(entry: OrderedEntry): XmlNode | undefined {
  const name = Object.keys(entry).find((key) => key !== ATTRIBUTES);
  if (name === undefined || name === TEXT || name.startsWith('?') || name.startsWith('!')) return undefined;
  const attributes: Record<string, string> = {};
  const rawAttributes = entry[ATTRIBUTES];
  if (isRecord(rawAttributes)) {
    for (const [attribute, value] of Object.entries(rawAttributes)) {
      if (attribute === 'xmlns' || attribute.startsWith('xmlns:')) continue;
      attributes[attribute] = typeof value === 'string' ? value : String(value);
    }
  }
  const children: XmlNode[] = [];
  const texts: string[] = [];
  const content = entry[name];
  if (Array.isArray(content)) {
    for (const child of content as unknown[]) {
      if (!isRecord(child)) continue;
      if (TEXT in child) {
        const value = child[TEXT];
        if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
          texts.push(String(value));
        }
        continue;
      }
      const node = toNode(child);
      if (node) children.push(node);
    }
  }
  return { name, attributes, children, text: texts.join('').trim() };
}

/** Well-formedness check; returns an error text with line and column, or undefined when the XML is well-formed. */
export function xmlWellFormednessError(xml: string): string | undefined {
  if (typeof xml !== 'string' || xml.trim() === '') return 'the XML is empty';
  // No document of this protocol needs a DTD, and entity definitions are an expansion (denial-of-service) vector.
  if (/<!DOCTYPE/i.test(xml)) return 'the XML must not contain a DOCTYPE declaration';
  const result = XMLValidator.validate(xml);
  if (result === true) return undefined;
  return `the XML is not well-formed: ${result.err.msg} (line ${result.err.line}, column ${result.err.col})`;
}

/**
 * Runs a parser over XML the validator accepted. The parser refuses more than the validator does (elements nested
 * deeper than its limit, the names `__proto__`, `constructor` and `prototype`): that is EcaSchemaError at path
 * `what`, with a fixed text and no cause (the parser's own messages may quote the document).
 */
function parseWith(xmlParser: XMLParser, xml: string, what: string): unknown {
  try {
    return xmlParser.parse(xml) as unknown;
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : '';
    const problem = /nested/i.test(message)
      ? 'the XML nests elements too deeply'
      : /reserved/i.test(message)
        ? 'the XML uses a reserved name (__proto__, constructor or prototype) for an element or attribute'
        : 'the XML cannot be read';
    throw new EcaSchemaError(what, problem);
  }
}

const namespaceParser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  processEntities: true,
  htmlEntities: false,
});

/**
 * The namespace URI of the root element, from the declarations on the root itself (`xmlns`, or `xmlns:p` for a
 * root written `p:Name`); undefined when the root is in no namespace. Readers match local names only, so a check
 * of the namespace is this separate step. Malformed XML raises EcaSchemaError at path `what`.
 */
export function rootNamespace(xml: string, what = 'xml'): string | undefined {
  const problem = xmlWellFormednessError(xml);
  if (problem) throw new EcaSchemaError(what, problem);
  const entries = parseWith(namespaceParser, xml, what);
  const root = Array.isArray(entries)
    ? (entries as unknown[]).filter(isRecord).find((entry) => {
        const name = Object.keys(entry).find((key) => key !== ATTRIBUTES);
        return name !== undefined && name !== TEXT && !name.startsWith('?') && !name.startsWith('!');
      })
    : undefined;
  if (!root) return undefined;
  const name = Object.keys(root).find((key) => key !== ATTRIBUTES) ?? '';
  const colon = name.indexOf(':');
  const declaration = colon < 0 ? 'xmlns' : `xmlns:${name.slice(0, colon)}`;
  const attributes = root[ATTRIBUTES];
  const uri = isRecord(attributes) ? attributes[declaration] : undefined;
  return typeof uri === 'string' && uri.trim() !== '' ? uri.trim() : undefined;
}

/** Parses a document into its root element; malformed XML raises EcaSchemaError at path `what`. */
export function parseXmlTree(xml: string, what = 'xml'): XmlNode {
  const problem = xmlWellFormednessError(xml);
  if (problem) throw new EcaSchemaError(what, problem);
  const entries = parseWith(parser, xml, what);
  const roots = Array.isArray(entries)
    ? (entries as unknown[])
        .filter(isRecord)
        .map(toNode)
        .filter((node) => node !== undefined)
    : [];
  const [root, ...others] = roots;
  if (!root || others.length > 0) throw new EcaSchemaError(what, 'the XML must have exactly one root element');
  return root;
}

export function childrenNamed(node: XmlNode | undefined, name: string): XmlNode[] {
  return node ? node.children.filter((child) => child.name === name) : [];
}

export function firstChild(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((child) => child.name === name);
}

/** Follows a path of local names, taking the first match at each step. */
export function descend(node: XmlNode | undefined, ...names: string[]): XmlNode | undefined {
  let current = node;
  for (const name of names) current = firstChild(current, name);
  return current;
}

/** Attribute value, trimmed; undefined when absent or blank. */
export function attr(node: XmlNode | undefined, name: string): string | undefined {
  const value = node?.attributes[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** An element to serialise: attributes with undefined values are left out. */
export interface XmlElementSpec {
  name: string;
  attributes?: Record<string, string | undefined>;
  children?: XmlElementSpec[];
  text?: string;
}

const builder = new XMLBuilder({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  format: true,
  indentBy: '  ',
  processEntities: true,
});

const XML_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;

export function isXmlName(name: string): boolean {
  return XML_NAME.test(name);
}

function toOrdered(spec: XmlElementSpec): OrderedEntry {
  if (!isXmlName(spec.name)) throw new Error(`invalid XML element name ${JSON.stringify(spec.name)}`);
  const content: OrderedEntry[] = [];
  if (spec.text !== undefined && spec.text !== '') content.push({ [TEXT]: spec.text });
  for (const child of spec.children ?? []) content.push(toOrdered(child));
  const entry: OrderedEntry = { [spec.name]: content };
  const attributes: Record<string, string> = {};
  for (const [attribute, value] of Object.entries(spec.attributes ?? {})) {
    if (value !== undefined) attributes[`@_${attribute}`] = value;
  }
  if (Object.keys(attributes).length > 0) entry[ATTRIBUTES] = attributes;
  return entry;
}

export const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>';

/** Serialises an element tree with an XML declaration; text and attribute values are escaped. */
export function buildXml(root: XmlElementSpec): string {
  const body = builder.build([toOrdered(root)]).trim();
  return `${XML_DECLARATION}\n${body}\n`;
}

/** Serialises a tree without declaration, for embedding inside a larger document. */
export function buildXmlFragment(root: XmlElementSpec): string {
  return builder.build([toOrdered(root)]).trim();
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text for use inside an attribute value or element content. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

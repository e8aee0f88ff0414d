/**
 * An application XML's meaning, not its bytes: a canonical form in the spirit of Canonical XML (C14N), and
 * its digest. Two files that differ only in what XML says carries no meaning are the same application to
 * `startApplication`'s idempotency (client/applications.ts): the order of attributes, the quotes around
 * them, whitespace between elements, the XML declaration, comments and processing instructions, how a
 * character is written (`&amp;`, `&#38;`, CDATA) and `<a/>` against `<a></a>`. Text that is not only
 * whitespace is kept exactly, as are element and attribute names with their prefixes.
 */
import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: false,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // Decoded here instead (`decode`): the parser leaves character references as they are written.
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
});

type OrderedNode = Record<string, unknown> & { ':@'?: Record<string, unknown> };

const TEXT = '#text';
const CDATA = '#cdata';

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** The built-in entities and character references as the characters they stand for. */
const decode = (text: string) =>
  text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|lt|gt|amp|quot|apos);/g, (whole, name: string) => {
    if (!name.startsWith('#')) return ENTITIES[name] ?? whole;
    const code = name[1] === 'x' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });

const escapeText = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');

const escapeAttribute = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/"/g, '&quot;')
    .replace(/\t/g, '&#x9;')
    .replace(/\n/g, '&#xA;')
    .replace(/\r/g, '&#xD;');

function serialize(nodes: OrderedNode[]): string {
  let out = '';
  // Text between two elements, however it was split (CDATA sections, comments), is one run.
  let text = '';
  const flush = () => {
    // Whitespace alone between elements carries no meaning (indentation, line ends).
    if (text.trim() !== '') out += escapeText(text);
    text = '';
  };
  for (const node of nodes) {
    const name = Object.keys(node).find((key) => key !== ':@');
    if (name === undefined) continue;
    if (name === TEXT) {
      text += decode(String(node[TEXT]));
      continue;
    }
    if (name === CDATA) {
      // A CDATA section's text is as written: nothing in it is a reference.
      for (const part of (node[CDATA] as { [TEXT]?: string }[] | undefined) ?? []) text += part[TEXT] ?? '';
      continue;
    }
    flush();
    const attributes = Object.entries(node[':@'] ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ` ${key}="${escapeAttribute(decode(String(value)))}"`)
      .join('');
    const children = Array.isArray(node[name]) ? (node[name] as OrderedNode[]) : [];
    out += `<${name}${attributes}>${serialize(children)}</${name}>`;
  }
  flush();
  return out;
}

/** The canonical form of a well-formed XML document (see the module's comment). */
export function canonicalXml(xml: string): string {
  return serialize(parser.parse(xml) as OrderedNode[]);
}

/** SHA-256 (lower-case hex) of the canonical form: what `startApplication` compares besides the bytes' SHA-1. */
export function canonicalXmlSha256(xml: Uint8Array | string): string {
  const text = typeof xml === 'string' ? xml : new TextDecoder().decode(xml);
  return createHash('sha256').update(canonicalXml(text), 'utf8').digest('hex');
}

/**
 * Whether the application a workflow runs on is the one a start gives: the same bytes (what every workflow
 * recorded), or the same meaning, by the digest of the canonical form that workflows started from 2.0 on
 * recorded beside it: attributes in another order, other whitespace between
 * elements, another XML declaration or comments are the same application.
 */
export function sameApplication(
  recorded: { sha1: string; canonicalSha256?: string },
  given: { sha1: string; canonicalSha256?: string },
): boolean {
  if (recorded.sha1 === given.sha1) return true;
  return recorded.canonicalSha256 !== undefined && recorded.canonicalSha256 === given.canonicalSha256;
}

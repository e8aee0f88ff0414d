/**
 * ZIP archives of the file operations: the request XML plus attachments (PDFs), with the SHA-1 and uncompressed
 * length that the request XML must quote for every attachment. Written with archiver; the brokerage's reader is
 * simulator/formats/archive.ts.
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type { Archiver, ArchiverOptions } from 'archiver';
import { EcaRequestError } from './errors.js';

// archiver 7 is CommonJS with a factory as its export, while @types/archiver 8 describes the class-based v8 API;
// loading through require keeps the runtime shape and the shared class types.
type ArchiverFactory = (format: 'zip', options?: ArchiverOptions) => Archiver;
const createArchiver = createRequire(import.meta.url)('archiver') as ArchiverFactory;

export interface ArchiveAttachment {
  fileName: string;
  data: Uint8Array;
}

export interface AttachmentDigest {
  fileName: string;
  /** Lower-case hexadecimal SHA-1 of the uncompressed bytes. */
  sha1: string;
  /** Uncompressed length in bytes. */
  length: number;
}

export interface BuiltArchive {
  zip: Uint8Array;
  attachments: AttachmentDigest[];
}

export function sha1Hex(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

// eslint-disable-next-line no-control-regex
const UNSAFE_NAME = /[/\\:\u0000-\u001f\u007f]/;

/**
 * A name is safe when it is a plain file name: the service matches `file_name` in the XML against the archive entry,
 * so nested paths, traversal and control characters are refused rather than normalised.
 */
export function checkFileName(fileName: unknown, parameter: string): string {
  if (typeof fileName !== 'string' || fileName.trim() === '') {
    throw new EcaRequestError(parameter, 'file name is empty');
  }
  if (fileName !== fileName.trim()) throw new EcaRequestError(parameter, 'file name has leading or trailing spaces');
  if (UNSAFE_NAME.test(fileName)) {
    throw new EcaRequestError(parameter, 'file name contains a path separator, colon or control character');
  }
  if (fileName === '.' || fileName === '..' || fileName.includes('..')) {
    throw new EcaRequestError(parameter, 'file name contains "..": path traversal is not allowed');
  }
  if (Buffer.byteLength(fileName, 'utf8') > 255) throw new EcaRequestError(parameter, 'file name is too long');
  return fileName;
}

/** The service processes the one `.xml` entry of an archive. */
export function isXmlFileName(fileName: string): boolean {
  return fileName.toLowerCase().endsWith('.xml');
}

function asBuffer(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * Builds the ZIP. The XML file must end in `.xml` and no attachment may: the service processes the one `.xml` file.
 * Names are compared case-insensitively because archives are unpacked on file systems that fold case.
 */
export async function buildArchive(input: {
  xml: { fileName: string; content: string };
  attachments?: ArchiveAttachment[];
}): Promise<BuiltArchive> {
  const xmlName = checkFileName(input.xml.fileName, 'xml.fileName');
  if (!isXmlFileName(xmlName)) throw new EcaRequestError('xml.fileName', 'the request XML file name must end in .xml');
  if (typeof input.xml.content !== 'string' || input.xml.content.trim() === '') {
    throw new EcaRequestError('xml.content', 'the request XML is empty');
  }
  const seen = new Set<string>([xmlName.toLowerCase()]);
  const attachments = input.attachments ?? [];
  const digests: AttachmentDigest[] = attachments.map((attachment, index) => {
    const parameter = `attachments[${index}].fileName`;
    const name = checkFileName(attachment.fileName, parameter);
    if (isXmlFileName(name)) {
      throw new EcaRequestError(
        parameter,
        'an attachment must not end in .xml: the archive holds exactly one XML file',
      );
    }
    if (seen.has(name.toLowerCase()))
      throw new EcaRequestError(parameter, 'duplicate file name (names are compared case-insensitively)');
    seen.add(name.toLowerCase());
    if (!(attachment.data instanceof Uint8Array)) {
      throw new EcaRequestError(`attachments[${index}].data`, 'attachment data must be bytes');
    }
    return { fileName: name, sha1: sha1Hex(attachment.data), length: attachment.data.byteLength };
  });

  const zip = createArchiver('zip', { zlib: { level: 9 } });
  const chunks: Buffer[] = [];
  const done = new Promise<void>((resolve, reject) => {
    zip.on('data', (chunk: Buffer) => chunks.push(chunk));
    zip.on('error', reject);
    zip.on('warning', reject);
    zip.on('end', () => resolve());
  });
  // A fixed entry date keeps archives of identical input byte-identical.
  const date = new Date('2000-01-01T00:00:00Z');
  zip.append(Buffer.from(input.xml.content, 'utf8'), { name: xmlName, date });
  attachments.forEach((attachment, index) => {
    zip.append(asBuffer(attachment.data), { name: digests[index]?.fileName ?? attachment.fileName, date });
  });
  await Promise.all([zip.finalize(), done]);
  const joined = Buffer.concat(chunks);
  return { zip: new Uint8Array(joined.buffer, joined.byteOffset, joined.byteLength), attachments: digests };
}

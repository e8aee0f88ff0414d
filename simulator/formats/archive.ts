/** The brokerage's reader of the ZIP archives that eca's `buildArchive` writes (reading uses fflate). */
import { unzipSync } from 'fflate';
import { isXmlFileName } from '../../eca/archive.js';
import { EcaRequestError } from '../../eca/errors.js';

export interface ReadArchive {
  /** The one `.xml` entry; undefined when the archive holds none or several (see `xmlFileNames`). */
  xml: { fileName: string; content: string } | undefined;
  /** Every `.xml` entry name, so a reader can tell "none" from "ambiguous". */
  xmlFileNames: string[];
  /** Every file entry (the XML included), by entry name. */
  files: Map<string, Uint8Array>;
}

/** Guards against archives that inflate far beyond any plausible set of PDFs. */
export const DEFAULT_MAX_UNCOMPRESSED_BYTES = 256 * 1024 * 1024;

export function readArchive(zip: Uint8Array, opts: { maxUncompressedBytes?: number } = {}): ReadArchive {
  const limit = opts.maxUncompressedBytes ?? DEFAULT_MAX_UNCOMPRESSED_BYTES;
  let declared = 0;
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(zip, {
      filter: (file) => {
        declared += file.originalSize;
        if (declared > limit) throw new EcaRequestError('payload', 'archive inflates beyond the size limit');
        return true;
      },
    });
  } catch (cause) {
    if (cause instanceof EcaRequestError) throw cause;
    throw new EcaRequestError('payload', 'not a readable ZIP archive', { cause });
  }
  const files = new Map<string, Uint8Array>();
  for (const [name, data] of Object.entries(entries)) {
    if (name.endsWith('/')) continue;
    files.set(name, data);
  }
  const xmlFileNames = [...files.keys()].filter(isXmlFileName);
  const onlyXml = xmlFileNames.length === 1 ? xmlFileNames[0] : undefined;
  const xmlBytes = onlyXml === undefined ? undefined : files.get(onlyXml);
  const xml =
    onlyXml === undefined || xmlBytes === undefined
      ? undefined
      : { fileName: onlyXml, content: new TextDecoder('utf-8', { ignoreBOM: false }).decode(xmlBytes) };
  return { xml, xmlFileNames, files };
}

/** Application and PDF files named on the command line: one by one, or many through a folder or a batch CSV. */
import { lstat, open, readdir, realpath, stat } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { basename, dirname, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { CsvError, parse as parseCsv } from 'csv-parse/sync';
import type { DocumentInput } from '../documents.js';
import { InvalidInputError } from '../errors.js';

/** `FORM:path.pdf`, or a path whose file name starts with the form number (`8001-passport.pdf`). */
export function parseDocumentArgument(argument: string): DocumentInput {
  const explicit = /^(\d+):(.+)$/.exec(argument);
  if (explicit) return { formNumber: explicit[1]!, data: explicit[2]! };
  const inferred = /^(\d+)[-_ ]/.exec(basename(argument));
  if (inferred) return { formNumber: inferred[1]!, data: argument };
  throw new InvalidInputError(argument, 'give the form number as FORM:path.pdf (or name the file <form>-....pdf)');
}

export interface BatchItem {
  application: string;
  documents: DocumentInput[];
}

/** Whether `path` lies inside `folder` (both absolute); `orSame`: the folder itself counts too. */
function isInside(folder: string, path: string, orSame = false): boolean {
  const inside = relative(folder, path);
  if (inside === '') return orSame;
  return !(inside === '..' || inside.startsWith(`..${sep}`) || isAbsolute(inside));
}

/** An error of the file system, as its code (`ENOENT`, `ELOOP`), or the error itself when it has none. */
function errnoCode(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

/** A path named in a batch CSV, resolved against the CSV's folder and refused when it leads out of it. */
export function insideFolder(base: string, path: string, where: string): string {
  const full = resolve(base, path);
  if (!isInside(base, full)) {
    throw new InvalidInputError(where, `${JSON.stringify(path)} is outside the CSV's folder ${base}`);
  }
  return full;
}

/**
 * A path named in a batch CSV as the file it really is, symbolic links followed (fs.realpath), refused
 * when that is outside the CSV's folder: `docs/x.pdf`, where `docs` or `x.pdf` is a link to elsewhere,
 * is refused as `../x.pdf` is. The real path is what is read later. A file that is not there is left
 * for the read to report (that row alone fails), once the part of its path that exists is inside.
 */
export async function realInsideFolder(base: string, path: string, where: string): Promise<string> {
  const full = insideFolder(base, path, where);
  const refuse = (why: string) => new InvalidInputError(where, `${JSON.stringify(path)} ${why}`);
  let folder: string;
  try {
    folder = await realpath(base);
  } catch (error) {
    throw new InvalidInputError(where, `the CSV's folder ${base} cannot be resolved: ${errnoCode(error)}`);
  }
  const missing: string[] = [];
  for (let existing = full; ; existing = dirname(existing)) {
    let real: string;
    try {
      real = await realpath(existing);
    } catch (error) {
      const code = errnoCode(error);
      if ((code !== 'ENOENT' && code !== 'ENOTDIR') || existing === dirname(existing)) {
        throw refuse(`cannot be resolved: ${code}`);
      }
      missing.unshift(basename(existing));
      continue;
    }
    if (!isInside(folder, real, missing.length > 0)) {
      throw refuse(`leads to ${JSON.stringify(real)}, outside the CSV's folder ${folder} (through a symbolic link)`);
    }
    if (missing.length === 0) return real;
    // A link whose target is missing would be followed by the read: refused, whatever it points to.
    const first = join(real, missing[0]!);
    const isLink = await lstat(first).then(
      (info) => info.isSymbolicLink(),
      () => false,
    );
    if (isLink) throw refuse(`leads to ${JSON.stringify(first)}, a symbolic link to a missing file`);
    return join(real, ...missing);
  }
}

/** A batch CSV larger than this is refused: a file before it is read, a pipe once it has sent this much. */
export const MAX_BATCH_CSV_BYTES = 10 * 1024 * 1024;

/** Names of this process's standard input: read from the descriptor it has (a pipe, a socket, a file). */
const STDIN_PATHS = new Set(['/dev/stdin', '/dev/fd/0', '/proc/self/fd/0']);

/** `chunks` joined, refused (and `stop` called, nothing more read) as soon as they pass `limit` bytes. */
async function upTo(source: string, chunks: AsyncIterable<Uint8Array>, limit: number, stop: () => void) {
  const read: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of chunks) {
    total += chunk.byteLength;
    if (total > limit) {
      stop();
      throw new InvalidInputError(source, `the input passed the ${limit}-byte limit: reading stopped there`);
    }
    read.push(chunk);
  }
  return Buffer.concat(read, total);
}

/** A file's chunks, from where its handle stands to its end (a pipe or a device: until it closes). */
async function* chunksOf(handle: FileHandle): AsyncGenerator<Uint8Array> {
  for (;;) {
    const chunk = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
    if (bytesRead === 0) return;
    yield chunk.subarray(0, bytesRead);
  }
}

/**
 * The bytes of a batch CSV, at most `limit`: a file's size is checked before a byte is read; standard
 * input (`/dev/stdin`), a pipe or a device (`<(…)`), whose size is unknown, is read until it ends, and
 * refused as soon as it has sent more than `limit` (what is left is never read).
 */
export async function readBatchCsv(source: string, limit = MAX_BATCH_CSV_BYTES): Promise<Buffer> {
  let handle: FileHandle | undefined;
  try {
    if (STDIN_PATHS.has(source)) {
      return await upTo(source, process.stdin as AsyncIterable<Uint8Array>, limit, () => process.stdin.destroy());
    }
    handle = await open(source, 'r');
    const info = await handle.stat();
    if (info.isFile() && info.size > limit) {
      throw new InvalidInputError(source, `${info.size} bytes is over the ${limit}-byte limit`);
    }
    return await upTo(source, chunksOf(handle), limit, () => undefined);
  } catch (error) {
    if (error instanceof InvalidInputError) throw error;
    throw new InvalidInputError(source, `cannot read the CSV: ${errnoCode(error)}`);
  } finally {
    await handle?.close();
  }
}

/** The rows of a batch CSV: a CSV the parser cannot read is refused with its reason (line, column). */
function csvRows(source: string, bytes: Buffer): Array<Record<string, string | undefined>> {
  try {
    return parseCsv<Record<string, string | undefined>>(bytes, {
      bom: true,
      columns: true,
      skip_empty_lines: true,
      trim: true,
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    throw new InvalidInputError(source, `malformed CSV: ${error.message}`);
  }
}

/** The items of a batch CSV's rows, every path checked to lead inside the CSV's folder. */
async function csvItems(source: string): Promise<BatchItem[]> {
  const rows = csvRows(source, await readBatchCsv(source));
  // A CSV read from standard input names its files from the working directory, not from /dev.
  const base = STDIN_PATHS.has(source) ? process.cwd() : resolve(source, '..');
  const items: BatchItem[] = [];
  for (const [index, row] of rows.entries()) {
    const where = `${source} row ${index + 2}`;
    if (!row.application) throw new InvalidInputError(where, 'the application column is empty');
    const documents: DocumentInput[] = [];
    for (const part of (row.documents ?? '').split(';').map((text) => text.trim())) {
      if (!part) continue;
      let document: DocumentInput;
      try {
        document = parseDocumentArgument(part);
      } catch (error) {
        throw new InvalidInputError(where, (error as Error).message);
      }
      const written = document.data as string;
      // Named as the row names it, whatever the link it may be leads to.
      const data = await realInsideFolder(base, written, where);
      documents.push({ ...document, fileName: document.fileName ?? basename(written), data });
    }
    items.push({ application: await realInsideFolder(base, row.application, where), documents });
  }
  return items;
}

/** The applications of `apply-batch`: every .xml file of a folder, or the rows of a CSV (a file or a pipe). */
export async function batchItems(source: string): Promise<BatchItem[]> {
  let info;
  try {
    info = await stat(source);
  } catch {
    throw new InvalidInputError(source, 'no such file or directory');
  }
  if (info.isDirectory()) {
    const names = (await readdir(source)).filter((name) => extname(name).toLowerCase() === '.xml').sort();
    if (names.length === 0) throw new InvalidInputError(source, 'holds no .xml application files');
    // A symbolic link among them must lead inside the folder too, as a CSV row's file must.
    const items: BatchItem[] = [];
    for (const name of names) {
      items.push({ application: await realInsideFolder(source, name, join(source, name)), documents: [] });
    }
    return items;
  }
  return csvItems(source);
}

/** The documents of `--docs`, `--attach` and the like: none when the option is absent. */
export function documentArguments(argumentsGiven: string[] | undefined): DocumentInput[] {
  return (argumentsGiven ?? []).map(parseDocumentArgument);
}

/** Application and PDF files named on the command line: one by one, or many through a folder or a batch CSV. */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
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

/** A path named in a batch CSV, resolved against the CSV's folder and refused when it leads out of it. */
export function insideFolder(base: string, path: string, where: string): string {
  const full = resolve(base, path);
  const inside = relative(base, full);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new InvalidInputError(where, `"${path}" is outside the CSV's folder ${base}`);
  }
  return full;
}

/** CSV files larger than this are refused before they are read. */
const MAX_BATCH_CSV_BYTES = 10 * 1024 * 1024;

async function csvItems(source: string): Promise<BatchItem[]> {
  const rows = parseCsv<Record<string, string | undefined>>(await readFile(source), {
    columns: true,
    skip_empty_lines: true,
    trim: true,
  });
  const base = resolve(source, '..');
  return rows.map((row, index) => {
    const where = `${source} row ${index + 2}`;
    if (!row.application) throw new InvalidInputError(where, 'the application column is empty');
    const documents = (row.documents ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const document = parseDocumentArgument(part);
        return { ...document, data: insideFolder(base, document.data as string, where) };
      });
    return { application: insideFolder(base, row.application, where), documents };
  });
}

/** The applications of `apply-batch`: every .xml file of a folder, or the rows of a CSV. */
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
    return names.map((name) => ({ application: join(source, name), documents: [] }));
  }
  if (info.size > MAX_BATCH_CSV_BYTES) {
    throw new InvalidInputError(source, `${info.size} bytes is over the ${MAX_BATCH_CSV_BYTES}-byte limit`);
  }
  return csvItems(source);
}

/** The documents of `--docs`, `--attach` and the like: none when the option is absent. */
export function documentArguments(argumentsGiven: string[] | undefined): DocumentInput[] {
  return (argumentsGiven ?? []).map(parseDocumentArgument);
}

/**
 * The firm's forms directory and the record of each day's submission.
 *
 * Forms directory: the agreement and disclosure PDFs the firm downloads from the brokerage's forms
 * server, unchanged, with a manifest `forms.json`:
 *
 * ```json
 * {
 *   "forms": [
 *     { "formNumber": "3230", "title": "Customer Agreement", "file": "3230.pdf", "zh-Hans": "3230.zh-Hans.pdf" },
 *     { "formNumber": "3024", "title": "Privacy Notice", "file": "3024.pdf" },
 *     { "formNumber": "5002", "title": "W-8BEN", "file": "5002.pdf", "taxForm": true }
 *   ]
 * }
 * ```
 *
 * `file` and `zh-Hans` are file names inside the directory (the name is also the name in the archive);
 * `taxForm: true` marks a tax form, which the daily submission never sends and every create carries.
 *
 * Ledger: one JSON file per firm and day (`<root>/<CSID>/<yyyy-mm-dd>.json`) with the day's result and
 * the catalogue of stored forms, written by the daily workflow and read by the create step.
 */
import { FORMS_MANIFEST_INVALID } from '../domain/error-types.js';
import { randomUUID } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { z } from 'zod';
import { dailySubmissionCovers, parseApplication } from '../eca/index.js';
import type { ApplicationSummary } from '../eca/index.js';
import { dayIn } from '../domain/days.js';
import type { DailyDocumentsResult } from '../workflows/documents/messages.js';
import type { FormDocument } from '../domain/documents.js';
import type { CatalogueForm } from '../workflows/documents/activities.js';
import type { DocumentStore } from '../runtime/document-store.js';

export const FORMS_MANIFEST = 'forms.json';

/** The forms directory or its manifest is unusable; retrying cannot mend it. */
export class FormsManifestInvalid extends Error {
  override readonly name = FORMS_MANIFEST_INVALID;
}

const fileName = z
  .string()
  .min(1)
  .refine((name) => basename(name) === name && name !== '.' && name !== '..' && !name.includes('\\'), {
    message: 'a file name inside the forms directory (no path)',
  });

const manifestSchema = z.object({
  forms: z
    .array(
      z.object({
        formNumber: z.string().regex(/^\d+$/, 'a numeric form number'),
        title: z.string().optional(),
        file: fileName,
        'zh-Hans': fileName.optional(),
        taxForm: z.boolean().optional(),
      }),
    )
    .min(1, 'the manifest lists no form'),
});

export type FormsManifest = z.infer<typeof manifestSchema>;

export async function readFormsManifest(formsDir: string): Promise<FormsManifest> {
  const path = join(resolve(formsDir), FORMS_MANIFEST);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new FormsManifestInvalid(`${FORMS_MANIFEST} cannot be read in the forms directory ${formsDir}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new FormsManifestInvalid(`${FORMS_MANIFEST} is not JSON: ${(error as Error).message}`);
  }
  const parsed = manifestSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new FormsManifestInvalid(`${FORMS_MANIFEST} is invalid: ${problems.join('; ')}`);
  }
  const numbers = parsed.data.forms.map((form) => form.formNumber);
  const duplicate = numbers.find((number, index) => numbers.indexOf(number) !== index);
  if (duplicate !== undefined) throw new FormsManifestInvalid(`${FORMS_MANIFEST} lists form ${duplicate} twice`);
  return parsed.data;
}

/** Every form and variant of the directory, put into the document store unchanged. */
export async function storeForms(formsDir: string, store: DocumentStore): Promise<CatalogueForm[]> {
  const manifest = await readFormsManifest(formsDir);
  const read = async (name: string): Promise<Uint8Array> => {
    try {
      return await readFile(join(resolve(formsDir), name));
    } catch {
      throw new FormsManifestInvalid(`${FORMS_MANIFEST} names ${name}, which is not in the forms directory`);
    }
  };
  const catalogue: CatalogueForm[] = [];
  for (const form of manifest.forms) {
    const base = {
      formNumber: form.formNumber,
      taxForm: form.taxForm ?? false,
      ...(form.title && { title: form.title }),
    };
    catalogue.push({ ...base, ...(await store.put(await read(form.file))), fileName: form.file });
    const chinese = form['zh-Hans'];
    if (chinese !== undefined) {
      catalogue.push({ ...base, ...(await store.put(await read(chinese))), fileName: chinese, language: 'zh-Hans' });
    }
  }
  return catalogue;
}

export interface DailyDocumentsRecord {
  result: DailyDocumentsResult;
  catalogue: CatalogueForm[];
  /** ISO time the record was written. */
  recordedAt: string;
}

/** The days' records, wherever kept: in a directory (FileDailyDocumentsLedger) or the database (daily-ledger.ts). */
export interface DailyDocumentsLedger {
  write(record: DailyDocumentsRecord): Promise<void>;
  read(csid: string, day: string): Promise<DailyDocumentsRecord | undefined>;
  /** The latest recorded day, or the latest before `before` (`yyyy-mm-dd`). */
  latest(csid: string, before?: string): Promise<DailyDocumentsRecord | undefined>;
}

const SAFE_CSID = /^[A-Za-z0-9_.-]{1,64}$/;

/** What `read` gives, or undefined when no firm or day has been recorded there yet. */
async function unlessMissing<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** The days' records on the filesystem, beside the document store (the same shared volume). */
export class FileDailyDocumentsLedger implements DailyDocumentsLedger {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  private dirOf(csid: string): string {
    if (!SAFE_CSID.test(csid) || csid.startsWith('.')) throw new FormsManifestInvalid('the CSID is not a plain id');
    return join(this.root, csid);
  }

  async write(record: DailyDocumentsRecord): Promise<void> {
    const dir = this.dirOf(record.result.csid);
    await mkdir(dir, { recursive: true });
    const path = join(dir, `${record.result.day}.json`);
    const tmp = `${path}.${randomUUID()}.tmp`;
    try {
      await writeFile(tmp, JSON.stringify(record, null, 2), { mode: 0o600 });
      await rename(tmp, path);
    } finally {
      await rm(tmp, { force: true });
    }
  }

  async read(csid: string, day: string): Promise<DailyDocumentsRecord | undefined> {
    const text = await unlessMissing(() => readFile(join(this.dirOf(csid), `${day}.json`), 'utf8'));
    return text === undefined ? undefined : (JSON.parse(text) as DailyDocumentsRecord);
  }

  /** The latest recorded day, or the latest before `before` (`yyyy-mm-dd`). */
  async latest(csid: string, before?: string): Promise<DailyDocumentsRecord | undefined> {
    const names = await unlessMissing(() => readdir(this.dirOf(csid)));
    if (names === undefined) return undefined;
    const days = names
      .filter((name) => /^\d{4}-\d{2}-\d{2}\.json$/.test(name))
      .map((name) => name.slice(0, 10))
      .filter((day) => before === undefined || day < before)
      .sort();
    const day = days.at(-1);
    return day === undefined ? undefined : this.read(csid, day);
  }
}

/**
 * The PDFs a create archive carries, following the day's submission (spec: when the agreements were
 * submitted in the morning, only the tax form goes with each application; otherwise the PDFs do):
 *
 * - the application's own documents (its tax form...), except agreements accepted today;
 * - the firm's tax forms, unless the application brings its own;
 * - every agreement and disclosure not accepted today (all of them on a missed day), from the
 *   latest catalogue; a `zh-Hans` application gets the Chinese variant where one exists, which the
 *   daily submission (in the default language) does not cover;
 * - every agreement and disclosure for a customer type the daily submission does not apply to (spec rule 4:
 *   individual, joint and retirement clients only; see dailySubmissionCovers), whatever today's record says.
 *
 * Without any recorded day (daily documents not set up for the firm) the caller's list is kept as is.
 */
export async function planCreateDocuments(
  ledger: DailyDocumentsLedger,
  input: { csid: string; applicationXml: string; documents: FormDocument[]; now: Date },
): Promise<FormDocument[]> {
  const record = await ledger.latest(input.csid);
  if (!record) return input.documents;
  const today = dayIn(input.now.getTime(), record.result.timeZone);
  const acceptedToday = new Set(
    record.result.day === today
      ? record.result.forms.filter((form) => form.accepted).map((form) => form.formNumber)
      : [],
  );
  let summary: ApplicationSummary = {};
  try {
    summary = parseApplication(input.applicationXml);
  } catch {
    // validateXML has passed; a summary that cannot be read loses the variant choice, and the archive carries every PDF
  }
  const chinese = summary.inputLanguage === 'zh-Hans';
  const daily = dailySubmissionCovers(summary.customerType);
  const taxForms = new Set(record.catalogue.filter((form) => form.taxForm).map((form) => form.formNumber));
  const hasChinese = new Set(
    record.catalogue.filter((form) => form.language === 'zh-Hans').map((form) => form.formNumber),
  );
  const covered = (formNumber: string) =>
    daily && !taxForms.has(formNumber) && acceptedToday.has(formNumber) && !(chinese && hasChinese.has(formNumber));

  const documents = input.documents.filter((document) => !covered(document.formNumber));
  const brought = new Set(input.documents.map((document) => document.formNumber));
  for (const form of record.catalogue) {
    if (brought.has(form.formNumber) || covered(form.formNumber)) continue;
    const wanted = chinese && hasChinese.has(form.formNumber) ? 'zh-Hans' : undefined;
    if (form.language !== wanted) continue;
    documents.push({
      formNumber: form.formNumber,
      fileName: form.fileName,
      sha1: form.sha1,
      length: form.length,
      ref: form.ref,
    });
  }
  return documents;
}

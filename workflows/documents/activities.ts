/**
 * The activities of the daily document submission, as types only: the workflow imports this file for
 * `proxyActivities`, the worker supplies `createDocumentsActivities`. Inputs and outputs are
 * references and short texts, never PDFs.
 */
import type { DailyDocumentsResult } from './messages.js';
import type { FormDocument, ReportedForm } from '../../domain/documents.js';

/** A form of the firm's forms directory, stored in the document store. */
export interface CatalogueForm extends FormDocument {
  /** Title from the manifest, for people. */
  title?: string;
  /** Tax forms are never submitted daily; they go with every application. */
  taxForm: boolean;
  /** Set on the Chinese variant of a form (`zh-Hans` applications use it). */
  language?: 'zh-Hans';
}

export interface GatheredForms {
  /** Every form and variant of the manifest, in manifest order. */
  forms: CatalogueForm[];
  /** The latest recorded day before this one, for grace periods and changed forms. */
  previous?: DailyDocumentsResult;
}

/** Per submitted document, as the report states it. */
export type { ReportedForm };

export type SubmissionOutcome =
  | { processed: true; reportFile?: string; documents: ReportedForm[] }
  | {
      processed: false;
      error: string;
      /** An earlier attempt failed after it may have reached the service: not sent again, outcome unknown. */
      ambiguous?: boolean;
    };

export interface DocumentsActivities {
  /** Reads `forms.json` of the forms directory and stores each PDF (content-addressed). */
  gatherForms(input: { csid: string; formsDir: string; day: string }): Promise<GatheredForms>;
  /** submitDocuments once, with these PDFs unchanged; the report is decrypted and read. */
  submitDailyDocuments(input: { csid: string; documents: FormDocument[] }): Promise<SubmissionOutcome>;
  /** Keeps the day's result and the forms catalogue where the create step of applications reads them. */
  recordDailyDocuments(input: { result: DailyDocumentsResult; catalogue: CatalogueForm[] }): Promise<void>;
}

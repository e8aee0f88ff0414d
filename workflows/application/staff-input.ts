/**
 * The inputs of staff messages, checked before a handler runs: an update's validator refuses bad input
 * with a message that says what the message takes (what the Temporal UI's update form shows), and a
 * signal with bad input is refused visibly (staff-signals.ts).
 */
import { ApplicationFailure } from '@temporalio/workflow';
import type { LifecycleEventType } from '../lifecycle/index.js';
import { MAX_DOCUMENT_BYTES, PDF_FILE_NAME } from '../../domain/documents.js';

const MESSAGE_NAMES: Partial<Record<LifecycleEventType, string>> = {
  ABANDON: 'abandon',
  RESUBMIT: 'resubmit',
  PROVIDE_DOCUMENTS: 'provideDocuments',
  RESET: 'reset',
  RETRY: 'retry',
};

/** The staff message an event comes from, by its name (`abandon`...). */
export function describeMessage(type: LifecycleEventType): string {
  return MESSAGE_NAMES[type] ?? type;
}

function invalid(message: string): ApplicationFailure {
  return ApplicationFailure.create({ type: 'InvalidArgument', message, nonRetryable: true });
}

/** Why an input is refused when it is absent: the client's codec had nothing to encrypt. */
const ALWAYS_AN_INPUT = "every staff message carries an input, encrypted by the sender's payload codec";

/**
 * What is wrong with the input of a staff message taking an object with at most `allowed` fields
 * (`{}` for `reset`, `retry`, `pollNow`; `{"reason": "…"}` for `abandon`), or undefined. An absent
 * input, or one of another shape (such as the SDK's patch marker, `{"id", "deprecated"}`, which the
 * strict codec lets through unencrypted), is refused.
 */
export function staffInputProblem(name: string, request: unknown, allowed: readonly string[] = []): string | undefined {
  const shape = allowed.length
    ? `{${allowed.map((field) => `"${field}": "…"`).join(', ')}} (the ${allowed.join(' and ')} ${allowed.length > 1 ? 'are' : 'is'} optional)`
    : '{}';
  if (request === undefined || request === null) return `${name} takes ${shape}: ${ALWAYS_AN_INPUT}`;
  if (typeof request !== 'object' || Array.isArray(request)) return `${name} takes ${shape}`;
  const unknown = Object.keys(request).filter((field) => !allowed.includes(field));
  if (unknown.length) return `${name} takes ${shape}, not the field(s) ${unknown.slice(0, 5).join(', ')}`;
  const bad = allowed.filter(
    (field) => !['string', 'undefined'].includes(typeof (request as Record<string, unknown>)[field]),
  );
  return bad.length ? `${name} takes ${shape}: ${bad.join(', ')} must be text` : undefined;
}

/** An update's validator: refuses the input `staffInputProblem` finds wrong (`InvalidArgument`). */
export function requireStaffInput(name: string, request: unknown, allowed: readonly string[] = []): void {
  const problem = staffInputProblem(name, request, allowed);
  if (problem) throw invalid(problem);
}

function isDocumentRef(value: unknown): boolean {
  const ref = value as { sha1?: unknown; length?: unknown; ref?: unknown } | null;
  return (
    ref !== null &&
    typeof ref === 'object' &&
    typeof ref.sha1 === 'string' &&
    /^[0-9a-f]{40}$/.test(ref.sha1) &&
    typeof ref.length === 'number' &&
    Number.isSafeInteger(ref.length) &&
    ref.length > 0 &&
    ref.length <= MAX_DOCUMENT_BYTES &&
    typeof ref.ref === 'string' &&
    ref.ref !== ''
  );
}

/** `resubmit` takes the corrected application XML as a document store reference. */
export function requireResubmitInput(application: unknown): void {
  if (!isDocumentRef(application)) {
    throw invalid(
      'resubmit takes the corrected application XML as a document store reference ' +
        '{"sha1": "<40 hex>", "length": <bytes>, "ref": "…"}: store it with `eca resubmit <id> <file.xml>`',
    );
  }
}

/** `provideDocuments` takes PDFs already in the document store, with their form numbers. */
export function requireDocumentsInput(documents: unknown): void {
  const shape =
    'provideDocuments takes [{"formNumber": "8001", "fileName": "id.pdf", "sha1": "<40 hex>", "length": <bytes>, ' +
    '"ref": "…"}, …]: store the PDFs with `eca provide-docs <id> 8001:file.pdf`';
  if (!Array.isArray(documents) || documents.length === 0) throw invalid(shape);
  // Everything the submission will need is checked here: a bad value would otherwise fail it later.
  documents.forEach((document: unknown, index) => {
    const { formNumber, fileName } = (document ?? {}) as { formNumber?: unknown; fileName?: unknown };
    if (!isDocumentRef(document)) throw invalid(`documents[${index}]: ${shape}`);
    if (typeof formNumber !== 'string' || !/^\d{1,10}$/.test(formNumber)) {
      throw invalid(`documents[${index}].formNumber must be a form number of digits, e.g. "8001"`);
    }
    if (typeof fileName !== 'string' || !PDF_FILE_NAME.test(fileName) || fileName.includes('..')) {
      throw invalid(`documents[${index}].fileName must be a plain file name ending in .pdf, e.g. "id.pdf"`);
    }
  });
}

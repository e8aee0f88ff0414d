/**
 * The service's request and response shapes: the single source of its validation, its TypeScript
 * types and its OpenAPI document (each schema registered under a component name).
 */
import { z } from 'zod';
import { MAX_DOCUMENT_BYTES } from '../domain/documents.js';
import { ESCALATIONS } from '../domain/deadlines.js';
import { ACCOUNT_STATUS_LETTER, ACCOUNT_STATUS_LETTER_RULE } from '../domain/account.js';
import {
  APPLICATION_DOCUMENT_STATES,
  APPLICATION_STATES,
  MAX_APPLICATION_BYTES,
  MAX_PAGE_SIZE,
} from '../client/index.js';
import { PROBLEM_TYPES } from './problems.js';
import type { ApiProblemCode } from './problems.js';

const component = <T extends z.ZodType>(schema: T, id: string, description: string): T =>
  schema.meta({ id, description });

/** Base64 of at most `bytes` bytes (4 characters per 3 bytes). */
const base64 = (bytes: number) =>
  z
    .string()
    .max(Math.ceil(bytes / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'is not base64');

export const DocumentUpload = component(
  z.strictObject({
    formNumber: z.string().regex(/^\d{1,10}$/, 'is not a form number (digits)'),
    // domain/documents.ts PDF_FILE_NAME, written without the `i` flag (JSON Schema patterns take no flags).
    fileName: z
      .string()
      .max(200)
      .regex(/^[\w.() -]+\.[pP][dD][fF]$/, 'is not a plain file name ending in .pdf')
      .optional(),
    contentBase64: base64(MAX_DOCUMENT_BYTES).describe(`The PDF, base64 (at most ${MAX_DOCUMENT_BYTES} bytes)`),
  }),
  'DocumentUpload',
  'A PDF for a form of the application.',
);

export const StartApplicationRequest = component(
  z.strictObject({
    applicationXml: z
      .string()
      .min(1)
      .max(MAX_APPLICATION_BYTES)
      .describe('The application XML; its Customer@external_id names the application (the idempotency key)'),
    documents: z.array(DocumentUpload).max(20).optional(),
  }),
  'StartApplicationRequest',
  'An application to start. The same XML again under its external id answers the existing application; another XML under it is a conflict (409). The XML alone may also be sent as the body, as application/xml.',
);

export const ProvideDocumentsRequest = component(
  z.strictObject({ documents: z.array(DocumentUpload).min(1).max(20) }),
  'ProvideDocumentsRequest',
  'PDFs the application asks for (its pending tasks name the forms).',
);

export const ResubmitRequest = component(
  z.strictObject({ applicationXml: z.string().min(1).max(MAX_APPLICATION_BYTES) }),
  'ResubmitRequest',
  'A corrected application XML, with the same external id.',
);

export const AbandonRequest = component(
  z.strictObject({ reason: z.string().max(500).optional() }),
  'AbandonRequest',
  'Why staff abandon the application (kept with it, encrypted).',
);

export const Task = component(
  z.object({
    formNumber: z.string(),
    formName: z.string(),
    action: z.string(),
    state: z.string().optional(),
    reason: z.string().optional(),
    isRequiredForApproval: z.boolean().optional(),
    isOnlineTask: z.boolean().optional(),
    url: z
      .string()
      .optional()
      .describe(
        "For a firm on the Web API: the task's page for the account holder (an online task, an identity verification), as the brokerage sent it",
      ),
    urlExpiresAt: z.string().optional().describe('Until when `url` works, as the brokerage sent it'),
  }),
  'Task',
  'A task the brokerage lists for the account.',
);

export const ApplicationDocument = component(
  z.object({
    formNumber: z.string(),
    formName: z.string(),
    action: z.string().describe("The task's action at the brokerage: `to send` or `to sign`"),
    state: z
      .enum(APPLICATION_DOCUMENT_STATES)
      .describe(
        '`requested`: the brokerage asks for it and none is held; `provided`: held, not sent yet; `submitted`: with the brokerage, under review; `rejected`: the brokerage rejected the last one, send a different one (the same file again is refused, `DOCUMENT_REJECTED`)',
      ),
    rejectionReason: z.string().optional().describe("The brokerage's reason for the last rejection"),
    provided: z
      .boolean()
      .describe('A PDF for the form is in hand (`provided` or `submitted`); false: the client must provide one'),
    requiredForApproval: z.boolean().describe('The account is not approved until the document is accepted'),
  }),
  'ApplicationDocument',
  'A PDF the application waits for, by form: a pending task that asks for a document (`to send`, `to sign`, a rejected one), or one under review. Tasks done in the hosted portal (`to complete`) are not documents.',
);

/** A time as the service answers it: RFC 3339 in UTC, as `Date.toISOString` writes it. */
export const isoTime = z.string().meta({ format: 'date-time', description: 'RFC 3339 time, UTC' });

/** `+0100` or `+01` as `+01:00`, a fraction cut to milliseconds, `t`/`z` upper-case: what `Date.parse` reads. */
function normalizedTime(text: string): string | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d+))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/.exec(text);
  if (!match) return undefined;
  const [, date, clock, fraction, zone = ''] = match;
  const offset = /^[Zz]$/.test(zone) ? 'Z' : `${zone.slice(0, 3)}:${zone.slice(3).replace(':', '') || '00'}`;
  const fractionPart = fraction ? `.${fraction.slice(0, 3).padEnd(3, '0')}` : '';
  const normalized = `${date}T${clock}${fractionPart}${offset}`;
  return Number.isNaN(Date.parse(normalized)) ? undefined : normalized;
}

/**
 * A date-time a caller gives (a query filter): ISO 8601 with `Z` or an offset, written `+01:00`, `+0100` or `+01`,
 * with any fraction of a second: the forms generated clients send. Read as the same instant in UTC.
 */
export const queryTime = z
  .string()
  .max(64)
  .refine((text) => normalizedTime(text) !== undefined, 'is not an ISO 8601 date-time with Z or an offset')
  .transform((text) => new Date(normalizedTime(text) ?? text).toISOString())
  .meta({ format: 'date-time' });

/** A query flag: `true` or `false`. The document calls it a boolean (api/contract.ts); it is read as its text. */
export const queryBoolean = z.enum(['true', 'false']).meta({ 'x-query-boolean': true });

export const Application = component(
  z.object({
    workflowId: z.string(),
    externalId: z.string(),
    csid: z.string(),
    lifecycleState: z.enum(APPLICATION_STATES).describe('The lifecycle state (docs/lifecycle.md)'),
    done: z.boolean().describe('The application has reached a final state'),
    application: z.object({ sha1: z.string(), length: z.number().int() }),
    accountId: z.string().optional(),
    userName: z.string().optional(),
    credentialsAvailable: z.boolean().describe('Temporary credentials wait to be taken (staff, once)'),
    status: z.string().optional().describe("The account's status at the brokerage"),
    stateText: z.string().optional(),
    pendingTasks: z.array(Task),
    waitingDocuments: z.array(z.string()).describe('Form numbers provided and not sent yet'),
    documents: z
      .array(ApplicationDocument)
      .describe(
        'The documents the application waits for, from `pendingTasks` and `waitingDocuments`: what to provide (`provided: false`) and where each stands. A form just sent may show as `requested` until the next status read.',
      ),
    corrections: z.array(z.string()),
    lastRefusal: z.string().optional(),
    abandonReason: z.string().optional(),
    unconfirmed: z.object({ step: z.string(), reason: z.string(), responseFile: z.string().optional() }).optional(),
    inDoubt: z.object({ step: z.string(), since: isoTime.optional(), reason: z.string().optional() }).optional(),
    blocked: z.object({ step: z.string(), errorType: z.string(), reason: z.string(), since: isoTime }).optional(),
    lastPollAt: isoTime.optional(),
    nextPollAt: isoTime.optional(),
    transitions: z.array(z.object({ state: z.string(), event: z.string(), at: isoTime })),
    runs: z.number().int(),
    deadline: z
      .object({
        state: z.enum(APPLICATION_STATES),
        due: isoTime,
        nextReminderAt: isoTime.optional(),
        overdue: z.boolean(),
        escalation: z.enum(ESCALATIONS),
      })
      .optional()
      .describe('The waiting state\'s deadline (docs/integrate.md, "Deadlines and reminders")'),
  }),
  'Application',
  "An application's state, as its workflow reports it.",
);

export const StartedApplication = component(
  z.object({ existed: z.boolean(), application: Application }),
  'StartedApplication',
  'The application started (201: as started, `validating` with no transition yet) or the existing one of the same XML (200, `existed`: its state now).',
);

export const ApplicationSummary = component(
  z.object({
    workflowId: z.string(),
    externalId: z.string().optional(),
    accountId: z.string().optional(),
    lifecycleState: z
      .string()
      .optional()
      .describe('The lifecycle state, as the search attribute EcaLifecycleState last recorded it'),
    accountStatus: z.string().optional(),
    status: z.string().describe('The workflow execution status (Running, Completed...)'),
    startTime: isoTime,
    closeTime: isoTime.optional(),
  }),
  'ApplicationSummary',
  'An application as listed (from Temporal visibility: may lag its state by a second).',
);

export const ApplicationPage = component(
  z.object({ applications: z.array(ApplicationSummary), cursor: z.string().optional() }),
  'ApplicationPage',
  'A page of applications; give `cursor` back for the next one.',
);

export const ListQuery = z.object({
  lifecycleState: z.enum(APPLICATION_STATES).optional(),
  accountStatus: z.string().regex(ACCOUNT_STATUS_LETTER, `is not ${ACCOUNT_STATUS_LETTER_RULE}`).optional(),
  externalId: z.string().max(128).optional(),
  startedAfter: queryTime.optional(),
  startedBefore: queryTime.optional(),
  running: queryBoolean.optional(),
  pageSize: z.coerce.number().int().min(1).max(MAX_PAGE_SIZE).optional(),
  cursor: z.string().max(4096).optional(),
});

export const ApplicationParams = z.object({
  reference: z
    .string()
    .min(1)
    .max(200)
    // eslint-disable-next-line no-control-regex -- control characters are what is refused
    .regex(/^[^\x00-\x1f\x7f]+$/, 'has control characters')
    .describe('External id, account id or workflow id'),
});

export const Credentials = component(
  z.object({
    externalId: z.string(),
    accountId: z.string().optional(),
    users: z.array(z.object({ userName: z.string(), temporaryPassword: z.string().optional() })),
    responseXml: z.string().optional(),
  }),
  'Credentials',
  'Temporary credentials, handed out once: a second call is answered 404 NO_CREDENTIALS.',
);

export const ProblemDetails = component(
  z.object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    instance: z.string(),
    code: z.enum(Object.keys(PROBLEM_TYPES) as [ApiProblemCode, ...ApiProblemCode[]]),
    field: z.string().optional(),
    requestId: z.string(),
  }),
  'Problem',
  'An error (RFC 9457): `code` is stable per kind of error, `field` names the offending input.',
);

/** The problem answers a route may give, by status. */
export function problems(...statuses: number[]): Record<number, typeof ProblemDetails> {
  return Object.fromEntries([400, 401, 403, 429, 500, 503, 504, ...statuses].map((status) => [status, ProblemDetails]));
}

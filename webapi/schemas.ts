/**
 * The Web API's answers as the document shapes them, each open to fields it adds (`looseObject`): what the
 * engine reads is typed, the rest let through. An account answer carries its failure in the body
 * (`hasError`, `errorDescription`), never as an HTTP status.
 */
import { z } from 'zod';

/** `EchoResponse`. */
export const EchoResponse = z.looseObject({
  requestMethod: z.string(),
  securityPolicy: z.string(),
  queryParameters: z.record(z.string(), z.unknown()).optional(),
});
export type EchoResponse = z.infer<typeof EchoResponse>;

/** What an account answer says of a failure (the document's account answers carry it in the body). */
export const Failure = { hasError: z.boolean().optional(), errorDescription: z.string().optional() };

/**
 * `AccountStatusResponse`: the status letter is open (the document lists 14, and says what none means). The
 * document requires no field of it: an error answer may name no account.
 */
export const AccountStatusResponse = z.looseObject({
  accountId: z.string().optional(),
  status: z.string().optional(),
  state: z.string().optional(),
  description: z.string().optional(),
  masterAccountId: z.string().optional(),
  dateStarted: z.string().optional(),
  dateOpened: z.string().optional(),
  ...Failure,
});
export type AccountStatusResponse = z.infer<typeof AccountStatusResponse>;

/**
 * `PendingTask`: what the lifecycle reads of one; the rest is let through. The document requires none of its
 * fields: an identity verification may come with its page and dates (`url`, `au10tixCreatedDate`,
 * `au10tixExpiryDate`), its `entityId` and `questionIds`, and no form number.
 */
export const PendingTask = z.looseObject({
  formNumber: z.number().int().optional(),
  formName: z.string().optional(),
  action: z.string().optional(),
  state: z.string().optional(),
  taskNumber: z.number().int().optional(),
  requiredForApproval: z.boolean().optional(),
  onlineTask: z.boolean().optional(),
  documentRejectReason: z.array(z.string()).optional(),
  url: z.string().optional(),
  au10tixExpiryDate: z.string().optional(),
});

/** `PendingTasksResponse`: like every answer here, nothing of it required by the document. */
export const PendingTasksResponse = z.looseObject({
  accountId: z.string().optional(),
  status: z.string().optional(),
  pendingTaskPresent: z.boolean().optional(),
  pendingTasks: z.array(PendingTask).default([]),
  ...Failure,
});
export type PendingTasksResponse = z.infer<typeof PendingTasksResponse>;

/**
 * Where a page stands among the rest, each field as the document leaves it: optional (a page without `total`
 * is followed by the next until one comes short, webapi/client.ts `pages`).
 */
const Page = {
  offset: z.number().int().nonnegative().optional(),
  limit: z.number().int().positive().optional(),
  total: z.number().int().nonnegative().optional(),
};

/** `AccountStatusBulkResponse`: one page of the firm's accounts. */
export const AccountStatusBulkResponse = z.looseObject({
  accounts: z.array(AccountStatusResponse).default([]),
  ...Page,
});
export type AccountStatusBulkResponse = z.infer<typeof AccountStatusBulkResponse>;

/**
 * `StatusResponse`: what `POST` and `PATCH /gw/api/v1/accounts` answer. `requestId` names the request in
 * `GET /gw/api/v1/requests` when the answer gives it (the document requires it not: a request answered
 * without one is looked for among the account's new requests); `fileData.data` is an object the document
 * does not describe, so nothing is read from it: a create's account is looked up by its external id
 * (`GET /gw/api/v1/accounts`).
 */
export const StatusResponse = z.looseObject({
  requestId: z.number().int().optional(),
  dateSubmitted: z.string().optional(),
  fileData: z.looseObject({ name: z.string().optional(), data: z.unknown().optional() }).optional(),
  ...Failure,
});
export type StatusResponse = z.infer<typeof StatusResponse>;

/**
 * `GET /gw/api/v1/accounts?externalId=`: `FileDetailsResponse` (the application made an account) or
 * `ResponseFileResponse` (its response file: processed, failed, or not yet), read as one open shape.
 */
export const ApplicationLookupResponse = z.looseObject({
  accountId: z.string().optional(),
  requestFileName: z.string().optional(),
  responseFileName: z.string().optional(),
  name: z.string().optional(),
  isProcessed: z.boolean().optional(),
  data: z.unknown().optional(),
  ...Failure,
});
export type ApplicationLookupResponse = z.infer<typeof ApplicationLookupResponse>;

/**
 * `RequestDetail`: one request sent with `PATCH /gw/api/v1/accounts` (the document spells `accountID` so). One
 * without a `requestId` (the document requires none) names no request: it is read past.
 */
export const RequestDetail = z.looseObject({
  requestId: z.number().int().optional(),
  accountID: z.string().optional(),
  requestType: z.string().optional(),
  status: z.string().optional(),
  dateSubmitted: z.string().optional(),
});
export type RequestDetail = z.infer<typeof RequestDetail>;

/** `RequestDetailsResponse`: one page of the firm's requests within the dates. */
export const RequestDetailsResponse = z.looseObject({
  requestDetails: z.array(RequestDetail).default([]),
  ...Page,
});
export type RequestDetailsResponse = z.infer<typeof RequestDetailsResponse>;

/**
 * `CreateBrowserSessionResponse`: the hosted portal's URL for the end user. The document's copy marks
 * `access_token` required, a field this schema does not have (its properties are `active` and `url`); the URL
 * is what the session is for, so it is the one required here.
 */
export const BrowserSessionResponse = z.looseObject({
  url: z.string().min(1),
  active: z.boolean().optional(),
});
export type BrowserSessionResponse = z.infer<typeof BrowserSessionResponse>;

/** The document's `EnumerationType`: the lists `GET /gw/api/v1/enumerations/{enumerationType}` reads. */
export const WEBAPI_ENUMERATION_TYPES = [
  'exchange-bundles',
  'business-and-occupation',
  'employee-track',
  'fin-info-ranges',
  'acats',
  'aton',
  'market-data',
  'edd-avt',
  'prohibited-country',
  'employee-plans',
  'questionnaires',
  'security-questions',
  'quiz-questions',
  'wire-instructions',
  'product-country-bundles',
] as const;
export type WebApiEnumerationType = (typeof WEBAPI_ENUMERATION_TYPES)[number];

/** The document's values of an enumeration read's `language` query parameter. */
export const WEBAPI_LANGUAGES = [
  'en',
  'ar',
  'de',
  'es',
  'fr',
  'he',
  'hu',
  'it',
  'ja',
  'nl',
  'pt',
  'ru',
  'zh_CN',
  'zh_TW',
] as const;

/** `AccountStatusRequest.status`: the document's 14 status letters. */
export const WEBAPI_STATUS_LETTERS = ['N', 'O', 'P', 'C', 'A', 'E', 'F', 'I', 'J', 'L', 'M', 'R', 'W', 'Q'] as const;

/**
 * `EnumerationResponse`: the list's type and its values in `jsonData`, whose shape the document leaves open (an
 * `ArrayNode`, typed as an object): read as it comes.
 */
export const EnumerationResponse = z.looseObject({
  enumerationsType: z.string().optional(),
  formNumber: z.string().optional(),
  jsonData: z.unknown().optional(),
});
export type EnumerationResponse = z.infer<typeof EnumerationResponse>;

/**
 * The typed client: one method per operation of the service. Request rules are checked before anything is sent
 * (EcaRequestError naming the parameter); responses are validated and normalised (see schemas.ts) with the untouched
 * body kept as `raw`; file operations build the archive and seal it themselves, and open and parse response files.
 *
 * Only the read-only query operations are retried by the client (on 5xx, 408, 429, dropped connections, an attempt
 * past `timeoutMs`, and a body that is not JSON). create, update, submitDocuments and sso/create are never retried
 * here: whether to repeat them is the caller's (the workflow's) decision.
 */
import ky, { HTTPError, TimeoutError } from 'ky';
import { buildArchive, checkFileName, sha1Hex } from './archive.js';
import type { ArchiveAttachment } from './archive.js';
import { fromBase64, loadPrivateKey, loadPublicKey, open, seal } from './crypto.js';
import type { EnvelopeKeys, PrivateKey, PublicKey } from './crypto.js';
import {
  canonicalEnumerationType,
  isEnumerationType,
  parseEnumerationsCsv,
  ENUMERATION_TYPES,
} from './enumerations.js';
import type { EnumerationType } from './enumerations.js';
import {
  EcaCryptoError,
  EcaError,
  EcaHttpError,
  EcaNetworkError,
  EcaRequestError,
  EcaSchemaError,
  EcaTimeoutError,
  safeBodyExcerpt,
} from './errors.js';
import { responseSchemas, validateResponse } from './schemas.js';
import { SecretString } from './secret.js';
import type {
  AccountStatusResponse,
  AmRequestStatusResponse,
  BatchDetailsResponse,
  FileDetailsResponse,
  PendingTasksResponse,
  RegistrationTasksResponse,
  ResponseFileResponse,
} from './schemas.js';
import { buildSsoPayload, validateSignedUrl } from './sso.js';
import type { EcaEnvironment, SignedUrl, SignedUrlOptions } from './sso.js';
import { ACCOUNT_STATUS_CODES, isIsoDate } from './types.js';
import type { AccountStatusCode, Timestamp } from './types.js';
import {
  buildSubmitDocumentsXml,
  DEFAULT_IMPORT_NAMESPACE,
  parseCreateResponseXml,
  parseDocumentsReport,
} from './xml.js';
import type { CreateResponse, DocumentsReport } from './xml.js';
import { xmlWellFormednessError } from './xml-tree.js';

/** Placeholders: a deployment passes the brokerage's addresses (`baseUrl`, `preferenceUrl`). */
export const ECA_BASE_URLS: Readonly<Record<EcaEnvironment, string>> = {
  qa: 'https://qa.eca.example.invalid',
  prod: 'https://eca.example.invalid',
};
export const ECA_PREFERENCE_URLS: Readonly<Record<EcaEnvironment, string>> = {
  qa: 'https://qa.preferences.eca.example.invalid',
  prod: 'https://preferences.eca.example.invalid',
};

export const OPERATION_PATHS = {
  getPendingTasks: '/ws/eca/getPendingTasks',
  getRegistrationTasks: '/ws/eca/getRegistrationTasks',
  getAccountStatus: '/ws/eca/getAccountStatus',
  getEnumerations: '/ws/eca/getEnumerations',
  getAmRequestStatus: '/ws/eca/getAmRequestStatus',
  submitDocuments: '/ws/eca/submitDocuments',
  validateXML: '/ws/eca/validateXML',
  create: '/ws/eca/create',
  ssoCreate: '/ws/sso/create',
  update: '/ws/eca/update',
  preferenceSet: '/preference/set',
  getResponseFile: '/ws/eca/getResponseFile',
  getBatchDetails: '/ws/eca/getBatchDetails',
  getFileDetails: '/ws/eca/getFileDetails',
} as const;
export type EcaOperation = keyof typeof OPERATION_PATHS;

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_QUERY_RETRY_LIMIT = 2;

export interface EcaClientOptions {
  /** Selects the default addresses; also selects the allowed SSO hosts. Defaults to `qa`. */
  environment?: EcaEnvironment;
  /** Overrides the environment's base address (`{base_url}`). */
  baseUrl?: string;
  /** Overrides the environment's preference address (`{preference_url}`). */
  preferenceUrl?: string;
  /** Client service id, sent as `CSID` on every call unless a request carries its own. */
  csid: string;
  /** The firm's private key: armored text, a file path, or a loaded key. Needed by file operations only. */
  firmPrivateKey?: string | PrivateKey;
  /** Passphrase of `firmPrivateKey` when it is protected. */
  passphrase?: string;
  /** The brokerage's public key: armored text, a file path, or a loaded key. Needed by file operations only. */
  brokeragePublicKey?: string | PublicKey;
  /** Per-attempt timeout; defaults to 30 s. */
  timeoutMs?: number;
  /** Retries of the read-only query operations (count, or count and base delay); defaults to 2. */
  retry?: number | { limit: number; delayMs?: number };
  /** Import-schema namespace written into request XML; defaults to {@link DEFAULT_IMPORT_NAMESPACE}. */
  importNamespace?: string;
  /** Validation of SSO signed URLs (allowed hosts, loopback http for a local simulator). */
  sso?: Omit<SignedUrlOptions, 'issuedAt'>;
  /** A fetch implementation (tests, proxies); defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Clock for SSO expiry; defaults to the system clock. */
  now?: () => Date;
  /**
   * Called before every HTTP call: a signal that aborts it (the caller's deadline or cancellation), so
   * that no call outlives the work that made it. Without it calls end only by `timeoutMs`.
   */
  signal?: () => AbortSignal | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// Requests

export interface AccountSelection {
  /** Overrides the client's CSID for this call. */
  CSID?: string;
  /** One account id or a list. */
  accountIds?: string | string[];
  /** `yyyy-mm-dd`; requires `endDate`. */
  startDate?: string;
  /** `yyyy-mm-dd`. */
  endDate?: string;
}

export interface GetPendingTasksRequest extends AccountSelection {
  /** Numeric string: only accounts pending because of this form. */
  formNumber?: string;
}

export interface GetRegistrationTasksRequest extends AccountSelection {
  formNumber?: string;
  /** `T`: pull identity / address documents; `F`: do not. */
  getDocs?: 'T' | 'F';
}

export interface GetAccountStatusRequest extends AccountSelection {
  status?: AccountStatusCode;
}

export interface GetEnumerationsRequest {
  CSID?: string;
  type: EnumerationType;
  /** Required when type is FIN_INFO_RANGES, and only then. */
  currency?: string;
  /** Required when type is EDD_AVT; also accepted for QUIZ_QUESTIONS. */
  formNumber?: string;
}

export interface GetAmRequestStatusRequest {
  CSID?: string;
  accountIds?: string | string[];
  /** One request id per call. */
  request_id?: string;
}

export interface GetResponseFileRequest {
  CSID?: string;
  /** external_id of an application sent with create. */
  externalId: string;
}

export interface AccountsRequest {
  CSID?: string;
  accountIds: string | string[];
}

export interface SubmitDocumentsRequest {
  CSID?: string;
  documents: Array<{
    formNumber: string;
    execTs: Date | string;
    execLoginTs: Date | string;
    /** The PDFs, unchanged; `fileName` is the name inside the archive and in the XML. */
    files: ArchiveAttachment[];
  }>;
  /** Name of the XML file inside the archive; defaults to `documents.xml`. */
  xmlFileName?: string;
}

export interface ApplicationFileRequest {
  CSID?: string;
  applicationXml: string;
  /** Forms and agreements sent with the application. */
  attachments?: ArchiveAttachment[];
  /** Name of the XML file inside the archive; defaults to `application.xml`. */
  xmlFileName?: string;
}

export interface UpdateRequest {
  CSID?: string;
  /** The update request XML (see buildUpdateRequestXml / buildDocumentSubmissionXml). */
  xml: string;
  attachments?: ArchiveAttachment[];
  /** Name of the XML file inside the archive; defaults to `update.xml`. */
  xmlFileName?: string;
}

export interface SsoCreateRequest {
  CSID?: string;
  /** User name of the account holder. */
  userName: string;
  /** The end user's own IP address: exactly one, IPv4 or IPv6. */
  ip: string | string[];
}

export interface PreferenceSetRequest {
  customerIdentity: { userName: string };
  preferences: { LANGUAGE: { LANG1: string; LANG2?: string } };
  /** Defaults to `INDIVIDUAL`, the value of every example. */
  updateMode?: string;
  /** Defaults to `ECA`. */
  modifiedBy?: string;
  /** Defaults to `ECA`. */
  srcApp?: string;
}

// ---------------------------------------------------------------------------------------------------------------
// Responses of operations normalised here (query responses are in schemas.ts)

export interface EnumerationsResponse {
  timestamp?: Timestamp;
  type: EnumerationType;
  /** Rows keyed by the CSV header. */
  rows: Array<Record<string, string>>;
  /** The CSV text (empty when the service sent rows as JSON). */
  csv: string;
  raw: unknown;
}

export interface SubmitDocumentsResponse {
  timestamp?: Timestamp;
  isProcessed: boolean;
  /** The opened report; present only when isProcessed is true. */
  fileData?: { name?: string; report: DocumentsReport; xml: string };
  /** Digests of the PDFs as sent, to compare with the report. */
  sent: Array<{ formNumber: string; fileName: string; sha1: string; length: number }>;
  raw: unknown;
}

export interface ValidateXmlResponse {
  timestamp?: Timestamp;
  isValid: boolean;
  batchId?: string;
  errors: string[];
  raw: unknown;
}

export interface CreateAccountsResponse {
  timestamp?: Timestamp;
  isProcessed: boolean;
  batchId?: string;
  /** Response file name. */
  name?: string;
  /**
   * The opened response file read with this library's reader, when it reads: the spec does not show
   * the file's format, so a caller may use it only as a hint (see `responseProblem`). Holds SECRET
   * temporary passwords (SecretString).
   */
  response?: CreateResponse;
  /** Why the opened response file could not be read (its format is not shown by the spec). */
  responseProblem?: string;
  /** The opened response XML as sent; it may hold a temporary password (SECRET). */
  responseXml?: SecretString;
  raw: unknown;
}

export interface SsoCreateResponse {
  result: boolean;
  error?: string;
  /** The validated session URL with its SID and expiry. */
  signedUrl?: SignedUrl;
  raw: unknown;
}

export interface UpdateResponse {
  timestamp?: Timestamp;
  /**
   * The opened response file (its format is not in the spec, so it is returned as XML text; empty when
   * it could not be opened, see `responseProblem`).
   */
  fileData?: { name?: string; xml: string };
  /** Why the response file could not be opened, although the service filed the request under its name. */
  responseProblem?: string;
  raw: unknown;
}

export interface PreferenceSetResponse {
  /** HTTP status (the response format is not in the spec). */
  status: number;
  /** The response body, parsed as JSON when it is JSON, else the text. */
  body: unknown;
  raw: unknown;
}

export interface EcaClient {
  getPendingTasks(request?: GetPendingTasksRequest): Promise<PendingTasksResponse>;
  getRegistrationTasks(request?: GetRegistrationTasksRequest): Promise<RegistrationTasksResponse>;
  getAccountStatus(request?: GetAccountStatusRequest): Promise<AccountStatusResponse>;
  getEnumerations(request: GetEnumerationsRequest): Promise<EnumerationsResponse>;
  getAmRequestStatus(request?: GetAmRequestStatusRequest): Promise<AmRequestStatusResponse>;
  submitDocuments(request: SubmitDocumentsRequest): Promise<SubmitDocumentsResponse>;
  validateXML(request: ApplicationFileRequest): Promise<ValidateXmlResponse>;
  create(request: ApplicationFileRequest): Promise<CreateAccountsResponse>;
  ssoCreate(request: SsoCreateRequest): Promise<SsoCreateResponse>;
  update(request: UpdateRequest): Promise<UpdateResponse>;
  preferenceSet(request: PreferenceSetRequest): Promise<PreferenceSetResponse>;
  getResponseFile(request: GetResponseFileRequest): Promise<ResponseFileResponse>;
  getBatchDetails(request: AccountsRequest): Promise<BatchDetailsResponse>;
  getFileDetails(request: AccountsRequest): Promise<FileDetailsResponse>;
}

// ---------------------------------------------------------------------------------------------------------------
// Request rules

function checkCsid(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw new EcaRequestError('CSID', 'a client service id is required');
  return value.trim();
}

/** A single id may be a string; the wire always gets a list. */
export function normaliseAccountIds(value: unknown, parameter = 'accountIds'): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list)) throw new EcaRequestError(parameter, 'expected an account id or a list of them');
  if (list.length === 0) throw new EcaRequestError(parameter, 'the list is empty; omit it to select all accounts');
  const ids = list.map((id, index) => {
    if (typeof id !== 'string' || !/^[A-Za-z0-9_-]{1,32}$/.test(id.trim())) {
      throw new EcaRequestError(`${parameter}[${index}]`, 'expected an account number');
    }
    return id.trim();
  });
  return [...new Set(ids)];
}

function checkNumericString(value: unknown, parameter: string): string {
  if (typeof value !== 'string' || !/^\d+$/.test(value.trim())) {
    throw new EcaRequestError(parameter, 'expected a numeric string');
  }
  return value.trim();
}

function selectionBody(request: AccountSelection, csid: string): Record<string, unknown> {
  const body: Record<string, unknown> = { CSID: checkCsid(request.CSID ?? csid) };
  if (request.accountIds !== undefined) body.accountIds = normaliseAccountIds(request.accountIds);
  if (request.startDate !== undefined) {
    if (typeof request.startDate !== 'string' || !isIsoDate(request.startDate)) {
      throw new EcaRequestError('startDate', 'expected a date written yyyy-mm-dd');
    }
    if (request.endDate === undefined) throw new EcaRequestError('endDate', 'required when startDate is sent');
    body.startDate = request.startDate;
  }
  if (request.endDate !== undefined) {
    if (typeof request.endDate !== 'string' || !isIsoDate(request.endDate)) {
      throw new EcaRequestError('endDate', 'expected a date written yyyy-mm-dd');
    }
    if (request.startDate !== undefined && request.endDate < request.startDate) {
      throw new EcaRequestError('endDate', 'must not be before startDate');
    }
    body.endDate = request.endDate;
  }
  return body;
}

/**
 * Spec, preference/set: "Languages are given as short lower-case codes." The allowed list is not shown, so only
 * the form is checked: two or three lower-case letters (`en`, `zh`, `fra`). Region or script subtags (`en-US`,
 * `zh-Hans`) and upper case are refused before anything is sent.
 */
export const LANGUAGE_CODE_PATTERN = /^[a-z]{2,3}$/;

/** A language of preference/set that is not a short lower-case code; `value` is the text as given. */
export class EcaLanguageCodeError extends EcaRequestError {
  readonly value: unknown;

  constructor(parameter: string, value: unknown) {
    const shown =
      typeof value === 'string' ? JSON.stringify(value.length > 20 ? `${value.slice(0, 20)}…` : value) : typeof value;
    super(parameter, `${shown} is not a short lower-case language code (two or three letters a-z, e.g. en, zh, fra)`);
    this.value = value;
  }
}

/** Whether `value` is a language code that preference/set accepts (see {@link LANGUAGE_CODE_PATTERN}). */
export function isLanguageCode(value: unknown): boolean {
  return typeof value === 'string' && LANGUAGE_CODE_PATTERN.test(value);
}

function checkLanguage(value: unknown, parameter: string): string {
  if (typeof value !== 'string' || !isLanguageCode(value)) throw new EcaLanguageCodeError(parameter, value);
  return value;
}

// ---------------------------------------------------------------------------------------------------------------
// sso/create response

/**
 * Where the response carries the signed URL. The spec gives two shapes: the endpoint section says "`SUCCESS`
 * (object with `SIGNED_URL`...)", the resources section lists the fields flat: "`SIGNED_URL` (base64 string of the
 * session URL), `RESULT` (boolean), `ERROR` (string)". Both are read; the nested one wins when both are sent.
 */
function signedUrlField(parsed: { SUCCESS?: { SIGNED_URL?: string | undefined } | null | undefined }): {
  encoded: string | undefined;
  path: string;
} {
  const nested = parsed.SUCCESS?.SIGNED_URL;
  if (nested !== undefined) return { encoded: nested, path: 'SUCCESS.SIGNED_URL' };
  const flat = (parsed as Record<string, unknown>).SIGNED_URL;
  if (flat === undefined || flat === null) return { encoded: undefined, path: 'SUCCESS.SIGNED_URL' };
  if (typeof flat !== 'string') throw new EcaSchemaError('SIGNED_URL', 'expected base64 text');
  return { encoded: flat.trim() === '' ? undefined : flat, path: 'SIGNED_URL' };
}

// ---------------------------------------------------------------------------------------------------------------
// The client

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function checkUrl(url: string, parameter: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error('protocol');
  } catch (cause) {
    throw new EcaRequestError(parameter, 'expected an http(s) URL', { cause });
  }
  return trimSlash(url);
}

function networkDetail(error: unknown): string {
  const cause = error instanceof Error ? (error.cause as { code?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error ? error.name : 'unknown error';
}

export function createEcaClient(options: EcaClientOptions): EcaClient {
  const environment: EcaEnvironment = options.environment ?? 'qa';
  if (environment !== 'qa' && environment !== 'prod') throw new EcaRequestError('environment', 'expected qa or prod');
  const baseUrl = checkUrl(options.baseUrl ?? ECA_BASE_URLS[environment], 'baseUrl');
  const preferenceUrl = checkUrl(options.preferenceUrl ?? ECA_PREFERENCE_URLS[environment], 'preferenceUrl');
  const csid = options.csid;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const retryLimit =
    typeof options.retry === 'number' ? options.retry : (options.retry?.limit ?? DEFAULT_QUERY_RETRY_LIMIT);
  const retryDelayMs = typeof options.retry === 'object' ? (options.retry.delayMs ?? 300) : 300;
  const namespace = options.importNamespace ?? DEFAULT_IMPORT_NAMESPACE;
  const now = options.now ?? (() => new Date());

  const http = ky.create({
    timeout: timeoutMs,
    throwHttpErrors: true,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    headers: { accept: 'application/json' },
  });

  let envelope: Promise<EnvelopeKeys> | undefined;
  function envelopeKeys(): Promise<EnvelopeKeys> {
    envelope ??= (async () => {
      const privateSource = options.firmPrivateKey;
      const publicSource = options.brokeragePublicKey;
      if (privateSource === undefined) throw new EcaCryptoError('firmPrivateKey', 'no key configured');
      if (publicSource === undefined) throw new EcaCryptoError('brokeragePublicKey', 'no key configured');
      const [ownPrivateKey, peerPublicKey] = await Promise.all([
        typeof privateSource === 'string'
          ? loadPrivateKey(privateSource, options.passphrase, 'firmPrivateKey')
          : privateSource,
        typeof publicSource === 'string' ? loadPublicKey(publicSource, 'brokeragePublicKey') : publicSource,
      ]);
      return { ownPrivateKey, peerPublicKey, side: 'firm' as const };
    })();
    // A failed load is not cached, so a corrected key file is picked up by the next call.
    envelope.catch(() => (envelope = undefined));
    return envelope;
  }

  async function send(
    operation: EcaOperation,
    body: unknown,
    mode: 'query' | 'once',
  ): Promise<{ status: number; text: string }> {
    const url = `${operation === 'preferenceSet' ? preferenceUrl : baseUrl}${OPERATION_PATHS[operation]}`;
    try {
      const signal = options.signal?.();
      const response = await http.post(url, {
        json: body,
        ...(signal ? { signal } : {}),
        retry:
          mode === 'query'
            ? {
                limit: retryLimit,
                methods: ['post'],
                statusCodes: [408, 429, 500, 502, 503, 504],
                // `timeoutMs` is per attempt: a query held past it is asked again, as a 5xx is.
                retryOnTimeout: true,
                delay: (attempt) => retryDelayMs * 2 ** (attempt - 1),
              }
            : { limit: 0 },
      });
      return { status: response.status, text: await response.text() };
    } catch (error) {
      if (error instanceof HTTPError) {
        let text = '';
        try {
          text = await error.response.text();
        } catch {
          // The body is only for the excerpt.
        }
        // The ky error is not chained as cause: it references the request, whose body may hold the payload.
        throw new EcaHttpError(operation, error.response.status, safeBodyExcerpt(text));
      }
      if (error instanceof TimeoutError) throw new EcaTimeoutError(operation, timeoutMs);
      if (error instanceof EcaError) throw error;
      throw new EcaNetworkError(operation, networkDetail(error), { cause: error });
    }
  }

  async function postJson(operation: EcaOperation, body: unknown, mode: 'query' | 'once'): Promise<unknown> {
    for (let attempt = 0; ; attempt++) {
      const { text } = await send(operation, body, mode);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        // A query answered with broken JSON is asked again, as a 5xx is; a write is never repeated here.
        if (mode !== 'query' || attempt >= retryLimit || options.signal?.()?.aborted) {
          throw new EcaSchemaError('', `the ${operation} response is not JSON`);
        }
        await new Promise((resolve) => setTimeout(resolve, retryDelayMs * 2 ** attempt));
      }
    }
  }

  async function sealedPayload(content: Uint8Array): Promise<string> {
    return seal(content, await envelopeKeys());
  }

  async function openFileData(
    operation: EcaOperation,
    data: string | undefined,
    path = 'fileData.data',
  ): Promise<string | undefined> {
    if (data === undefined) return undefined;
    const bytes = await open(data, await envelopeKeys());
    const text = new TextDecoder().decode(bytes);
    if (text.trim() === '') throw new EcaSchemaError(path, `the ${operation} response file is empty`);
    return text;
  }

  function withPath<T>(path: string, parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (error instanceof EcaSchemaError)
        throw new EcaSchemaError(`${path}:${error.path}`, error.message, { cause: error });
      throw error;
    }
  }

  async function applicationArchive(request: ApplicationFileRequest, defaultName: string): Promise<Uint8Array> {
    if (typeof request.applicationXml !== 'string')
      throw new EcaRequestError('applicationXml', 'the XML text is required');
    const problem = xmlWellFormednessError(request.applicationXml);
    if (problem) throw new EcaRequestError('applicationXml', problem);
    const { zip } = await buildArchive({
      xml: { fileName: request.xmlFileName ?? defaultName, content: request.applicationXml },
      attachments: request.attachments ?? [],
    });
    return zip;
  }

  function payloadBody(CSID: string | undefined, payload: string): Record<string, string> {
    return { CSID: checkCsid(CSID ?? csid), payload };
  }

  async function queryAccounts<S extends keyof typeof responseSchemas>(
    operation: S & EcaOperation,
    body: Record<string, unknown>,
  ): Promise<{ parsed: ReturnType<(typeof responseSchemas)[S]['parse']>; raw: unknown }> {
    const raw = await postJson(operation, body, 'query');
    return {
      parsed: validateResponse(responseSchemas[operation], raw) as ReturnType<(typeof responseSchemas)[S]['parse']>,
      raw,
    };
  }

  return {
    async getPendingTasks(request = {}) {
      const body = selectionBody(request, csid);
      if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
      const { parsed, raw } = await queryAccounts('getPendingTasks', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },

    async getRegistrationTasks(request = {}) {
      const body = selectionBody(request, csid);
      if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
      if (request.getDocs !== undefined) {
        if (request.getDocs !== 'T' && request.getDocs !== 'F') throw new EcaRequestError('getDocs', 'expected T or F');
        body.getDocs = request.getDocs;
      }
      const { parsed, raw } = await queryAccounts('getRegistrationTasks', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },

    async getAccountStatus(request = {}) {
      const body = selectionBody(request, csid);
      if (request.status !== undefined) {
        if (!(ACCOUNT_STATUS_CODES as readonly string[]).includes(request.status)) {
          throw new EcaRequestError('status', `expected one of ${ACCOUNT_STATUS_CODES.join(' ')}`);
        }
        body.status = request.status;
      }
      const { parsed, raw } = await queryAccounts('getAccountStatus', body);
      return withTimestamp({ accounts: parsed.status ?? parsed.result ?? [], raw }, parsed.timestamp);
    },

    async getEnumerations(request) {
      if (!isEnumerationType(request.type)) {
        throw new EcaRequestError('type', `expected one of ${ENUMERATION_TYPES.join(', ')}`);
      }
      const canonical = canonicalEnumerationType(request.type);
      const body: Record<string, unknown> = { CSID: checkCsid(request.CSID ?? csid), type: request.type };
      if (canonical === 'FIN_INFO_RANGES') {
        if (typeof request.currency !== 'string' || !/^[A-Z]{3}$/.test(request.currency)) {
          throw new EcaRequestError('currency', 'required for FIN_INFO_RANGES: three upper-case letters, e.g. USD');
        }
        body.currency = request.currency;
      } else if (request.currency !== undefined) {
        throw new EcaRequestError('currency', 'applies only when type is FIN_INFO_RANGES');
      }
      if (canonical === 'EDD_AVT' || canonical === 'QUIZ_QUESTIONS') {
        if (request.formNumber !== undefined) body.formNumber = checkNumericString(request.formNumber, 'formNumber');
        else if (canonical === 'EDD_AVT') throw new EcaRequestError('formNumber', 'required when type is EDD_AVT');
      } else if (request.formNumber !== undefined) {
        throw new EcaRequestError('formNumber', 'applies only when type is EDD_AVT or QUIZ_QUESTIONS');
      }
      const { status: _status, text } = await send('getEnumerations', body, 'query');
      return parseEnumerationsBody(request.type, text);
    },

    async getAmRequestStatus(request = {}) {
      const body: Record<string, unknown> = { CSID: checkCsid(request.CSID ?? csid) };
      if (request.accountIds !== undefined) body.accountIds = normaliseAccountIds(request.accountIds);
      if (request.request_id !== undefined) {
        const id: unknown = request.request_id;
        if (Array.isArray(id)) throw new EcaRequestError('request_id', 'one request_id per call');
        if (typeof id !== 'string' || id.trim() === '')
          throw new EcaRequestError('request_id', 'expected a request id');
        if (/[\s,;]/.test(id.trim())) throw new EcaRequestError('request_id', 'one request_id per call');
        body.request_id = id.trim();
      }
      const { parsed, raw } = await queryAccounts('getAmRequestStatus', body);
      return withTimestamp({ requests: parsed.result, raw }, parsed.timestamp);
    },

    async submitDocuments(request) {
      if (!Array.isArray(request.documents) || request.documents.length === 0) {
        throw new EcaRequestError('documents', 'at least one document is required');
      }
      const attachments: ArchiveAttachment[] = [];
      const documents = request.documents.map((document, index) => {
        if (!Array.isArray(document.files) || document.files.length === 0) {
          throw new EcaRequestError(`documents[${index}].files`, 'each document needs at least one PDF');
        }
        return {
          formNumber: document.formNumber,
          execTs: document.execTs,
          execLoginTs: document.execLoginTs,
          files: document.files.map((file, fileIndex) => {
            const parameter = `documents[${index}].files[${fileIndex}]`;
            checkFileName(file.fileName, `${parameter}.fileName`);
            if (!(file.data instanceof Uint8Array)) throw new EcaRequestError(`${parameter}.data`, 'expected bytes');
            attachments.push(file);
            return { fileName: file.fileName, sha1: sha1Hex(file.data), length: file.data.byteLength };
          }),
        };
      });
      const sent = documents.flatMap((document) =>
        document.files.map((file) => ({ formNumber: document.formNumber, ...file })),
      );
      const xml = buildSubmitDocumentsXml({ namespace, documents });
      const { zip } = await buildArchive({
        xml: { fileName: request.xmlFileName ?? 'documents.xml', content: xml },
        attachments,
      });
      const raw = await postJson('submitDocuments', payloadBody(request.CSID, await sealedPayload(zip)), 'once');
      const parsed = validateResponse(responseSchemas.submitDocuments, raw);
      const result: SubmitDocumentsResponse = { isProcessed: parsed.isProcessed, sent, raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      const reportXml = parsed.isProcessed ? await openFileData('submitDocuments', parsed.fileData?.data) : undefined;
      if (reportXml !== undefined) {
        const report = withPath('fileData.data', () => parseDocumentsReport(reportXml));
        result.fileData = { report, xml: reportXml };
        if (parsed.fileData?.name) result.fileData.name = parsed.fileData.name;
      }
      return result;
    },

    async validateXML(request) {
      const zip = await applicationArchive(request, 'application.xml');
      const raw = await postJson('validateXML', payloadBody(request.CSID, await sealedPayload(zip)), 'once');
      const parsed = validateResponse(responseSchemas.validateXML, raw);
      const errors = (parsed.errors ?? [])
        .map((entry) => (typeof entry === 'string' ? entry : (entry.error ?? entry.Error ?? '')))
        .filter((text) => text !== '');
      const result: ValidateXmlResponse = { isValid: parsed.isValid, errors, raw };
      if (parsed.batchId !== undefined) result.batchId = parsed.batchId;
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      return result;
    },

    async create(request) {
      const zip = await applicationArchive(request, 'application.xml');
      const raw = await postJson('create', payloadBody(request.CSID, await sealedPayload(zip)), 'once');
      const parsed = validateResponse(responseSchemas.create, raw);
      const result: CreateAccountsResponse = { isProcessed: parsed.isProcessed, raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      if (parsed.batchId !== undefined) result.batchId = parsed.batchId;
      const name = parsed.name ?? parsed.fileData?.name;
      if (name !== undefined) result.name = name;
      // The call was processed: a response file that cannot be opened must not hide that (its name is what counts).
      let responseXml: string | undefined;
      try {
        responseXml = parsed.isProcessed ? await openFileData('create', parsed.fileData?.data) : undefined;
      } catch (error) {
        result.responseProblem = error instanceof Error ? error.message : String(error);
      }
      if (responseXml !== undefined) {
        result.responseXml = new SecretString(responseXml);
        try {
          result.response = withPath('fileData.data', () => parseCreateResponseXml(responseXml));
        } catch (error) {
          result.responseProblem = error instanceof Error ? error.message : String(error);
        }
      }
      return result;
    },

    async ssoCreate(request) {
      const payloadJson = JSON.stringify(buildSsoPayload({ userName: request.userName, ip: request.ip }));
      const body = payloadBody(request.CSID, await sealedPayload(new TextEncoder().encode(payloadJson)));
      // Taken before the request leaves: the brokerage issues the URL after this instant, so expiresAt
      // (issuedAt + 60 s, spec: "The URL is valid 60 seconds") can only underestimate the validity, never overestimate it.
      const issuedAt = now();
      const raw = await postJson('ssoCreate', body, 'once');
      const parsed = validateResponse(responseSchemas.ssoCreate, raw);
      const result: SsoCreateResponse = { result: parsed.RESULT, raw };
      if (parsed.ERROR !== undefined && parsed.ERROR !== '') result.error = parsed.ERROR;
      const { encoded, path } = signedUrlField(parsed);
      if (parsed.RESULT) {
        if (encoded === undefined) {
          throw new EcaSchemaError(path, 'missing although RESULT is true (neither SUCCESS.SIGNED_URL nor SIGNED_URL)');
        }
        const bytes = fromBase64(encoded);
        if (!bytes || bytes.length === 0) throw new EcaSchemaError(path, 'not base64 text');
        let urlText = new TextDecoder().decode(bytes).trim();
        // The spec asks to "decrypt and validate" the URL: an OpenPGP-sealed URL is opened, a plain one used as is.
        if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(urlText)) {
          urlText = new TextDecoder().decode(await open(encoded, await envelopeKeys())).trim();
        }
        result.signedUrl = validateSignedUrl(urlText, environment, { ...options.sso, issuedAt }, path);
      }
      return result;
    },

    async update(request) {
      if (typeof request.xml !== 'string') throw new EcaRequestError('xml', 'the update XML text is required');
      const problem = xmlWellFormednessError(request.xml);
      if (problem) throw new EcaRequestError('xml', problem);
      const { zip } = await buildArchive({
        xml: { fileName: request.xmlFileName ?? 'update.xml', content: request.xml },
        attachments: request.attachments ?? [],
      });
      const raw = await postJson('update', payloadBody(request.CSID, await sealedPayload(zip)), 'once');
      const parsed = validateResponse(responseSchemas.update, raw);
      const result: UpdateResponse = { raw };
      if (parsed.timestamp) result.timestamp = parsed.timestamp;
      // The request was filed under fileData.name: a file that cannot be opened must not hide that.
      let xml: string | undefined;
      try {
        xml = await openFileData('update', parsed.fileData?.data);
      } catch (error) {
        if (!parsed.fileData?.name) throw error;
        result.responseProblem = error instanceof Error ? error.message : String(error);
      }
      if (xml !== undefined || parsed.fileData?.name) {
        result.fileData = { xml: xml ?? '' };
        if (parsed.fileData?.name) result.fileData.name = parsed.fileData.name;
      }
      return result;
    },

    async preferenceSet(request) {
      const userName = request.customerIdentity?.userName;
      if (typeof userName !== 'string' || userName.trim() === '') {
        throw new EcaRequestError('customerIdentity.userName', 'a user name is required');
      }
      const language = request.preferences?.LANGUAGE;
      const LANGUAGE: Record<string, string> = { LANG1: checkLanguage(language?.LANG1, 'preferences.LANGUAGE.LANG1') };
      if (language?.LANG2 !== undefined) LANGUAGE.LANG2 = checkLanguage(language.LANG2, 'preferences.LANGUAGE.LANG2');
      const body = {
        customerIdentity: { userName: userName.trim() },
        preferences: { LANGUAGE },
        updateMode: request.updateMode ?? 'INDIVIDUAL',
        modifiedBy: request.modifiedBy ?? 'ECA',
        srcApp: request.srcApp ?? 'ECA',
      };
      // Not a read-only call: never retried.
      const { status, text } = await send('preferenceSet', body, 'once');
      let parsedBody: unknown = text;
      try {
        parsedBody = text.trim() === '' ? undefined : (JSON.parse(text) as unknown);
      } catch {
        // The response format is not in the spec: non-JSON text is returned as is.
      }
      return { status, body: parsedBody, raw: parsedBody };
    },

    async getResponseFile(request) {
      if (typeof request.externalId !== 'string' || request.externalId.trim() === '') {
        throw new EcaRequestError('externalId', 'the external_id of the application is required');
      }
      const body = { CSID: checkCsid(request.CSID ?? csid), externalId: request.externalId.trim() };
      const { parsed, raw } = await queryAccounts('getResponseFile', body);
      return withTimestamp({ files: parsed.result, raw }, parsed.timestamp);
    },

    async getBatchDetails(request) {
      if (request?.accountIds === undefined) throw new EcaRequestError('accountIds', 'required for getBatchDetails');
      const body = { CSID: checkCsid(request.CSID ?? csid), accountIds: normaliseAccountIds(request.accountIds) };
      const { parsed, raw } = await queryAccounts('getBatchDetails', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },

    async getFileDetails(request) {
      if (request?.accountIds === undefined) throw new EcaRequestError('accountIds', 'required for getFileDetails');
      const body = { CSID: checkCsid(request.CSID ?? csid), accountIds: normaliseAccountIds(request.accountIds) };
      const { parsed, raw } = await queryAccounts('getFileDetails', body);
      return withTimestamp({ accounts: parsed.result, raw }, parsed.timestamp);
    },
  };
}

function withTimestamp<T extends object>(value: T, timestamp: Timestamp | undefined): T & { timestamp?: Timestamp } {
  return timestamp ? { timestamp, ...value } : value;
}

/**
 * The envelope of the enumeration CSV is not in the spec. Accepted, in order: a CSV body (any content type); JSON
 * with `csv` (CSV text); JSON with `fileData.data` (base64 of the CSV, or the CSV text itself); JSON with `result`
 * as a list of row objects or as CSV text.
 */
export function parseEnumerationsBody(type: EnumerationType, text: string): EnumerationsResponse {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { type, rows: parseEnumerationsCsv(text), csv: text, raw: text };
  }
  const parsed = validateResponse(responseSchemas.getEnumerations, json);
  const response = (csv: string, rows = parseEnumerationsCsv(csv)): EnumerationsResponse => {
    const result: EnumerationsResponse = { type, rows, csv, raw: json };
    if (parsed.timestamp) result.timestamp = parsed.timestamp;
    return result;
  };
  if (parsed.csv !== undefined) return response(parsed.csv);
  const data = parsed.fileData?.data;
  if (data !== undefined) {
    const looksLikeCsv = /[,\n]/.test(data);
    const bytes = looksLikeCsv ? undefined : fromBase64(data);
    if (!looksLikeCsv && !bytes) throw new EcaSchemaError('fileData.data', 'neither CSV text nor base64');
    return response(bytes ? new TextDecoder().decode(bytes) : data);
  }
  if (typeof parsed.result === 'string') return response(parsed.result);
  if (Array.isArray(parsed.result)) {
    const rows = (parsed.result as unknown[]).map((row, index) => {
      if (row === null || typeof row !== 'object' || Array.isArray(row)) {
        throw new EcaSchemaError(`result[${index}]`, 'expected an object of column values');
      }
      return Object.fromEntries(
        Object.entries(row as Record<string, unknown>).map(([key, value]) => [
          key,
          typeof value === 'string' ? value : JSON.stringify(value),
        ]),
      );
    });
    return response('', rows);
  }
  throw new EcaSchemaError('', 'no enumeration CSV in the response (expected csv, fileData or result)');
}

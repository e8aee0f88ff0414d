/** Options, requests and responses of the typed client (query responses are in ../schemas/). */
import type { ArchiveAttachment } from '../archive.js';
import type { PrivateKey, PublicKey } from '../crypto.js';
import type { EnumerationType } from '../enumerations.js';
import type { SecretString } from '../secret.js';
import type {
  AccountStatusResponse,
  AmRequestStatusResponse,
  BatchDetailsResponse,
  FileDetailsResponse,
  PendingTasksResponse,
  RegistrationTasksResponse,
  ResponseFileResponse,
} from '../schemas/index.js';
import type { EcaEnvironment, SignedUrl, SignedUrlOptions } from '../sso.js';
import type { AccountStatusCode, Timestamp } from '../types.js';
import type { CreateResponse, DocumentsReport } from '../xml.js';
import type { EcaOperation } from './operations.js';

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
  /**
   * Worker threads that seal requests and open response files (eca/crypto-pool.ts), so that OpenPGP work
   * does not hold up the caller's event loop; 0, the default, does it in the calling thread. Used when
   * both keys are given as text or paths (a loaded key cannot cross to a thread).
   */
  cryptoThreads?: number;
  /** Per-attempt timeout; defaults to 30 s. */
  timeoutMs?: number;
  /** Retries of the read-only query operations (count, or count and base delay); defaults to 2. */
  retry?: number | { limit: number; delayMs?: number };
  /** Import-schema namespace written into request XML; defaults to `DEFAULT_IMPORT_NAMESPACE` (request-xml.ts). */
  importNamespace?: string;
  /** Validation of SSO signed URLs (allowed hosts, loopback http for a local simulator). */
  sso?: Omit<SignedUrlOptions, 'issuedAt'>;
  /** A fetch implementation (tests, proxies); defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Clock for SSO expiry; defaults to the system clock. */
  now?: () => Date;
  /**
   * Called before every HTTP call: a signal that aborts it (the caller's time limit or cancellation), so
   * that no call outlives the work that made it. Without it calls end only by `timeoutMs`.
   */
  signal?: () => AbortSignal | undefined;
  /**
   * Awaited before every HTTP request, each retry of a query included: a call budget waits here for
   * its slot, until `signal` (the call's own, see `signal` above) aborts. Nothing is sent when it throws,
   * and the caller gets an `EcaDeferredError`: the one it threw, or one saying the pacing failed.
   */
  pace?: (operation: EcaOperation, signal?: AbortSignal) => Promise<void>;
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
// Responses of operations normalised here (query responses are in ../schemas/)

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

/**
 * Settings that break what the spec does not promise. Each names one reading a client could make of the
 * simulator's default answers that `spec/eca-web-service.md` never guarantees; turned on, the simulator
 * answers in a way that is just as true to the spec and breaks that reading, so that a test shows what the
 * engine does when the brokerage answers so. All are off unless set (`startSimulator({ unpromised })`,
 * `--unpromised`, `PUT /_sim/unpromised`); the fault suite runs once with every one on.
 */
export const UNPROMISED = {
  'update-file-unlisted':
    'getAmRequestStatus `files` never names the update\'s response file; the service\'s own name for the request (`<FirmName>_YYYY-MM-DD_####_####.xml.imported`) stands in its place (the spec: only "files (list of file names)")',
  'file-details-other-name':
    "getFileDetails' `Response File Name` is not the name create and getResponseFile gave, nor any create's (never said to be the same); `Request File Name` is the service's own",
  'encryption-text-unworded':
    'the error text of a payload that cannot be decrypted or verified (validateXML, update, sso/create) names no encryption, key or signature: `Request could not be processed (code 4012)` (fixed texts: not shown)',
  'no-error-field':
    'update and submitDocuments answers carry no `error` field (the spec lists none): an update that files nothing answers `{ timestamp }` alone',
  'sso-sid-elsewhere':
    'signed SSO URLs carry the session id in the path, not as a `SID` query parameter, and the portal takes it there (the spec: "the session id of the URL")',
  'description-rewording':
    'getAccountStatus `description` words the same status differently from read to read: every other read says `Account open` for `Open`, `Application pending` for `Pending`, … (the spec: "the text of the status", a text, not a code)',
  'service-time-zone':
    'the service writes its timestamps in UTC+14 and reads startDate/endDate as days of UTC−12 (its time zones: not shown, nor said to be one)',
  'pending-tasks-omitted':
    'getPendingTasks gives no entry for an account without pending tasks, named in accountIds or selected by CSID or dates alike (one entry per account: not promised); an account with pending tasks is always listed',
  'create-format-refusal':
    'create answers `isProcessed` false ("the XML format is invalid") for an application validateXML accepted: every file whose XML holds the text `format-refused`',
  'checksum-received-first':
    'a checksum-mismatch `Status` gives the received SHA-1 before the stored one, unlabelled (their order: not shown)',
  'account-list-limit':
    'a look-up naming more than 20 accounts is refused as a whole, HTTP 400 with an error body (the maximum per request: not shown)',
  'webapi-create-unprocessed':
    "the Web API's `GET /gw/api/v1/accounts?externalId=` answers a create not listed yet as its `ResponseFileResponse` with `isProcessed` false (received, not processed yet), not as nothing: the document's answer for an application in hand",
  'webapi-formless-task':
    "the Web API's pending tasks of an account not yet decided carry an identity verification with no `formNumber` (its page and dates, `entityId`, `questionIds`; the document requires no field of `PendingTask`), not required for approval",
  'webapi-wrong-id-500':
    'the Web API answers a read or a request naming an account id the brokerage holds for no firm with HTTP 500 (the document\'s `InternalServerError` "can sometimes include subset of bad requests. For example, wrong accountId passed"), not with `hasError`',
} as const;

export type Unpromised = keyof typeof UNPROMISED;
export const UNPROMISED_NAMES = Object.keys(UNPROMISED) as Unpromised[];

/** The most accounts one look-up may name under `account-list-limit`. */
export const ACCOUNT_LIST_LIMIT = 20;

export function isUnpromised(name: string): name is Unpromised {
  return Object.hasOwn(UNPROMISED, name);
}

/** Checks a list from the options or the CLI (`all` turns every setting on); throws naming an unknown one. */
export function parseUnpromised(names: readonly string[]): Set<Unpromised> {
  const settings = new Set<Unpromised>();
  for (const name of names) {
    if (name === 'all') UNPROMISED_NAMES.forEach((each) => settings.add(each));
    else if (isUnpromised(name)) settings.add(name);
    else throw new RangeError(`unpromised: ${name} is not one of all, ${UNPROMISED_NAMES.join(', ')}`);
  }
  return settings;
}

/**
 * Typed search attributes the engine keeps current on its workflows, so that ops can find an
 * application in the Temporal UI or with `temporal workflow list --query`.
 * Pure definitions: imported by workflows, the worker, the client and the test servers alike.
 */
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const EcaLifecycleState = defineSearchAttributeKey('EcaLifecycleState', SearchAttributeType.KEYWORD);
export const EcaAccountStatus = defineSearchAttributeKey('EcaAccountStatus', SearchAttributeType.KEYWORD);
export const EcaAccountId = defineSearchAttributeKey('EcaAccountId', SearchAttributeType.KEYWORD);
export const EcaExternalId = defineSearchAttributeKey('EcaExternalId', SearchAttributeType.KEYWORD);
export const EcaCsid = defineSearchAttributeKey('EcaCsid', SearchAttributeType.KEYWORD);
/**
 * Applications waiting on the firm's status sweep: the fingerprint of what they last read of their
 * account (`none` before the first read). The sweep wakes those whose fingerprint the brokerage's
 * answer no longer matches (workflows/sweep). Not personal data: a hash of status and task fields.
 */
export const EcaObserved = defineSearchAttributeKey('EcaObserved', SearchAttributeType.KEYWORD);
/** Daily documents: `none`, `checksum-mismatch`, `refused`, `not-submitted` or `unconfirmed` (see workflows/documents). */
export const EcaDocumentsAlert = defineSearchAttributeKey('EcaDocumentsAlert', SearchAttributeType.KEYWORD);
/** Daily documents: the earliest end of a form-update grace period (forms to replace by then). */
export const EcaReplaceFormsBy = defineSearchAttributeKey('EcaReplaceFormsBy', SearchAttributeType.DATETIME);
/** Account maintenance: the update function sent (`ChangeBaseCurrency`...). */
export const EcaUpdateFunction = defineSearchAttributeKey('EcaUpdateFunction', SearchAttributeType.KEYWORD);
/** Account maintenance: `SENDING`, `PENDING`, `PROCESSED` or `REJECTED`. */
export const EcaRequestStatus = defineSearchAttributeKey('EcaRequestStatus', SearchAttributeType.KEYWORD);

/** Every key, for registering them on a server (`temporal operator search-attribute create`). */
export const ECA_SEARCH_ATTRIBUTES = [
  EcaLifecycleState,
  EcaAccountStatus,
  EcaAccountId,
  EcaExternalId,
  EcaCsid,
  EcaDocumentsAlert,
  EcaReplaceFormsBy,
  EcaUpdateFunction,
  EcaRequestStatus,
  EcaObserved,
];

/** A value as a string literal of a visibility query: quoted, its backslashes and quotes escaped. */
export function visibilityString(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

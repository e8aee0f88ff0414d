/**
 * The failure types the workflows react to, by name. An activity's error reaches a workflow as an
 * `ApplicationFailure` whose `type` is the error's name; these constants are the one spelling of
 * each, used by the error classes that carry them and by the workflows' retry policies.
 */

/** The engine's configuration is incomplete or wrong (runtime/config.ts `ConfigurationError`). */
export const CONFIGURATION_ERROR = 'EcaConfigurationError';
/** A request eca/ refused before sending it (eca/errors.ts `EcaRequestError`): a retry sends the same. */
export const REQUEST_ERROR = 'EcaRequestError';
/**
 * A getAmRequestStatus listing with an error entry for the account (convention 3) hides the account's
 * requests: nothing can be looked up or confirmed, so the activities fail with this type and the
 * workflows stop in a state staff see instead of retrying for ever.
 */
export const REQUEST_LISTING_REFUSED = 'RequestListingRefused';
/**
 * create answered `isProcessed` false while the keys are fine (activities/brokerage-errors.ts): retried
 * with backoff, then the application stops in `blocked` naming the spec's causes.
 */
export const CREATE_NOT_PROCESSED = 'CreateNotProcessed';
/** The forms directory's manifest cannot be used (activities/forms.ts). */
export const FORMS_MANIFEST_INVALID = 'FormsManifestInvalid';
/** Document store failures (runtime/document-store.ts). */
export const DOCUMENT_NOT_FOUND = 'DocumentNotFound';
export const DOCUMENT_CORRUPTED = 'DocumentCorrupted';
export const DOCUMENT_UNDECRYPTABLE = 'DocumentUndecryptable';

/** Failures no retry of the same call mends: every engine workflow stops retrying on them. */
export const NON_RETRYABLE_ERROR_TYPES: readonly string[] = [CONFIGURATION_ERROR, REQUEST_ERROR];

/** The document store's errors (runtime/document-store.ts), typed by name so that workflows can tell them apart. */
import { DOCUMENT_CORRUPTED, DOCUMENT_NOT_FOUND, DOCUMENT_UNDECRYPTABLE } from '../domain/error-types.js';

/** The reference names no document in the store. Not retryable: retrying cannot make it appear. */
export class DocumentNotFound extends Error {
  override readonly name = DOCUMENT_NOT_FOUND;
}

/** The stored bytes no longer match their reference. */
export class DocumentCorrupted extends Error {
  override readonly name = DOCUMENT_CORRUPTED;
}

/** A stored blob that cannot be decrypted: its key is not configured, or it does not authenticate. */
export class DocumentUndecryptable extends Error {
  override readonly name = DOCUMENT_UNDECRYPTABLE;
}

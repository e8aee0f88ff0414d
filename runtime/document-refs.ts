/**
 * What every document store (the filesystem's, the database's) shares: the form of a reference, the
 * names of owners and records, and the checks a document's bytes pass before they are handed out. A
 * reference means the same in every store, and a sealed blob is bound to it (document-sealing.ts), so
 * the bytes at rest are the same whichever store keeps them.
 */
import { createHash } from 'node:crypto';
import type { DocumentRef } from '../domain/documents.js';
import { DocumentCorrupted, DocumentNotFound, DocumentUndecryptable } from './document-errors.js';
import type { DocumentKeys } from './document-sealing.js';

/**
 * A blob's reference: its keyed name with a keyring, its SHA-1 in a store without one (its blobs are in
 * the clear). The 2-digit folder is the name's start.
 */
export const KEYED_REF = /^hmac\/([0-9a-f]{2})\/([0-9a-f]{64})$/;
export const SHA1_REF = /^sha1\/([0-9a-f]{2})\/([0-9a-f]{40})$/;
export const BLOB_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
/** The holder of a document stored without an owner: it is never released. */
export const UNOWNED = 'unowned';
/** One sealed record per owner released once its workflow closed (`releaseWhenClosed`). */
export const CLOSING = 'closing';
export const CLOSING_REF = /^closing\/([0-9a-f]{64})$/;

/** An owner's name in a store (a workflow id may hold any character). */
export function ownerKey(owner: string): string {
  return createHash('sha256').update(owner).digest('hex');
}

/** The reference of an owner's `releaseWhenClosed` record, which its sealing is bound to. */
export function closingRef(owner: string): string {
  return `${CLOSING}/${ownerKey(owner)}`;
}

export function sha1Of(data: Uint8Array): string {
  return createHash('sha1').update(data).digest('hex');
}

/** A blob's reference, its name, and whether that is keyed (else the SHA-1 of its content). */
export interface BlobName {
  ref: string;
  name: string;
  keyed: boolean;
}

/** The reference `ref` parsed; DocumentNotFound when it is no document reference. */
export function blobName(ref: string): BlobName {
  const match = KEYED_REF.exec(ref) ?? SHA1_REF.exec(ref);
  if (!match || !match[2]!.startsWith(match[1]!)) {
    throw new DocumentNotFound(`not a document reference: "${ref.slice(0, 80)}"`);
  }
  return { ref, name: match[2]!, keyed: ref.startsWith('hmac/') };
}

/** The reference of the blob named `name` (a keyed name, or a SHA-1). */
export function refOfName(name: string): string {
  return `${name.length === 40 ? 'sha1' : 'hmac'}/${name.slice(0, 2)}/${name}`;
}

/**
 * The content of a blob as stored: decrypted (a blob of keyed name is always sealed; one named by its
 * SHA-1 was written in the clear, and sealed if the store was given keys since), and checked against its
 * SHA-1 name. `where` names the store in messages.
 */
export function openBlob(keys: DocumentKeys, blob: BlobName, stored: Buffer, where: string): Buffer {
  if (blob.keyed && !keys.isSealed(stored)) {
    throw new DocumentUndecryptable(`document ${blob.ref} is not sealed, as every keyed-name document is`);
  }
  const data = keys.unseal(stored, blob.ref);
  if (!blob.keyed && sha1Of(data) !== blob.name) {
    throw new DocumentCorrupted(`document ${blob.ref} in ${where} does not match its SHA-1`);
  }
  return data;
}

/** `data` when it has the reference's length and SHA-1; DocumentCorrupted otherwise. */
export function checkDocument(ref: DocumentRef, data: Buffer, where: string): Buffer {
  if (data.byteLength !== ref.length) {
    throw new DocumentCorrupted(`document ${ref.ref} in ${where} does not match its length`);
  }
  if (sha1Of(data) !== ref.sha1) {
    throw new DocumentCorrupted(`document ${ref.ref} in ${where} does not match its SHA-1`);
  }
  return data;
}

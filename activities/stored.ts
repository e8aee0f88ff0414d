/**
 * What the activities read back from the document store to send: the history carries references,
 * the brokerage gets the bytes.
 */
import type { DocumentRef } from '../domain/documents.js';
import type { DocumentStore } from '../runtime/document-store.js';

/** A stored file under its name in the request's archive. */
export type NamedDocument = DocumentRef & { fileName: string };

export async function readText(store: DocumentStore, ref: DocumentRef): Promise<string> {
  return new TextDecoder().decode(await store.get(ref));
}

export function readAttachments(
  store: DocumentStore,
  documents: readonly NamedDocument[],
): Promise<Array<{ fileName: string; data: Uint8Array }>> {
  return Promise.all(
    documents.map(async (document) => ({ fileName: document.fileName, data: await store.get(document) })),
  );
}

/** The brokerage side of the OpenPGP envelope, and the request checks shared by the file operations. */
import { z } from 'zod';
import { EnvelopeRefusal, openFromFirm, sealForFirm } from '../crypto.js';
import { readArchive, type ReadArchive } from '../formats/archive.js';
import type { FirmRecord } from '../model.js';
import { csidField, firmOf, parseBody, type OperationContext } from './context.js';

export const envelopeInput = z.object({ CSID: csidField, payload: z.string().min(1) });

/** The text of a payload that cannot be decrypted or verified under the setting `encryption-text-unworded`. */
export const UNWORDED_PAYLOAD_TEXT = 'Request could not be processed (code 4012)';

/** Why a payload could not be used; the text carries no payload content. */
export class PayloadProblem extends Error {}

export async function openPayload(ctx: OperationContext, firm: FirmRecord, payload: string): Promise<Uint8Array> {
  try {
    const firmPublicKey = await ctx.firmKeys.get(firm.publicKey);
    return await openFromFirm(payload, { brokeragePrivateKey: ctx.keys.brokeragePrivate, firmPublicKey });
  } catch (error) {
    // The spec shows no fixed texts: under `encryption-text-unworded` the text names no encryption, key or signature.
    if (ctx.store.unpromised.has('encryption-text-unworded')) {
      throw new PayloadProblem(UNWORDED_PAYLOAD_TEXT);
    }
    const detail = error instanceof EnvelopeRefusal ? error.message : 'unreadable payload';
    throw new PayloadProblem(
      `Encryption error: the payload cannot be decrypted or verified with the keys agreed (${detail})`,
    );
  }
}

export async function sealFor(ctx: OperationContext, firm: FirmRecord, content: string | Uint8Array): Promise<string> {
  const firmPublicKey = await ctx.firmKeys.get(firm.publicKey);
  const data = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return sealForFirm(data, { firmPublicKey, brokeragePrivateKey: ctx.keys.brokeragePrivate });
}

export function readPayloadArchive(data: Uint8Array): ReadArchive & { xml: { fileName: string; content: string } } {
  let archive: ReadArchive;
  try {
    archive = readArchive(data);
  } catch {
    throw new PayloadProblem('The payload is not a readable ZIP archive');
  }
  if (!archive.xml) {
    throw new PayloadProblem(
      archive.xmlFileNames.length === 0
        ? 'The archive holds no .xml file'
        : 'The archive holds more than one .xml file',
    );
  }
  return archive as ReadArchive & { xml: { fileName: string; content: string } };
}

/** Parses the envelope and resolves the firm (unknown CSIDs are refused before any decryption). */
export function envelope(ctx: OperationContext, body: unknown): { firm: FirmRecord; payload: string } {
  const input = parseBody(envelopeInput, body);
  return { firm: firmOf(ctx, input.CSID), payload: input.payload };
}

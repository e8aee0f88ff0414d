/**
 * The temporary passwords the brokerage issues at creation (in the create's response file): kept in
 * the document store, encrypted, never in history or logs, and handed out once to staff, then deleted.
 */
import { DocumentNotFound } from '../runtime/document-store.js';
import { within } from './abort.js';
import type { EngineContext } from './context.js';
import { getState } from './applications.js';
import { EngineError } from './errors.js';

export interface TemporaryCredential {
  userName: string;
  /** Absent when the response named the user without a password. */
  temporaryPassword?: string;
}

export interface TakenCredentials {
  externalId: string;
  accountId?: string;
  users: TemporaryCredential[];
  /** The response file as sent, when this library could not read its users (its format is not in the spec). */
  responseXml?: string;
}

/** No credentials to hand out: none were recorded, or they were handed out already. */
export class CredentialsUnavailableError extends EngineError {
  override readonly name = 'CredentialsUnavailableError';
  constructor(application: string, why: string) {
    super('NO_CREDENTIALS', `${application}: ${why}`);
  }
}

/**
 * Hands out the application's temporary credentials and removes them from the store in the same step
 * (the store's `take`): of two calls at the same time exactly one gets them, the other is refused
 * with NO_CREDENTIALS, as every later call is.
 */
export async function takeCredentials(ctx: EngineContext, reference: string): Promise<TakenCredentials> {
  return within(ctx, async () => {
    const state = await getState(ctx, reference);
    if (!state.credentials) {
      throw new CredentialsUnavailableError(
        reference,
        'no temporary credentials were recorded (no account yet, or it was found again after a lost create answer)',
      );
    }
    let bytes: Uint8Array;
    // Taken, the credentials are gone from the store: never taken for a caller that has given up.
    ctx.signal?.throwIfAborted();
    try {
      bytes = await ctx.store.take(state.credentials);
    } catch (error) {
      if (!(error instanceof DocumentNotFound)) throw error;
      throw new CredentialsUnavailableError(
        reference,
        "already handed out, or deleted with the application's documents after its retention",
      );
    }
    const kept = JSON.parse(new TextDecoder().decode(bytes)) as {
      users?: Array<{ userName: string; temporaryPassword?: string }>;
      responseXml?: string;
    };
    return {
      externalId: state.externalId,
      ...(state.accountId !== undefined && { accountId: state.accountId }),
      users: (kept.users ?? []).map((user) => ({
        userName: user.userName,
        ...(user.temporaryPassword !== undefined && { temporaryPassword: user.temporaryPassword }),
      })),
      ...(kept.responseXml !== undefined && { responseXml: kept.responseXml }),
    };
  });
}

/**
 * The onboarding API in this process on a loopback port, on the caller's database, with one key per role
 * asked for: what the demo's onboarding system and the bench use.
 */
import type { EngineBase } from '../api/applications.js';
import type { KeyVerifier } from '../api/auth.js';
import { databaseKeyVerifier, DEFAULT_KEY_CACHE_MS } from '../api/keys.js';
import { buildApi } from '../api/server.js';
import { createApiKey } from '../runtime/api-keys.js';
import type { ApiRole } from '../runtime/api-keys.js';
import type { CodecKeyring } from '../codec/keyring.js';
import type { Database } from '../runtime/database/index.js';

export interface LocalApi {
  url: string;
  /** A key of the firm per role asked for. */
  keys: Partial<Record<ApiRole, string>>;
  close: () => Promise<void>;
}

export async function startLocalApi(
  engine: EngineBase,
  options: {
    csid: string;
    roles: readonly ApiRole[];
    rateLimitPerMinute: number;
    /** Wraps the database's key check (the bench times it). */
    verifyKey?: (verify: KeyVerifier) => KeyVerifier;
    /** The engine's database (its event log: the workers write to it), where the keys are made. */
    database: Database;
    /** The workers' codec keys, which seal the webhook secrets (stored in the clear without). */
    keyring?: CodecKeyring;
  },
): Promise<LocalApi> {
  const db = options.database;
  const keys: LocalApi['keys'] = {};
  for (const role of options.roles) {
    keys[role] = (await createApiKey(db, { csid: options.csid, role, name: `local ${role}` })).key;
  }
  const verify = databaseKeyVerifier(db, { cacheMs: DEFAULT_KEY_CACHE_MS });
  const app = await buildApi({
    engine,
    verifyKey: options.verifyKey ? options.verifyKey(verify) : verify,
    rateLimitPerMinute: options.rateLimitPerMinute,
    database: db,
    keyring: options.keyring,
  });
  try {
    return { url: await app.listen({ host: '127.0.0.1', port: 0 }), keys, close: () => app.close() };
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
}

/** API keys checked against the engine's database (runtime/api-keys.ts): the principal of a request. */
import { verifyApiKey } from '../runtime/api-keys.js';
import type { Database } from '../runtime/database/index.js';
import type { KeyVerifier } from './auth.js';

export function databaseKeyVerifier(db: Database): KeyVerifier {
  return async (presented) => {
    const record = await verifyApiKey(db, presented);
    return record && { keyId: record.id, csid: record.csid, role: record.role };
  };
}

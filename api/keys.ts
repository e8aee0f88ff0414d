/**
 * API keys checked against the engine's database (runtime/api-keys.ts): the principal of a request.
 * A key found valid is trusted for `cacheMs` before the database is asked again, so the check costs a
 * query per key every few seconds instead of one per request; a revocation therefore takes effect on
 * every replica within `cacheMs`. Unknown and revoked keys are never cached: a new key works at once.
 */
import { createHash } from 'node:crypto';
import { verifyApiKey } from '../runtime/api-keys.js';
import type { Database } from '../runtime/database/index.js';
import type { KeyVerifier, Principal } from './auth.js';

/** How long a valid key is trusted without asking the database again (ECA_API_KEY_CACHE_MS). */
export const DEFAULT_KEY_CACHE_MS = 5_000;
/** Keys remembered at most; the oldest goes first. */
const MAX_CACHED_KEYS = 10_000;

export function databaseKeyVerifier(db: Database, { cacheMs = 0 }: { cacheMs?: number } = {}): KeyVerifier {
  // By the key's hash: the map holds no secret.
  const trusted = new Map<string, { principal: Principal; until: number }>();
  return async (presented) => {
    const digest = cacheMs > 0 ? createHash('sha256').update(presented).digest('base64') : '';
    const cached = trusted.get(digest);
    if (cached && cached.until > Date.now()) return cached.principal;
    trusted.delete(digest);
    const record = await verifyApiKey(db, presented);
    if (!record) return undefined;
    const principal: Principal = { keyId: record.id, csid: record.csid, role: record.role };
    if (cacheMs > 0) {
      if (trusted.size >= MAX_CACHED_KEYS) trusted.delete(trusted.keys().next().value!);
      trusted.set(digest, { principal, until: Date.now() + cacheMs });
    }
    return principal;
  };
}

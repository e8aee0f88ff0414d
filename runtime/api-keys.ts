/**
 * API keys of the onboarding API: each bound to one firm (CSID) and one role, shown once when created
 * (`eca_<id>_<secret>`), stored as the SHA-256 of its secret only. The secret is 32 random bytes, so a
 * fast hash is enough: there is nothing to guess that a slow one would protect.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Queryable } from './database/index.js';

/**
 * `onboarding`: the onboarding system; `staff`: people at the firm who act on applications; `ops`: read only;
 * `admin`: the deployment's operator, who manages firms and API keys and sees no application data. An
 * admin key belongs to no firm: its CSID is `*`, which no firm's can be.
 */
export type ApiRole = 'onboarding' | 'staff' | 'ops' | 'admin';
export const API_ROLES: readonly ApiRole[] = ['onboarding', 'staff', 'ops', 'admin'];
/** The CSID of an admin key: outside every firm's. */
export const NO_FIRM = '*';
/** A firm's CSID: 1 to 64 letters, digits, '.', '_' or '-' (the same rule for keys and firms). */
export const CSID_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;

export interface ApiKeyRecord {
  id: string;
  csid: string;
  role: ApiRole;
  name: string;
  createdAt: Date;
  revokedAt?: Date;
  lastUsedAt?: Date;
}

/** An input that cannot make or name a key; `field` is the input's name (`csid`, `role`, `name`). */
export class ApiKeyInputError extends Error {
  override readonly name = 'ApiKeyInputError';
  constructor(
    readonly field: 'csid' | 'role' | 'name',
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_LENGTH = 12;
/** `eca_`, 12 base32 characters of id, `_`, 43 base64url characters of secret (which may hold `_`). */
const KEY_PATTERN = /^eca_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;
/** last_used_at is written at most this often per key: a request should not cost a write. */
const LAST_USED_RESOLUTION_MS = 60_000;
/** Compared against when no key matches, so that an unknown key costs what a known one does. */
const NO_HASH = Buffer.alloc(32);

interface ApiKeyRow {
  id: string;
  csid: string;
  role: ApiRole;
  name: string;
  created_at: Date;
  revoked_at: Date | null;
  last_used_at: Date | null;
}

/** Every column but the hash: no query that feeds a record reads it. */
const RECORD_COLUMNS = 'id, csid, role, name, created_at, revoked_at, last_used_at';

function sha256(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const record: ApiKeyRecord = {
    id: row.id,
    csid: row.csid,
    role: row.role,
    name: row.name,
    createdAt: row.created_at,
  };
  if (row.revoked_at) record.revokedAt = row.revoked_at;
  if (row.last_used_at) record.lastUsedAt = row.last_used_at;
  return record;
}

export interface ApiKeyInput {
  csid: string;
  role: ApiRole;
  name: string;
}

/** `input` trimmed and checked; an ApiKeyInputError names the first field that is wrong. */
export function checkApiKeyInput(input: { csid?: string; role: string; name: string }): ApiKeyInput {
  const name = input.name.trim();
  if (!API_ROLES.includes(input.role as ApiRole)) {
    throw new ApiKeyInputError('role', `"${input.role}" is not one of ${API_ROLES.join(', ')}`);
  }
  const admin = input.role === 'admin';
  const csid = (input.csid ?? (admin ? NO_FIRM : '')).trim();
  if (admin && csid !== NO_FIRM) {
    throw new ApiKeyInputError('csid', 'an admin key belongs to no firm: give no CSID (or *)');
  }
  if (!admin && !CSID_PATTERN.test(csid)) {
    throw new ApiKeyInputError('csid', `"${csid}" is not a CSID (1 to 64 letters, digits, '.', '_' or '-')`);
  }
  // eslint-disable-next-line no-control-regex -- names are printed in tables: no control characters
  if (name.length === 0 || name.length > 200 || /[\u0000-\u001f\u007f-\u009f]/.test(name)) {
    throw new ApiKeyInputError('name', 'give a name of 1 to 200 printable characters (who or what uses the key)');
  }
  return { csid, role: input.role as ApiRole, name };
}

/** A new key for `csid` and `role`: `key` is its only copy, to hand to its user now. */
export async function createApiKey(
  db: Queryable,
  input: { csid?: string; role: string; name: string },
): Promise<{ key: string; record: ApiKeyRecord }> {
  const { csid, role, name } = checkApiKeyInput(input);
  const id = [...randomBytes(ID_LENGTH)].map((byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('');
  const secret = randomBytes(32).toString('base64url');
  const [row] = await db.query<ApiKeyRow>(
    `INSERT INTO api_keys (id, csid, role, name, secret_sha256) VALUES ($1, $2, $3, $4, $5) RETURNING ${RECORD_COLUMNS}`,
    [id, csid, role, name, sha256(secret)],
  );
  return { key: `eca_${id}_${secret}`, record: toRecord(row!) };
}

/**
 * The key `presented` is, when it is one and not revoked; undefined for anything else (malformed,
 * unknown, wrong secret, revoked), after the same work: a lookup and a constant-time comparison.
 */
export async function verifyApiKey(db: Queryable, presented: string): Promise<ApiKeyRecord | undefined> {
  const match = KEY_PATTERN.exec(presented);
  const hash = sha256(match?.[2] ?? presented);
  const [row] = await db.query<ApiKeyRow & { secret_sha256: Uint8Array }>(
    `SELECT ${RECORD_COLUMNS}, secret_sha256 FROM api_keys WHERE id = $1`,
    [match?.[1] ?? ''],
  );
  const stored = row ? Buffer.from(row.secret_sha256) : NO_HASH;
  const equal = stored.length === hash.length && timingSafeEqual(stored, hash);
  if (!match || !row || !equal || row.revoked_at) return undefined;
  const record = toRecord(row);
  if (!record.lastUsedAt || Date.now() - record.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
    // The condition keeps concurrent requests from writing more than once a minute between them.
    const [used] = await db.query<{ last_used_at: Date }>(
      `UPDATE api_keys SET last_used_at = now()
        WHERE id = $1 AND (last_used_at IS NULL OR last_used_at <= now() - interval '1 minute')
        RETURNING last_used_at`,
      [row.id],
    );
    if (used) record.lastUsedAt = used.last_used_at;
  }
  return record;
}

/** The keys, of one firm or of all, oldest first: records only, never a secret or its hash. */
export async function listApiKeys(db: Queryable, { csid }: { csid?: string } = {}): Promise<ApiKeyRecord[]> {
  const rows = await db.query<ApiKeyRow>(
    `SELECT ${RECORD_COLUMNS} FROM api_keys WHERE $1::text IS NULL OR csid = $1 ORDER BY created_at, id`,
    [csid ?? null],
  );
  return rows.map(toRecord);
}

/** Revokes key `id` (a revoked key stays revoked, from the first time); false when there is no such key. */
export async function revokeApiKey(db: Queryable, id: string): Promise<boolean> {
  const rows = await db.query(
    'UPDATE api_keys SET revoked_at = coalesce(revoked_at, now()) WHERE id = $1 RETURNING id',
    [id],
  );
  return rows.length > 0;
}

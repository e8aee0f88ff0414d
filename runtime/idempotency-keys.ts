/**
 * The API's idempotency keys (table `idempotency_keys`, api/idempotency.ts): who sent a key first, with
 * which request, and the answer it got. A key is claimed in one statement, so of two requests that race
 * with it one runs and the other finds it in flight; the answer is kept once given, or the claim released
 * when there is none to keep (a 5xx), so that the key may be sent again.
 */
import { randomUUID } from 'node:crypto';
import type { Queryable } from './database/index.js';
import { SealedBox } from './sealing.js';
import type { CodecKeyring } from '../codec/keyring.js';

const LABEL = 'eca-idempotency-answers-v1';
const MAGIC = 'ECA-IDK1';

/** How long a key holds its answer from its first request (Stripe's 24 hours). */
export const IDEMPOTENCY_KEY_TTL_MS = 24 * 60 * 60 * 1000;
/** A claim not answered within this is taken as lost (its process ended): the key may be claimed again. */
export const IDEMPOTENCY_CLAIM_STALE_MS = 5 * 60 * 1000;

/** An answer as it is kept: the body NULL where it held a secret (`withheld`). */
export interface KeptAnswer {
  status: number;
  headers: Record<string, string>;
  body: string | null;
}

export type Claim =
  /** `token` is the claim's own: only its request may answer or release it (a stale claim taken over is not). */
  | { kind: 'claimed'; token: string }
  | { kind: 'in-flight'; fingerprint: string }
  | { kind: 'answered'; fingerprint: string; answer: KeptAnswer; createdAt: Date };

interface Row {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: Uint8Array | null;
  created_at: Date;
}

/** How often a process deletes the keys past their 24 hours (each expired key is also taken over on its own). */
const SWEEP_EVERY_MS = 10 * 60 * 1000;

export class IdempotencyKeys {
  private nextSweep = 0;
  private readonly box: SealedBox;

  /**
   * With `keyring` (the codec keys), the answers' bodies are kept sealed: an application's view holds personal
   * data. Without, they are kept in the clear, as the webhook secrets are.
   */
  constructor(
    private readonly db: Queryable,
    options: { keyring?: CodecKeyring; ttlMs?: number; staleMs?: number } = {},
  ) {
    this.box = new SealedBox(options.keyring, LABEL, MAGIC);
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_KEY_TTL_MS;
    this.staleMs = options.staleMs ?? IDEMPOTENCY_CLAIM_STALE_MS;
  }

  private readonly ttlMs: number;
  private readonly staleMs: number;

  /**
   * Claims `key` of `scope` for a request (`fingerprint`), or says who has it: a request still in flight, or
   * the answer kept. A key past its time, or claimed by a request that never answered, is claimed anew.
   */
  async claim(scope: string, key: string, fingerprint: string): Promise<Claim> {
    await this.sweep();
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = randomUUID();
      const claimed = await this.db.query(
        `INSERT INTO idempotency_keys (scope, key, fingerprint, token) VALUES ($1, $2, $3, $6)
         ON CONFLICT (scope, key) DO UPDATE
           SET fingerprint = EXCLUDED.fingerprint, token = EXCLUDED.token, status = NULL, headers = NULL,
               body = NULL, created_at = now(), claimed_at = now()
           WHERE idempotency_keys.created_at < now() - $4::double precision * interval '1 millisecond'
              OR (idempotency_keys.status IS NULL
                  AND idempotency_keys.claimed_at < now() - $5::double precision * interval '1 millisecond')
         RETURNING 1 AS claimed`,
        [scope, key, fingerprint, this.ttlMs, this.staleMs, token],
      );
      if (claimed.length > 0) return { kind: 'claimed', token };
      const [row] = await this.db.query<Row>(
        'SELECT fingerprint, status, headers, body, created_at FROM idempotency_keys WHERE scope = $1 AND key = $2',
        [scope, key],
      );
      // Released between the two statements: claimed again.
      if (!row) continue;
      if (row.status === null) return { kind: 'in-flight', fingerprint: row.fingerprint };
      const answer = { status: row.status, headers: row.headers ?? {}, body: this.opened(scope, key, row.body) };
      return { kind: 'answered', fingerprint: row.fingerprint, answer, createdAt: row.created_at };
    }
    return { kind: 'in-flight', fingerprint };
  }

  /** Keeps the answer of a claimed key. */
  async answer(scope: string, key: string, token: string, answer: KeptAnswer): Promise<void> {
    const plain = answer.body === null ? null : Buffer.from(answer.body);
    const body = plain && (this.box.seal(plain, `${scope}:${key}`) ?? plain);
    await this.db.query(
      `UPDATE idempotency_keys SET status = $3, headers = $4::jsonb, body = $5
       WHERE scope = $1 AND key = $2 AND token = $6 AND status IS NULL`,
      [scope, key, answer.status, JSON.stringify(answer.headers), body, token],
    );
  }

  /** A kept body as text; null when it cannot be opened (its codec key is gone): a replay then withholds it. */
  private opened(scope: string, key: string, body: Uint8Array | null): string | null {
    if (body === null) return null;
    if (!this.box.isSealed(body)) return Buffer.from(body).toString('utf8');
    const plain = this.box.open(body, `${scope}:${key}`);
    return Buffer.isBuffer(plain) ? plain.toString('utf8') : null;
  }

  /** Lets a claimed key go unanswered: the next request with it runs. */
  async release(scope: string, key: string, token: string): Promise<void> {
    await this.db.query(
      'DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND token = $3 AND status IS NULL',
      [scope, key, token],
    );
  }

  /** Deletes the keys past their time, at most once every ten minutes per process. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    if (now < this.nextSweep) return;
    this.nextSweep = now + SWEEP_EVERY_MS;
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE created_at < now() - $1::double precision * interval '1 millisecond'`,
      [this.ttlMs],
    );
  }
}

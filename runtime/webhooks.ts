/**
 * The firms' webhook endpoints: where the engine delivers each of a firm's lifecycle events
 * (runtime/events.ts), signed the Standard Webhooks way, and how far each endpoint got.
 *
 * An endpoint's cursor is the log position of the last event it acknowledged: delivery sends the events
 * after it, in the log's order, and moves it forward only with compare-and-set, so that a replay (which
 * moves it back) during a delivery is never overwritten. Its backlog is the count of the firm's events
 * after the cursor. A paused endpoint keeps its cursor: nothing is dropped, resuming sends the backlog.
 * Secrets are sealed at rest (runtime/webhook-secrets.ts); a new one is shown once, when made.
 */
import { randomBytes } from 'node:crypto';
import type { CodecKeyring } from '../codec/keyring.js';
import type { Queryable } from './database/index.js';
import { EventLog, formatCursor } from './events.js';
import type { EventCursor } from './events.js';
import {
  checkCsid,
  checkCursor,
  checkDescription,
  checkKeepPrevious,
  checkWebhookUrl,
  redactedError,
  WebhookCursorAheadError,
  WebhookNotFoundError,
} from './webhook-input.js';
import { liveSecrets, newWebhookSecret, rotated, WebhookSecretBox } from './webhook-secrets.js';
import type { WebhookSecret } from './webhook-secrets.js';

export type WebhookState = 'active' | 'paused' | 'deleted';

/** An endpoint as every caller sees it: never a secret. */
export interface WebhookEndpointRecord {
  id: string;
  csid: string;
  url: string;
  description: string;
  state: WebhookState;
  /** After the last event it acknowledged. */
  cursor: EventCursor;
  /** The firm's events after the cursor: what it has yet to receive. */
  backlog: number;
  /** Events acknowledged (2xx), replays included. */
  delivered: number;
  /** Failed attempts since the last success. */
  failures: number;
  lastError?: string;
  lastErrorAt?: Date;
  lastDeliveredAt?: Date;
  createdAt: Date;
}

/** What delivery needs: the endpoint and the secrets that sign now (newest first). */
export interface WebhookTarget {
  endpoint: WebhookEndpointRecord;
  secrets: string[];
}

export interface RegisterWebhookInput {
  csid: string;
  url: string;
  description?: string;
  /** Deliver the events after this cursor; by default after the firm's last event (only new ones). */
  start?: EventCursor | string;
}

/** How long a rotated-out secret keeps signing unless told otherwise. */
export const DEFAULT_KEEP_PREVIOUS_MS = 24 * 60 * 60 * 1000;

const ID_ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';
const ID_PATTERN = /^wh_[a-z2-7]{16}$/;
/** A rotation that meets a concurrent one reads again, this many times. */
const ROTATION_TRIES = 5;

interface EndpointRow {
  id: string;
  csid: string;
  url: string;
  description: string;
  state: WebhookState;
  cursor_tx: string;
  cursor_position: string;
  backlog: string;
  delivered: number;
  failures: number;
  last_error: string | null;
  last_error_at: Date | null;
  last_delivered_at: Date | null;
  created_at: Date;
}

/** Every column a record needs, and the backlog: the table is `w`. */
const RECORD_COLUMNS = `w.id, w.csid, w.url, w.description, w.state, w.cursor_tx::text AS cursor_tx,
  w.cursor_position, w.delivered, w.failures, w.last_error, w.last_error_at, w.last_delivered_at, w.created_at,
  (SELECT count(*) FROM events e WHERE e.csid = w.csid
     AND (e.tx, e.position) > (w.cursor_tx, w.cursor_position)) AS backlog`;

function toRecord(row: EndpointRow): WebhookEndpointRecord {
  const record: WebhookEndpointRecord = {
    id: row.id,
    csid: row.csid,
    url: row.url,
    description: row.description,
    state: row.state,
    cursor: { tx: row.cursor_tx, position: String(row.cursor_position) },
    backlog: Number(row.backlog),
    delivered: row.delivered,
    failures: row.failures,
    createdAt: row.created_at,
  };
  if (row.last_error !== null) record.lastError = row.last_error;
  if (row.last_error_at) record.lastErrorAt = row.last_error_at;
  if (row.last_delivered_at) record.lastDeliveredAt = row.last_delivered_at;
  return record;
}

function newId(): string {
  return `wh_${[...randomBytes(16)].map((byte) => ID_ALPHABET[byte % ID_ALPHABET.length]).join('')}`;
}

/** Whether cursor `a` lies after cursor `b` in the log's order. */
export function cursorAfter(a: EventCursor, b: EventCursor): boolean {
  const [at, bt] = [BigInt(a.tx), BigInt(b.tx)];
  return at !== bt ? at > bt : BigInt(a.position) > BigInt(b.position);
}

export class WebhookEndpoints {
  private readonly box: WebhookSecretBox;

  /** `keyring`: the payload codec's keys, to seal the secrets with; without it they are stored in the clear. */
  constructor(
    private readonly db: Queryable,
    keyring?: CodecKeyring,
  ) {
    this.box = new WebhookSecretBox(keyring);
  }

  /** A new endpoint of the firm and its first secret: `secret` is its only copy, to hand to the firm now. */
  async register(input: RegisterWebhookInput): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
    const csid = checkCsid(input.csid);
    const url = checkWebhookUrl(input.url);
    const description = checkDescription(input.description);
    const start = input.start === undefined ? await new EventLog(this.db).end(csid) : checkCursor(input.start);
    const id = newId();
    const secret = newWebhookSecret();
    const secrets = this.box.seal([{ secret, createdAt: Date.now() }], id);
    await this.db.query(
      `INSERT INTO webhook_endpoints (id, csid, url, description, secrets, state, cursor_tx, cursor_position)
       VALUES ($1, $2, $3, $4, $5, 'active', $6::xid8, $7::bigint)`,
      [id, csid, url, description, secrets, start.tx, start.position],
    );
    return { endpoint: (await this.get(csid, id))!, secret };
  }

  /** The firm's endpoints, oldest first, with their backlog; deleted ones only when asked. */
  async list(csid: string, options: { includeDeleted?: boolean } = {}): Promise<WebhookEndpointRecord[]> {
    const rows = await this.db.query<EndpointRow>(
      `SELECT ${RECORD_COLUMNS} FROM webhook_endpoints w
       WHERE w.csid = $1 AND ($2 OR w.state <> 'deleted') ORDER BY w.created_at, w.id`,
      [csid, options.includeDeleted ?? false],
    );
    return rows.map(toRecord);
  }

  /** The firm's endpoint `id` (deleted ones too), or undefined. */
  async get(csid: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    if (!ID_PATTERN.test(id)) return undefined;
    const [row] = await this.db.query<EndpointRow>(
      `SELECT ${RECORD_COLUMNS} FROM webhook_endpoints w WHERE w.id = $1 AND w.csid = $2`,
      [id, csid],
    );
    return row && toRecord(row);
  }

  /**
   * A new secret for the endpoint (its only copy): it signs from now on, and the previous ones keep
   * signing for `keepPreviousForMs` (default 24 hours; 0 drops them now), so the receiver can switch.
   */
  async rotateSecret(
    csid: string,
    id: string,
    keepPreviousForMs = DEFAULT_KEEP_PREVIOUS_MS,
  ): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
    const keep = checkKeepPrevious(keepPreviousForMs);
    const secret = newWebhookSecret();
    for (let attempt = 0; attempt < ROTATION_TRIES; attempt++) {
      const [row] = await this.db.query<{ secrets: Uint8Array; state: WebhookState }>(
        `SELECT secrets, state FROM webhook_endpoints WHERE id = $1 AND csid = $2`,
        [id, csid],
      );
      if (!row || row.state === 'deleted') throw new WebhookNotFoundError(csid, id, row !== undefined);
      const next = this.box.seal(rotated(this.box.open(row.secrets, id), secret, keep), id);
      // Compare-and-set on the sealed bytes: a concurrent rotation makes this one read again.
      const updated = await this.db.query(
        `UPDATE webhook_endpoints SET secrets = $3 WHERE id = $1 AND csid = $2 AND secrets = $4 RETURNING id`,
        [id, csid, next, row.secrets],
      );
      if (updated.length === 1) return { endpoint: (await this.get(csid, id))!, secret };
    }
    throw new Error(`webhook endpoint ${id}: the secret kept changing during the rotation; try again`);
  }

  /** Stops delivery to the endpoint (it keeps its cursor: the backlog grows, nothing is dropped). */
  async pause(csid: string, id: string): Promise<WebhookEndpointRecord> {
    return this.transition(csid, id, `state = 'paused'`);
  }

  /** Delivers again, from the cursor on, with the failure count reset. */
  async resume(csid: string, id: string): Promise<WebhookEndpointRecord> {
    return this.transition(csid, id, `state = 'active', failures = 0`);
  }

  /**
   * Moves the endpoint's cursor back to `cursor`: the events after it are sent again (same
   * `webhook-id`). A cursor ahead of the endpoint's would skip events and is refused.
   */
  async replay(csid: string, id: string, cursor: EventCursor | string): Promise<WebhookEndpointRecord> {
    const to = checkCursor(cursor);
    for (;;) {
      const current = await this.get(csid, id);
      if (!current || current.state === 'deleted') throw new WebhookNotFoundError(csid, id, current !== undefined);
      if (cursorAfter(to, current.cursor)) {
        throw new WebhookCursorAheadError(
          'cursor',
          `${formatCursor(to)} lies after the endpoint's cursor ${formatCursor(current.cursor)}: a replay only goes back`,
        );
      }
      // Compare-and-set from the cursor read above: a delivery that moved it meanwhile makes this read again.
      const rows = await this.db.query(
        `UPDATE webhook_endpoints SET cursor_tx = $3::xid8, cursor_position = $4::bigint
          WHERE id = $1 AND csid = $2 AND state <> 'deleted' AND cursor_tx = $5::xid8 AND cursor_position = $6::bigint
          RETURNING id`,
        [id, csid, to.tx, to.position, current.cursor.tx, current.cursor.position],
      );
      if (rows.length === 1) return (await this.get(csid, id))!;
    }
  }

  /** Deletes the endpoint: its delivery ends, its secrets are wiped; the row stays for the record. */
  async delete(csid: string, id: string): Promise<WebhookEndpointRecord> {
    return this.transition(csid, id, `state = 'deleted', secrets = ''::bytea`);
  }

  /** Delivery's view of endpoint `id` (any firm): undefined when there is none. */
  async target(id: string): Promise<WebhookTarget | undefined> {
    const [row] = await this.db.query<EndpointRow & { secrets: Uint8Array }>(
      `SELECT ${RECORD_COLUMNS}, w.secrets FROM webhook_endpoints w WHERE w.id = $1`,
      [id],
    );
    if (!row) return undefined;
    const secrets = row.state === 'deleted' ? [] : this.box.open(row.secrets, id);
    return { endpoint: toRecord(row), secrets: liveSecrets(secrets).map((entry: WebhookSecret) => entry.secret) };
  }

  /** Endpoint `id`'s state (any firm), without opening its secrets; undefined when there is none. */
  async stateOf(id: string): Promise<WebhookState | undefined> {
    const [row] = await this.db.query<{ state: WebhookState }>(`SELECT state FROM webhook_endpoints WHERE id = $1`, [
      id,
    ]);
    return row?.state;
  }

  /**
   * Records that the endpoint acknowledged the event at `to`, moving its cursor there, only if it still
   * stands at `from`. Answers the endpoint's state after the move (a pause meanwhile: `paused`), or
   * undefined when nothing was written: a replay or another delivery moved the cursor, or it was deleted.
   */
  async advance(id: string, from: EventCursor, to: EventCursor): Promise<WebhookState | undefined> {
    const [row] = await this.db.query<{ state: WebhookState }>(
      `UPDATE webhook_endpoints
          SET cursor_tx = $4::xid8, cursor_position = $5::bigint, delivered = delivered + 1, failures = 0,
              last_delivered_at = now()
        WHERE id = $1 AND cursor_tx = $2::xid8 AND cursor_position = $3::bigint AND state <> 'deleted'
        RETURNING state`,
      [id, from.tx, from.position, to.tx, to.position],
    );
    return row?.state;
  }

  /** Records a failed attempt: one more failure, its error (secrets masked) and time. */
  async recordFailure(id: string, error: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_endpoints SET failures = failures + 1, last_error = $2, last_error_at = now() WHERE id = $1`,
      [id, redactedError(error)],
    );
  }

  /**
   * Pauses an endpoint whose delivery gave up, with the error that ended it. False when it is not
   * active or not failing: resumed meanwhile (a resume resets the failures), that resume stands.
   */
  async pauseAfterFailures(id: string, error: string): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE webhook_endpoints SET state = 'paused', last_error = $2, last_error_at = now()
        WHERE id = $1 AND state = 'active' AND failures > 0 RETURNING id`,
      [id, redactedError(error)],
    );
    return rows.length === 1;
  }

  /** Applies `set` to the firm's endpoint unless deleted; a WebhookNotFoundError otherwise. */
  private async transition(csid: string, id: string, set: string): Promise<WebhookEndpointRecord> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE webhook_endpoints SET ${set} WHERE id = $1 AND csid = $2 AND state <> 'deleted' RETURNING id`,
      [id, csid],
    );
    const record = await this.get(csid, id);
    if (rows.length === 0 || !record) throw new WebhookNotFoundError(csid, id, record?.state === 'deleted');
    return record;
  }
}

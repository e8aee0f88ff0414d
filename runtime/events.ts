/**
 * The event log: lifecycle events (domain/events.ts) in the engine's database, in one order per firm
 * that every reader sees the same way, so that a cursor (the SSE `Last-Event-ID`, a webhook endpoint's
 * progress) resumes exactly where it stopped.
 *
 * Rows are ordered by (transaction id, position). A reader sees only rows of transactions older than
 * the oldest one still open (`pg_snapshot_xmin`): a transaction that commits late, behind a reader that
 * already went past later positions, can never be skipped. The oldest open transaction is the server's,
 * not this table's: on a PostgreSQL shared with other work (Temporal's databases in compose), a
 * transaction left open anywhere delays every reader until it ends. Nothing is skipped meanwhile.
 */
import { createHash } from 'node:crypto';
import type { Queryable } from './database/index.js';
import type { LifecycleEventRecord, NewEvent } from '../domain/events.js';

export type { NewEvent };

/** Where a reader stands in the log: after the event at (tx, position). `0-0` is before the first. */
export interface EventCursor {
  tx: string;
  position: string;
}

export const LOG_START: EventCursor = { tx: '0', position: '0' };

const CURSOR = /^(\d{1,20})-(\d{1,20})$/;

/** A cursor's text: `<tx>-<position>` (the SSE event id). */
export function formatCursor(cursor: EventCursor): string {
  return `${cursor.tx}-${cursor.position}`;
}

/** The largest transaction id (`xid8`, unsigned 64-bit) and position (`bigint`) a cursor can name. */
const MAX_TX = 2n ** 64n - 1n;
const MAX_POSITION = 2n ** 63n - 1n;

/** Reads a cursor's text; undefined when it is not one (its numbers past what the log's columns hold included). */
export function parseCursor(text: string): EventCursor | undefined {
  const match = CURSOR.exec(text.trim());
  if (!match) return undefined;
  const tx = BigInt(match[1]!);
  const position = BigInt(match[2]!);
  if (tx > MAX_TX || position > MAX_POSITION) return undefined;
  return { tx: tx.toString(), position: position.toString() };
}

/** An event and its place in the log. */
export interface LoggedEvent {
  cursor: EventCursor;
  event: LifecycleEventRecord;
  recordedAt: Date;
}

/** The event's id: the same for the same application and sequence number, whoever writes it and how often. */
export function eventId(application: string, seq: number): string {
  return `evt_${createHash('sha256').update(`${application}\n${seq}`).digest('hex').slice(0, 32)}`;
}

export function toRecord(event: NewEvent): LifecycleEventRecord {
  return {
    id: eventId(event.application, event.seq),
    type: event.type,
    csid: event.csid,
    externalId: event.externalId,
    ...(event.accountId !== undefined && { accountId: event.accountId }),
    from: event.from,
    to: event.to,
    at: new Date(event.at).toISOString(),
    seq: event.seq,
    data: event.data,
  };
}

/** The event a record is, under its application's key (the inverse of toRecord). */
export function fromRecord(application: string, record: LifecycleEventRecord): NewEvent {
  return {
    application,
    type: record.type,
    csid: record.csid,
    externalId: record.externalId,
    ...(record.accountId !== undefined && { accountId: record.accountId }),
    from: record.from,
    to: record.to,
    at: Date.parse(record.at),
    seq: record.seq,
    data: record.data,
  };
}

interface EventRow {
  tx_text: string;
  position: string;
  body: LifecycleEventRecord;
  recorded_at: Date;
}

export interface ReadOptions {
  /** The firm whose events to read. */
  csid: string;
  after: EventCursor;
  /** One application's events only. */
  externalId?: string;
  /** At most this many (default 500). */
  limit?: number;
}

export const DEFAULT_READ_LIMIT = 500;

export class EventLog {
  constructor(private readonly db: Queryable) {}

  /**
   * Appends events in one statement: an event already in the log (same id) is left as it is, so a
   * step that writes again after a lost answer writes nothing twice. Answers how many were new.
   */
  async append(events: readonly NewEvent[]): Promise<number> {
    if (events.length === 0) return 0;
    const records = events.map(toRecord);
    const rows = await this.db.query<{ id: string }>(
      // One application's writes take turns (a transaction-scoped lock on its key, taken before the first
      // row): two writes of its events under way at once (one riding with a step, one alone) commit in
      // turn, so the later transaction id holds the later events and the log's order is theirs.
      `WITH turn AS MATERIALIZED (SELECT pg_advisory_xact_lock(hashtextextended($2, 0)) AS taken)
       INSERT INTO events (id, csid, external_id, seq, type, occurred_at, body)
       SELECT e.id, e.csid, e.external_id, e.seq, e.type, e.occurred_at, e.body
       FROM turn, json_to_recordset($1::json)
         AS e(id text, csid text, external_id text, seq integer, type text, occurred_at timestamptz, body json)
       ORDER BY e.seq
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [
        JSON.stringify(
          records.map((record) => ({
            id: record.id,
            csid: record.csid,
            external_id: record.externalId,
            seq: record.seq,
            type: record.type,
            occurred_at: record.at,
            body: record,
          })),
        ),
        events[0]!.application,
      ],
    );
    return rows.length;
  }

  /** The application's event numbered `seq`, as the log holds it. */
  async find(application: string, seq: number): Promise<NewEvent | undefined> {
    const [row] = await this.db.query<{ body: LifecycleEventRecord }>(`SELECT body FROM events WHERE id = $1`, [
      eventId(application, seq),
    ]);
    return row && fromRecord(application, row.body);
  }

  /** The firm's events after `after`, oldest first, only those no open transaction can still precede. */
  async read(options: ReadOptions): Promise<LoggedEvent[]> {
    const limit = options.limit ?? DEFAULT_READ_LIMIT;
    const params: unknown[] = [options.csid, options.after.tx, options.after.position, limit];
    const application = options.externalId === undefined ? '' : 'AND external_id = $5';
    if (options.externalId !== undefined) params.push(options.externalId);
    const rows = await this.db.query<EventRow>(
      // Ordered by the columns (events.tx is an xid8): `tx` alone would name the text it is selected as.
      `SELECT tx::text AS tx_text, position, body, recorded_at FROM events
       WHERE csid = $1 AND (tx, position) > ($2::xid8, $3::bigint) ${application}
         AND tx < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY events.tx, events.position
       LIMIT $4`,
      params,
    );
    return rows.map((row) => ({
      cursor: { tx: row.tx_text, position: String(row.position) },
      event: row.body,
      recordedAt: row.recorded_at,
    }));
  }

  /** The cursor after the firm's last visible event (a reader starting "now" starts here). */
  async end(csid: string): Promise<EventCursor> {
    const [row] = await this.db.query<{ tx_text: string; position: string }>(
      `SELECT tx::text AS tx_text, position FROM events
       WHERE csid = $1 AND tx < pg_snapshot_xmin(pg_current_snapshot())
       ORDER BY events.tx DESC, events.position DESC LIMIT 1`,
      [csid],
    );
    return row ? { tx: row.tx_text, position: String(row.position) } : LOG_START;
  }

  /** How many of the firm's events lie after `after` (a webhook endpoint's backlog). */
  async countAfter(csid: string, after: EventCursor): Promise<number> {
    const [row] = await this.db.query<{ count: string }>(
      `SELECT count(*) AS count FROM events WHERE csid = $1 AND (tx, position) > ($2::xid8, $3::bigint)`,
      [csid, after.tx, after.position],
    );
    return Number(row?.count ?? 0);
  }
}

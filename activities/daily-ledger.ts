/**
 * Where the days' records of the daily document submission are kept (forms.ts): beside the document
 * store, so that every worker reads what another recorded. In the store's directory for the filesystem
 * store (`<root>/daily`); in the database (table `daily_documents`) for the database store, whose hosts
 * share no disk.
 */
import { join } from 'node:path';
import type { Queryable } from '../runtime/database/index.js';
import { FileDocumentStore } from '../runtime/document-store.js';
import type { MaintainedDocumentStore } from '../runtime/document-store.js';
import { PostgresDocumentStore } from '../runtime/document-store-postgres.js';
import { FileDailyDocumentsLedger } from './forms.js';
import type { DailyDocumentsLedger, DailyDocumentsRecord } from './forms.js';

/** The days' records in the engine's database: one row per firm and day, written again when a day is recorded again. */
export class DatabaseDailyDocumentsLedger implements DailyDocumentsLedger {
  constructor(private readonly database: () => Promise<Queryable>) {}

  async write(record: DailyDocumentsRecord): Promise<void> {
    const db = await this.database();
    await db.query(
      `INSERT INTO daily_documents (csid, day, record) VALUES ($1, $2, $3::jsonb)
         ON CONFLICT (csid, day) DO UPDATE SET record = EXCLUDED.record`,
      [record.result.csid, record.result.day, JSON.stringify(record)],
    );
  }

  async read(csid: string, day: string): Promise<DailyDocumentsRecord | undefined> {
    const db = await this.database();
    const [row] = await db.query<{ record: DailyDocumentsRecord }>(
      'SELECT record FROM daily_documents WHERE csid = $1 AND day = $2',
      [csid, day],
    );
    return row?.record;
  }

  async latest(csid: string, before?: string): Promise<DailyDocumentsRecord | undefined> {
    const db = await this.database();
    const [row] = await db.query<{ record: DailyDocumentsRecord }>(
      `SELECT record FROM daily_documents WHERE csid = $1 AND ($2::text IS NULL OR day < $2)
         ORDER BY day DESC LIMIT 1`,
      [csid, before ?? null],
    );
    return row?.record;
  }
}

/** The ledger beside `store`: in its directory, or in its database. */
export function dailyLedgerBeside(store: MaintainedDocumentStore): DailyDocumentsLedger {
  if (store instanceof FileDocumentStore) return new FileDailyDocumentsLedger(join(store.root, 'daily'));
  if (store instanceof PostgresDocumentStore) return new DatabaseDailyDocumentsLedger(() => store.database());
  throw new TypeError('the daily documents ledger has no place beside this document store: give one');
}

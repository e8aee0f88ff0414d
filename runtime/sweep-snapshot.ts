/**
 * The firm's status sweep's snapshot (activities/sweep.ts), in the engine's database: for each account
 * an application waits on, the application's workflow id and the fingerprint (domain/observation.ts)
 * the sweep last saw of the account or sent to the application. A slot then compares the brokerage's
 * reads with these rows instead of listing every waiting application from Temporal's visibility, so
 * that its cost follows what changed, not how many wait.
 *
 * The applications stay the source of truth: an application registers its account when its create
 * establishes it (the `createAccount` activity), and the sweep lists the waiting applications from
 * visibility again, comparing what each last read itself, when the firm has no listing time here (a
 * new or lost database) and at the configured interval. A lost row costs a wake-up, never a change.
 */
import type { Queryable } from './database/index.js';

export interface SweptAccount {
  accountId: string;
  workflowId: string;
  /** What the sweep last saw of the account or sent to its application; absent until it does. */
  fingerprint?: string;
}

export class SweepSnapshot {
  constructor(private readonly db: Queryable) {}

  /**
   * Records that `workflowId` waits on `accountId` (its create established it, or a reset brought it back).
   * `fingerprint`: what the application knows of the account (a create's: that it has read nothing, which a
   * quiet first read leaves as it is); none after a reset, so that the next slot tells the application what it
   * reads, whatever was sent before.
   */
  async register(csid: string, accountId: string, workflowId: string, fingerprint?: string): Promise<void> {
    await this.db.query(
      `INSERT INTO sweep_accounts (csid, account_id, workflow_id, fingerprint) VALUES ($1, $2, $3, $4)
       ON CONFLICT (csid, account_id) DO UPDATE SET workflow_id = excluded.workflow_id, fingerprint = excluded.fingerprint`,
      [csid, accountId, workflowId, fingerprint ?? null],
    );
  }

  /** Every account of the firm an application waits on. */
  async load(csid: string): Promise<SweptAccount[]> {
    const rows = await this.db.query<{ account_id: string; workflow_id: string; fingerprint: string | null }>(
      'SELECT account_id, workflow_id, fingerprint FROM sweep_accounts WHERE csid = $1',
      [csid],
    );
    return rows.map((row) => ({
      accountId: row.account_id,
      workflowId: row.workflow_id,
      ...(row.fingerprint !== null && { fingerprint: row.fingerprint }),
    }));
  }

  /**
   * Sets the fingerprints of these accounts, adding the rows a listing found (`upsert`) or only updating
   * rows still registered to the same application (a slot's own wake-ups: a registration that came in
   * meanwhile is newer and stays).
   */
  async record(csid: string, accounts: readonly Required<SweptAccount>[], mode: 'upsert' | 'update'): Promise<void> {
    if (accounts.length === 0) return;
    const columns = [
      accounts.map((a) => a.accountId),
      accounts.map((a) => a.workflowId),
      accounts.map((a) => a.fingerprint),
    ];
    const rows = 'unnest($2::text[], $3::text[], $4::text[]) AS u(account_id, workflow_id, fingerprint)';
    await this.db.query(
      mode === 'upsert'
        ? `INSERT INTO sweep_accounts (csid, account_id, workflow_id, fingerprint)
           SELECT $1, account_id, workflow_id, fingerprint FROM ${rows}
           ON CONFLICT (csid, account_id) DO UPDATE SET workflow_id = excluded.workflow_id, fingerprint = excluded.fingerprint`
        : `UPDATE sweep_accounts s SET fingerprint = u.fingerprint FROM ${rows}
           WHERE s.csid = $1 AND s.account_id = u.account_id AND s.workflow_id = u.workflow_id`,
      [csid, ...columns],
    );
  }

  /** Removes these accounts' rows while they are still registered to the same application. */
  async remove(csid: string, accounts: readonly Pick<SweptAccount, 'accountId' | 'workflowId'>[]): Promise<void> {
    if (accounts.length === 0) return;
    await this.db.query(
      `DELETE FROM sweep_accounts s USING unnest($2::text[], $3::text[]) AS u(account_id, workflow_id)
       WHERE s.csid = $1 AND s.account_id = u.account_id AND s.workflow_id = u.workflow_id`,
      [csid, accounts.map((a) => a.accountId), accounts.map((a) => a.workflowId)],
    );
  }

  /** When the sweep last listed the firm's waiting applications (ms since the epoch); undefined if never here. */
  async listedAt(csid: string): Promise<number | undefined> {
    const [row] = await this.db.query<{ listed_at: string }>('SELECT listed_at FROM sweep_firms WHERE csid = $1', [
      csid,
    ]);
    return row === undefined ? undefined : Number(row.listed_at);
  }

  async markListed(csid: string, at: number): Promise<void> {
    await this.db.query(
      `INSERT INTO sweep_firms (csid, listed_at) VALUES ($1, $2)
       ON CONFLICT (csid) DO UPDATE SET listed_at = excluded.listed_at`,
      [csid, at],
    );
  }
}

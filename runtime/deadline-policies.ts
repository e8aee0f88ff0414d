/**
 * The firms' deadline policies (domain/deadlines.ts), one row per firm in `deadline_policies`. A stored
 * policy holds the firm's own entries only; the defaults fill the rest when it is read for use
 * (`effectivePolicy`), so that a change of the defaults reaches every firm that did not set a state.
 */
import { checkDeadlinePolicy, DeadlinePolicyError } from '../domain/deadlines.js';
import type { DeadlinePolicy } from '../domain/deadlines.js';
import type { Queryable } from './database/index.js';

export { DeadlinePolicyError };

/** The CSIDs API keys accept (runtime/api-keys.ts). */
const CSID = /^[A-Za-z0-9._-]{1,64}$/;

function checkCsid(csid: string): void {
  if (!CSID.test(csid)) {
    throw new DeadlinePolicyError([`csid: "${csid}" is not a CSID (1 to 64 letters, digits, '.', '_' or '-')`]);
  }
}

export class DeadlinePolicies {
  constructor(private readonly db: Queryable) {}

  /** The policy firm `csid` set, as stored; undefined when it set none (the defaults apply). */
  async get(csid: string): Promise<DeadlinePolicy | undefined> {
    const [row] = await this.db.query<{ policy: DeadlinePolicy }>(
      'SELECT policy FROM deadline_policies WHERE csid = $1',
      [csid],
    );
    return row?.policy;
  }

  /**
   * Replaces firm `csid`'s policy with `policy` and answers what was stored (known fields only). A
   * DeadlinePolicyError lists every problem (bad CSID, unknown state, unreadable duration, reminder
   * not before the deadline...) and nothing is stored.
   */
  async set(csid: string, policy: unknown): Promise<DeadlinePolicy> {
    checkCsid(csid);
    const checked = checkDeadlinePolicy(policy);
    await this.db.query(
      `INSERT INTO deadline_policies (csid, policy, updated_at) VALUES ($1, $2::jsonb, now())
       ON CONFLICT (csid) DO UPDATE SET policy = excluded.policy, updated_at = excluded.updated_at`,
      [csid, JSON.stringify(checked)],
    );
    return checked;
  }

  /** Removes firm `csid`'s policy (the defaults apply again); false when it had none. */
  async clear(csid: string): Promise<boolean> {
    const rows = await this.db.query('DELETE FROM deadline_policies WHERE csid = $1 RETURNING csid', [csid]);
    return rows.length > 0;
  }
}

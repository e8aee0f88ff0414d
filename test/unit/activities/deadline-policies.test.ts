/** The activity that reads a firm's effective deadline policy (activities/deadline-policies.ts). */
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeadlinePolicyActivities } from '../../../activities/deadline-policies.js';
import { DEFAULT_DEADLINE_POLICY } from '../../../domain/deadlines.js';
import type { StateDeadline } from '../../../domain/deadlines.js';
import type { Database } from '../../../runtime/database/index.js';
import { DeadlinePolicies } from '../../../runtime/deadline-policies.js';
import { openSeededDatabase } from '../../support/database-template.js';
import { inActivity } from '../../support/activity-context.js';
import { logWatch } from '../../support/log-watch.js';

describe('readDeadlinePolicy (activities/deadline-policies)', function () {
  this.timeout(120_000);
  let dir: string;
  let db: Database;
  let policies: DeadlinePolicies;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-deadlines-'));
    db = await openSeededDatabase(dir);
    policies = new DeadlinePolicies(db);
  });

  after(async function () {
    await db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers the defaults for a firm without a policy', async function () {
    const { readDeadlinePolicy } = createDeadlinePolicyActivities(policies);
    assert.deepEqual(await readDeadlinePolicy({ csid: 'FIRM1' }), DEFAULT_DEADLINE_POLICY);
  });

  it("answers the firm's entries over the defaults, and a change at the next read", async function () {
    const { readDeadlinePolicy } = createDeadlinePolicyActivities(policies);
    const own: StateDeadline = { deadline: '90d', reminders: ['30d', '60d'], escalation: 'abandon' };
    await policies.set('FIRM2', { needsDocuments: own, blocked: null });
    assert.deepEqual(await readDeadlinePolicy({ csid: 'FIRM2' }), {
      ...DEFAULT_DEADLINE_POLICY,
      needsDocuments: own,
      blocked: null,
    });
    await policies.set('FIRM2', { blocked: null });
    assert.deepEqual(await readDeadlinePolicy({ csid: 'FIRM2' }), { ...DEFAULT_DEADLINE_POLICY, blocked: null });
    await policies.clear('FIRM2');
    assert.deepEqual(await readDeadlinePolicy({ csid: 'FIRM2' }), DEFAULT_DEADLINE_POLICY);
  });

  it('falls back to the default for a stored entry that no longer validates', async function () {
    const { readDeadlinePolicy } = inActivity(createDeadlinePolicyActivities(policies));
    const warned = logWatch.count(/^a stored deadline is not valid; the default applies to its state$/);
    const own: StateDeadline = { deadline: '2h', reminders: [], escalation: 'alert' };
    // Written past the store's checks, as a hand edit or an older rule would leave it.
    await db.query('INSERT INTO deadline_policies (csid, policy) VALUES ($1, $2::jsonb)', [
      'FIRM3',
      JSON.stringify({ unconfirmed: own, blocked: { deadline: 'soon', reminders: [], escalation: 'none' }, other: 1 }),
    ]);
    assert.deepEqual(await readDeadlinePolicy({ csid: 'FIRM3' }), { ...DEFAULT_DEADLINE_POLICY, unconfirmed: own });
    assert.equal(warned.seen, 1, 'the entry left out is logged');
  });
});

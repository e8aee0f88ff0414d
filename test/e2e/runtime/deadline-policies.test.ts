/** The firms' deadline policies (runtime/deadline-policies.ts) on both database backends. */
import assert from 'node:assert/strict';
import { DEFAULT_DEADLINE_POLICY } from '../../../domain/deadlines.js';
import type { DeadlinePolicy } from '../../../domain/deadlines.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { DeadlinePolicies, DeadlinePolicyError } from '../../../runtime/deadline-policies.js';
import { useDatabaseBackends } from '../../support/databases.js';

const POLICY: DeadlinePolicy = {
  needsDocuments: { deadline: '90d', reminders: ['30d', '60d'], escalation: 'abandon' },
  needsCorrection: { deadline: '5d', reminders: ['2d'], businessDays: true, escalation: 'alert' },
  blocked: null,
};

describe('deadline policies (runtime/deadline-policies)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;
      let policies: DeadlinePolicies;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
        policies = new DeadlinePolicies(db);
      });

      after(async function () {
        await db?.close();
      });

      it('has no policy for a firm that set none', async function () {
        assert.equal(await policies.get('NOPOLICY'), undefined);
        assert.equal(await policies.clear('NOPOLICY'), false);
      });

      it('stores a firm’s policy, replaces it, and clears it', async function () {
        assert.deepEqual(await policies.set('FIRM1', POLICY), POLICY);
        assert.deepEqual(await policies.get('FIRM1'), POLICY);
        const [{ updated_at: first }] = (await db.query<{ updated_at: Date }>(
          "SELECT updated_at FROM deadline_policies WHERE csid = 'FIRM1'",
        )) as [{ updated_at: Date }];
        const next: DeadlinePolicy = { unconfirmed: DEFAULT_DEADLINE_POLICY.unconfirmed };
        assert.deepEqual(await policies.set('FIRM1', next), next);
        assert.deepEqual(await policies.get('FIRM1'), next, 'replaced whole, not merged');
        const [{ updated_at: second }] = (await db.query<{ updated_at: Date }>(
          "SELECT updated_at FROM deadline_policies WHERE csid = 'FIRM1'",
        )) as [{ updated_at: Date }];
        assert.ok(second.getTime() >= first.getTime());
        assert.equal(await policies.clear('FIRM1'), true);
        assert.equal(await policies.get('FIRM1'), undefined);
        assert.equal(await policies.clear('FIRM1'), false);
      });

      it('keeps each firm’s policy apart', async function () {
        await policies.set('FIRM2', POLICY);
        await policies.set('FIRM3', {});
        assert.deepEqual(await policies.get('FIRM2'), POLICY);
        assert.deepEqual(await policies.get('FIRM3'), {});
        await policies.clear('FIRM3');
        assert.deepEqual(await policies.get('FIRM2'), POLICY);
      });

      it('stores the known fields only', async function () {
        const stored = await policies.set('FIRM4', {
          blocked: { deadline: '2h', reminders: ['1h'], escalation: 'alert', businessDays: undefined },
          awaitingClient: undefined,
        });
        const expected = { blocked: { deadline: '2h', reminders: ['1h'], escalation: 'alert' } };
        assert.deepEqual(stored, expected);
        assert.deepEqual(await policies.get('FIRM4'), expected);
      });

      it('refuses a policy with problems, listing them, and keeps the one stored', async function () {
        await policies.set('FIRM5', POLICY);
        await assert.rejects(
          policies.set('FIRM5', {
            needsDocuments: { deadline: '30d', reminders: ['7d', '40d'], escalation: 'none' },
            approved: null,
          }),
          (error: unknown) => {
            assert.ok(error instanceof DeadlinePolicyError);
            assert.deepEqual(error.problems, [
              'needsDocuments.reminders[1]: "40d" is not before the deadline "30d"',
              'approved: not a state with a deadline (one of needsCorrection, needsDocuments, awaitingClient, unconfirmed, blocked)',
            ]);
            return true;
          },
        );
        await assert.rejects(policies.set('FIRM5', 'none'), /policy: expected an object keyed by state, got "none"/);
        assert.deepEqual(await policies.get('FIRM5'), POLICY);
      });

      it('refuses a CSID that is not one', async function () {
        for (const csid of ['', 'FIRM 6', 'x'.repeat(65)]) {
          await assert.rejects(
            policies.set(csid, {}),
            (error: unknown) =>
              error instanceof DeadlinePolicyError && error.problems.length === 1 && /^csid: /.test(error.problems[0]!),
            JSON.stringify(csid),
          );
        }
      });
    });
  }
});

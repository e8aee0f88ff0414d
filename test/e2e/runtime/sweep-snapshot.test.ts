/** The status sweep's snapshot (runtime/sweep-snapshot.ts) on both database backends. */
import assert from 'node:assert/strict';
import { NO_OBSERVATION } from '../../../domain/observation.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { SweepSnapshot } from '../../../runtime/sweep-snapshot.js';
import { MockActivityEnvironment } from '@temporalio/testing';
import { registerCreated, registerReset } from '../../../activities/sweep-snapshot.js';
import type {
  ApplicationUpdateFunction,
  CreateOutcome,
  UpdateOutcome,
} from '../../../workflows/application/activities.js';
import { useDatabaseBackends } from '../../support/databases.js';
import { logWatch, watchedActivityEnvironment } from '../../support/log-watch.js';

describe('status sweep snapshot (runtime/sweep-snapshot)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;
      let snapshot: SweepSnapshot;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
        snapshot = new SweepSnapshot(db);
      });

      after(async function () {
        await db?.close();
      });

      const byAccount = async (csid: string) =>
        Object.fromEntries((await snapshot.load(csid)).map((row) => [row.accountId, row]));

      it('registers an account without a fingerprint, keeps each firm apart, and a registration again clears the fingerprint', async function () {
        await snapshot.register('F1', 'A1', 'application-F1-x1');
        await snapshot.register('F2', 'A1', 'application-F2-x1');
        assert.deepEqual(await snapshot.load('F1'), [{ accountId: 'A1', workflowId: 'application-F1-x1' }]);
        await snapshot.record(
          'F1',
          [{ accountId: 'A1', workflowId: 'application-F1-x1', fingerprint: 'fp1' }],
          'update',
        );
        await snapshot.register('F1', 'A1', 'application-F1-x1');
        assert.equal(
          (await byAccount('F1')).A1?.fingerprint,
          undefined,
          'a registration again (a reset) clears what was sent: the next slot tells the application',
        );
        await snapshot.register('F1', 'A1', 'application-F1-other');
        assert.deepEqual((await byAccount('F1')).A1, { accountId: 'A1', workflowId: 'application-F1-other' });
        assert.deepEqual(await snapshot.load('F2'), [{ accountId: 'A1', workflowId: 'application-F2-x1' }]);
      });

      it('updates only rows still registered to the same application; a listing upserts', async function () {
        await snapshot.register('F3', 'A1', 'w1');
        await snapshot.register('F3', 'A2', 'w2');
        await snapshot.record(
          'F3',
          [
            { accountId: 'A1', workflowId: 'w1', fingerprint: 'fpA' },
            { accountId: 'A2', workflowId: 'stale', fingerprint: 'fpB' },
            { accountId: 'A3', workflowId: 'w3', fingerprint: 'fpC' },
          ],
          'update',
        );
        let rows = await byAccount('F3');
        assert.equal(rows.A1?.fingerprint, 'fpA');
        assert.equal(rows.A2?.fingerprint, undefined, 'a row registered to another application is left');
        assert.equal(rows.A3, undefined, 'an update adds nothing');
        await snapshot.record('F3', [{ accountId: 'A3', workflowId: 'w3', fingerprint: 'fpC' }], 'upsert');
        rows = await byAccount('F3');
        assert.deepEqual(rows.A3, { accountId: 'A3', workflowId: 'w3', fingerprint: 'fpC' });
      });

      it('removes rows of the same application only', async function () {
        await snapshot.register('F4', 'A1', 'w1');
        await snapshot.register('F4', 'A2', 'w2');
        await snapshot.remove('F4', [
          { accountId: 'A1', workflowId: 'w1' },
          { accountId: 'A2', workflowId: 'someone-else' },
        ]);
        assert.deepEqual(await snapshot.load('F4'), [{ accountId: 'A2', workflowId: 'w2' }]);
        await snapshot.remove('F4', []);
        await snapshot.record('F4', [], 'upsert');
      });

      it('a create registers the account it established and an accepted reset the one it brought back, nothing else', async function () {
        const inWorkflow = (workflowId: string) =>
          new MockActivityEnvironment({ workflowExecution: { workflowId, runId: 'r1' } });
        const made: CreateOutcome = { created: true, accountId: 'A1', userName: 'u1', recovered: false };
        const refused: CreateOutcome = { created: false, errors: ['refused'], settledFiles: [] };
        await inWorkflow('w-made').run(() => registerCreated(snapshot, 'F6', made));
        await inWorkflow('w-refused').run(() => registerCreated(snapshot, 'F6', refused));
        // Without a snapshot (an adapter built alone) nothing is registered, nor does anything fail.
        await inWorkflow('w-alone').run(() => registerCreated(undefined, 'F6', { ...made, accountId: 'A0' }));
        // A2 accepted; A3 an abandon; A8 found again among several new requests (not identified); A9 refused.
        const updates: Array<[string, string, ApplicationUpdateFunction, UpdateOutcome]> = [
          ['w-reset', 'A2', 'ResetAbandonedAccount', { accepted: true, responseFile: 'A2_20261127_0001_0001.xml' }],
          ['w-abandon', 'A3', 'AbandonAccount', { accepted: true, responseFile: 'A3_20261127_0001_0001.xml' }],
          ['w-ambiguous-reset', 'A8', 'ResetAbandonedAccount', { accepted: true, recovered: true }],
          ['w-refused-reset', 'A9', 'ResetAbandonedAccount', { accepted: false, error: 'refused' }],
        ];
        for (const [workflowId, accountId, functionName, outcome] of updates) {
          await inWorkflow(workflowId).run(() =>
            registerReset(snapshot, { csid: 'F6', accountId, functionName }, outcome),
          );
        }
        assert.deepEqual(
          (await snapshot.load('F6')).sort((a, b) => a.accountId.localeCompare(b.accountId)),
          [
            // A create's application has read nothing of its account; a reset's is told what the next slot reads.
            { accountId: 'A1', workflowId: 'w-made', fingerprint: NO_OBSERVATION },
            { accountId: 'A2', workflowId: 'w-reset' },
          ],
        );
      });

      it('a create and a reset stand when their registration with the sweep fails (its database gone)', async function () {
        const gone = await openDatabase(await backend.freshUrl());
        await gone.close();
        const created: CreateOutcome = { created: true, accountId: 'U7654321', userName: 'u7', recovered: false };
        const reset = { accepted: true as const, responseFile: 'U7654321_20261127_0001_0001.xml' };
        const unreachable = new SweepSnapshot(gone);
        // The engine's logger, to the run's log watch: the warning is read there, not printed.
        const inWorkflow = watchedActivityEnvironment({
          workflowExecution: { workflowId: 'application-F7-ext-1', runId: 'r1' },
        });
        const warned = logWatch.count(/^account not registered with the status sweep; its next listing finds/);
        await inWorkflow.run(() => registerCreated(unreachable, 'F7', created));
        await inWorkflow.run(() =>
          registerReset(
            unreachable,
            { csid: 'F7', accountId: 'U7654321', functionName: 'ResetAbandonedAccount' },
            reset,
          ),
        );
        assert.equal(warned.seen, 2, 'each failed registration is logged, and the step goes on');
      });

      it('keeps when the firm was last listed', async function () {
        assert.equal(await snapshot.listedAt('F5'), undefined);
        await snapshot.markListed('F5', 1_700_000_000_000);
        assert.equal(await snapshot.listedAt('F5'), 1_700_000_000_000);
        await snapshot.markListed('F5', 1_700_000_360_000);
        assert.equal(await snapshot.listedAt('F5'), 1_700_000_360_000);
      });
    });
  }
});

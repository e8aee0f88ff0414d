/** The firm's call budget (runtime/call-budget.ts) on both database backends. */
import assert from 'node:assert/strict';
import { CallPutOff } from '../../../domain/brokerage-errors.js';
import type { EcaOperation } from '../../../eca/index.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { pacesCalls, createCallBudget, slotSpacingMs } from '../../../runtime/call-budget.js';
import type { CallBudgetSettings } from '../../../runtime/call-budget.js';
import { useDatabaseBackends } from '../../support/databases.js';
import { parseMaintenanceWindows } from '../../../domain/maintenance-windows.js';

/** The most calls of `times` in any window of `ms` (each call opens one). */
function busiest(times: number[], ms = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! < sorted[i]! - ms + 1) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

describe('call budget (runtime/call-budget)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends();

  it('caps nothing unless a rate is set', function () {
    assert.equal(pacesCalls({ maxWaitMs: 1000 }), false);
    assert.equal(pacesCalls({ perOperation: {}, maxWaitMs: 1000 }), false);
    assert.equal(pacesCalls({ perSecond: 10, maxWaitMs: 1000 }), true);
    assert.equal(pacesCalls({ perOperation: { create: 1 }, maxWaitMs: 1000 }), true);
  });

  for (const backend of backends.all) {
    describe(`on ${backend.kind}`, function () {
      let db: Database;

      before(async function () {
        db = await openDatabase(await backend.freshUrl());
      });

      after(async function () {
        await db?.close();
      });

      /**
       * A worker's pacing whose waits are recorded, not slept: each call's time is the slot it was
       * given, so that the spacing is checked on what the database handed out, whatever the host's speed.
       * Each call builds its own budget: they share nothing but the database's rows, as workers do.
       */
      function recordingBudget(
        csid: string,
        settings: CallBudgetSettings,
        slots: Map<EcaOperation, number[]>,
        clock: () => number = Date.now,
      ) {
        return async (operation: EcaOperation) => {
          let slot: number | undefined;
          let lastNow = 0;
          const budget = createCallBudget(db, csid, settings, {
            now: () => (lastNow = clock()),
            // The wait was computed from the clock's last reading: the slot is exactly that reading plus it.
            sleep: (ms) => {
              slot = lastNow + ms;
              return Promise.resolve();
            },
          });
          await budget.pace(operation);
          slots.set(operation, [...(slots.get(operation) ?? []), slot ?? Date.now()]);
        };
      }

      it('spaces the calls of two workers sharing the database: no second holds more than N, in all or per operation', async function () {
        const settings: CallBudgetSettings = { perSecond: 20, perOperation: { create: 4 }, maxWaitMs: 60_000 };
        const slots = new Map<EcaOperation, number[]>();
        // Two budgets, as two workers have: they share nothing but the database's rows.
        const workers = [recordingBudget('FIRM-A', settings, slots), recordingBudget('FIRM-A', settings, slots)];
        const operations: EcaOperation[] = ['getAccountStatus', 'validateXML', 'create', 'getResponseFile'];
        await Promise.all(Array.from({ length: 60 }, (_, i) => workers[i % 2]!(operations[i % operations.length]!)));
        const all = [...slots.values()].flat();
        assert.equal(all.length, 60);
        assert.ok(busiest(all) <= 20, `${busiest(all)} calls in one second`);
        assert.ok(busiest(slots.get('create')!) <= 4, `${busiest(slots.get('create')!)} creates in one second`);
        // Spaced by (1000 + the lateness allowed) / N ms: the 60 calls span about three seconds.
        const span = Math.max(...all) - Math.min(...all);
        assert.ok(span >= 59 * slotSpacingMs(20) - 5, `60 calls over ${span} ms`);
      });

      it('keeps each firm’s budget apart', async function () {
        const waits: number[] = [];
        const budgetOf = (csid: string) =>
          createCallBudget(
            db,
            csid,
            { perSecond: 1, maxWaitMs: 60_000 },
            {
              now: Date.now,
              sleep: (ms) => {
                waits.push(ms);
                return Promise.resolve();
              },
            },
          );
        await budgetOf('FIRM-B').pace('getPendingTasks');
        await budgetOf('FIRM-C').pace('getPendingTasks');
        assert.deepEqual(waits, [], 'the second firm waited for the first');
        await budgetOf('FIRM-B').pace('getPendingTasks');
        assert.equal(waits.length, 1, 'the first firm’s second call waited for its slot');
      });

      it('defers a call whose slot is past the longest wait, reserving nothing for it', async function () {
        const settings: CallBudgetSettings = { perSecond: 2, maxWaitMs: 600 };
        const slots = new Map<EcaOperation, number[]>();
        // A clock that stands still: on a busy machine a real one can pass a slot's lateness bound (LATE_MS)
        // between the reservation and its check, and the first call then takes a second slot.
        const start = Date.now();
        const pace = recordingBudget('FIRM-D', settings, slots, () => start);
        await pace('create');
        await pace('create'); // ~525 ms out: within the wait
        const deferred = await pace('create').then(
          () => assert.fail('a third call within a second was not deferred'),
          (error: unknown) => error,
        );
        assert.ok(deferred instanceof CallPutOff, String(deferred));
        assert.ok(deferred.retryAfterMs > 600 && deferred.retryAfterMs <= 1100, `again in ${deferred.retryAfterMs} ms`);
        const [{ next_at: nextAt }] = (await db.query<{ next_at: string }>(
          "SELECT next_at FROM call_budget WHERE csid = 'FIRM-D' AND scope = '*'",
        )) as [{ next_at: string }];
        const [, secondSlot] = slots.get('create')!;
        assert.equal(Number(nextAt), secondSlot! + slotSpacingMs(2), 'the deferred call took no slot');
      });

      it('defers every call in a maintenance window to its end, taking no slot', async function () {
        const sunday23h = Date.parse('2026-11-29T23:00:00Z');
        const budget = createCallBudget(
          db,
          'FIRM-E',
          {
            perSecond: 5,
            maxWaitMs: 60_000,
            maintenance: { windows: parseMaintenanceWindows('Sun 22:00-02:00'), timeZone: 'UTC' },
          },
          { now: () => sunday23h, sleep: () => Promise.resolve() },
        );
        const deferred = await budget.pace('getAccountStatus').then(
          () => assert.fail('a call went out in the window'),
          (error: unknown) => error,
        );
        assert.ok(deferred instanceof CallPutOff, String(deferred));
        assert.equal(deferred.retryAfterMs, 3 * 60 * 60_000, 'again at 02:00, when the window ends');
        assert.match(deferred.message, /maintenance window/);
        assert.deepEqual(await db.query("SELECT scope FROM call_budget WHERE csid = 'FIRM-E'"), []);
        assert.equal(pacesCalls({ maxWaitMs: 1, maintenance: { windows: [], timeZone: 'UTC' } }), false);
        assert.equal(
          pacesCalls({
            maxWaitMs: 1,
            maintenance: { windows: parseMaintenanceWindows('03:00-03:30'), timeZone: 'UTC' },
          }),
          true,
        );
      });
    });
  }
});

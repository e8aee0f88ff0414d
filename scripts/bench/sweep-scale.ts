/**
 * The sweep at scale: W accounts waited on, as the sweep's snapshot holds them once their applications
 * registered and were told (runtime/sweep-snapshot.ts). The accounts are seeded in the simulator (no
 * files, no crypto: starting W real applications takes W / 10 s on this machine) and the rows written
 * from the same reads and fingerprints the sweep makes; the real `firmStatusSweep` workflow then runs on
 * the bench's worker and its quiet slots are measured: brokerage calls (the simulator's counts), workflow
 * tasks (the worker's metrics), the sweep's own duration (its reports) and the processes' CPU. No
 * application workflow exists for these rows: a quiet slot signals nobody (a change would find the
 * application gone and drop its row, which the report counts).
 */
import { ensureStatusSweep } from '../../client/sweep.js';
import { observationFingerprint } from '../../domain/observation.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { readPending } from '../../brokerage/xml/sweep-reads.js';
import { SweepSnapshot } from '../../runtime/sweep-snapshot.js';
import type { EcaClient } from '../../eca/index.js';
import { percentile, round } from './measure.js';
import { SLOTS, SWEEP_SLOT_MS } from './options.js';
import type { Bench } from './setup.js';
import { measureSlots, stopSweep } from './waiting.js';

/** The rows the snapshot holds for every pending account of the firm once each application was told. */
async function primeSnapshot(eca: EcaClient, snapshot: SweepSnapshot, csid: string): Promise<number> {
  // The same reads and snapshots the sweep's slot makes.
  const { snapshots } = await readPending(eca, csid);
  const rows = [...snapshots].flatMap(([accountId, account]) => {
    if (account instanceof Error) return [];
    const workflowId = applicationWorkflowId(csid, `scale-${accountId}`);
    return [{ accountId, workflowId, fingerprint: observationFingerprint(account) }];
  });
  for (let i = 0; i < rows.length; i += 5000) await snapshot.record(csid, rows.slice(i, i + 5000), 'upsert');
  // Listed just now: the measured slots compare against the snapshot alone, as between hourly listings.
  await snapshot.markListed(csid, Date.now());
  return rows.length;
}

/** Grows the firm's waited-on accounts to `count`, then measures quiet slots of the firm's sweep. */
export async function sweepScalePhase(bench: Bench, count: number, seeded: { accounts: number }) {
  const { sim, database, eca } = bench;
  await stopSweep(bench);
  const t0 = Date.now();
  if (count > seeded.accounts) {
    await sim.control('POST', '/seed', {
      count: count - seeded.accounts,
      prefix: `stalled-scale-${bench.run}-${seeded.accounts}-`,
    });
    seeded.accounts = count;
  }
  const snapshot = new SweepSnapshot(database);
  const rows = await primeSnapshot(eca, snapshot, sim.csid);
  const primeSeconds = (Date.now() - t0) / 1000;
  const reports = bench.tracker.sweeps;
  await ensureStatusSweep({ ...bench.ctx, sweepInterval: SWEEP_SLOT_MS }, { force: true });
  const from = reports.length;
  const { memory, ...perSlot } = await measureSlots(bench, SWEEP_SLOT_MS, SLOTS);
  const measured = reports.slice(from);
  await stopSweep(bench);
  const durations = measured.map((report) => report.durationMs);
  return {
    waitedOnAccounts: rows,
    slot: `${SWEEP_SLOT_MS / 1000} seconds`,
    slotsMeasured: SLOTS,
    seedAndPrimeSeconds: round(primeSeconds),
    ...perSlot,
    sweepDurationP50Ms: percentile(durations, 50),
    sweepDurationMaxMs: Math.max(0, ...durations),
    sweepListPages: measured.reduce((sum, report) => sum + report.listPages, 0),
    sweepChanged: measured.reduce((sum, report) => sum + report.changed, 0),
    sweepReports: measured.length,
    workerRssMiB: Math.round(memory.rss / 2 ** 20),
    workerHeapUsedMiB: Math.round(memory.heapUsed / 2 ** 20),
  };
}

export type SweepScale = Awaited<ReturnType<typeof sweepScalePhase>>;

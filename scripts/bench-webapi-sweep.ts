/**
 * The status sweep's brokerage calls per slot for a firm on the Web API, at scale: WAITING accounts seeded in
 * an in-process simulator, read by the sweep's Web API reads (brokerage/webapi/sweep-reads.ts) as one slot reads
 * them, slot after slot with nothing changing. Calls are the simulator's own counts.
 *
 *   npm run bench:webapi-sweep -- [--waiting 10000] [--slots 3]
 *
 * Two mixes: every account waiting on the client (the `stalled` scenario: its state asks for something, so
 * its tasks are read each slot), and every account under review (no client action: its tasks are read once,
 * then again only when its status or state changes, or after an hour).
 */
import { generateKeyPairSync } from 'node:crypto';
import { parseArgs } from 'node:util';
import { WebApiSweepReads } from '../brokerage/webapi/sweep-reads.js';
import { startSimulator } from '../simulator/server.js';
import type { RunningSimulator } from '../simulator/server.js';
import { WebApiClient } from '../webapi/index.js';

const { values } = parseArgs({
  options: { waiting: { type: 'string', default: '10000' }, slots: { type: 'string', default: '3' } },
});
const waiting = Number(values.waiting);
const slots = Number(values.slots);

function webApiCalls(sim: RunningSimulator): Record<string, number> {
  return Object.fromEntries(Object.entries(sim.control.calls()).filter(([name]) => name.startsWith('webapi ')));
}

async function mix(name: string, prefix: string, advanceMs: number): Promise<void> {
  const sim = await startSimulator({ timeScale: 1 });
  try {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    sim.webapi.register({
      clientId: 'bench',
      csid: sim.csid,
      kid: 'k1',
      publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    });
    const api = new WebApiClient({ clientId: 'bench', keyId: 'k1', privateKey, baseUrl: sim.url });
    const accountIds = sim.control.seedAccounts({ count: waiting, csid: sim.csid, prefix });
    if (advanceMs > 0) sim.control.advanceClock({ ms: advanceMs });
    const reads = new WebApiSweepReads(() => sim.control.clock().epochMs);
    for (let slot = 1; slot <= slots; slot++) {
      sim.control.resetCalls();
      const began = Date.now();
      let counted = 0;
      const slotReads = await reads.start(api, sim.csid, (call) => {
        counted++;
        return call;
      });
      const snapshots = await slotReads.snapshotsOf(accountIds);
      const errors = [...snapshots.values()].filter((snapshot) => snapshot instanceof Error).length;
      const calls = webApiCalls(sim);
      const total = Object.values(calls).reduce((sum, n) => sum + n, 0);
      console.log(
        `${name}, slot ${slot}: ${total} calls (${JSON.stringify(calls)}; the sweep counted ${counted}), ` +
          `${snapshots.size - errors} accounts read, ${errors} unknown, ${((Date.now() - began) / 1000).toFixed(1)} s`,
      );
    }
  } finally {
    await sim.close();
  }
}

console.log(`Web API status sweep, ${waiting} waiting accounts, ${slots} slots each (simulator's counts)`);
await mix('waiting on the client (stalled)', 'stalled-bench-', 0);
// Happy applications are under review from an hour after they start (the simulator's funding step) for two.
await mix('under review (happy)', 'happy-bench-', 90 * 60_000);

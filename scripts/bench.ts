/**
 * `npm run bench`: the engine under load on this machine, measured the way Temporal's own load tools
 * measure (fixed concurrency, a warm-up left out, p50/p99), all in one run against the Temporal dev
 * server (a process of its own), the simulator (a process of its own, compressed time) and a worker in
 * this process (so that its memory and the status reader can be read):
 *
 * - ceiling: workflows with one no-op activity per second, same server and worker settings;
 * - throughput: N happy applications start → Open, at a fixed number in flight; workflow tasks and
 *   activities per second (from the worker's Prometheus metrics); brokerage calls per operation per
 *   application; start → first activity p50/p99;
 * - waiting applications woken by the firm's status sweep: brokerage calls, workflow tasks and activities
 *   per slot, worker RSS and heap, simulator status change → workflow transition p50/p99 (read from
 *   histories), pollNow → activity start p50/p99. Progress from visibility counts, never queries;
 * - onboarding API: N applications started through the client, then N through the HTTP service (api/,
 *   built in this process on the same connection, store and task queue), at the same concurrency, each
 *   side's M reads after (getState / GET): starts/s, start and read p50/p99, the API's cost in % of the
 *   client's start throughput (bench/api.ts).
 *
 * Prints a table and writes bench-results/<timestamp>.json (the phases and the report are in bench/).
 * Options (all optional):
 *   --n 100,1000[,10000]   throughput sizes           --waiting 1000[,10000]   waiting applications
 *   --ceiling 1000         no-op workflows            --concurrency 200         applications in flight
 *   --time-scale 200000    simulated/real time        --poll 1s                 poll interval (throughput)
 *   --slots 3              slots measured (1 when a slot is over a minute)
 *   --sweep-slot 10s       the sweep's slot
 *   --api 300[,1000]       onboarding API phase sizes ('' skips it)
 *   --events 1000          events phase: applications whose events a webhook receiver gets ('' skips it)
 *   --api-reads 1000       reads on each side          --api-read-concurrency 10  reads in flight
 *   --firms 10             many firms: N firms on one worker, each capped at --calls-per-second ('' skips it)
 *   --firm-applications 20 applications per firm in the firms phase
 *   --batch-window N  --max-cached N   (default: the worker's configuration defaults)
 *   --wft-slots N  --activity-slots N  --wf-threads N (worker threads for workflows)
 *   --db memory|file  --sqlite-pragma P (repeatable)
 *   --label text           names the run in the JSON
 */
import { main } from './bench/main.js';

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(1);
  },
);

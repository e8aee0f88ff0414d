/**
 * `npm run cluster`: the production topology on this machine, every part a process of its own
 * (see topology.ts): PostgreSQL, the Temporal services on it, `eca setup`, the simulated brokerage,
 * the codec server, two engine workers, two onboarding API replicas, the Temporal UI server and Prometheus
 * with the engine's alert rules. Then the demo's applications run through it, started and followed through
 * the onboarding API, and a summary says where everything listens.
 *
 *   --applications N   how many demo applications (default 25; 0 runs none)
 *   --keep             leave everything running to explore (Ctrl-C stops every process started)
 */
import { parseArgs } from 'node:util';
import { table } from '../../client/cli/output.js';
import { runDemoFleet } from '../demo-fleet.js';
import { httpSystem } from '../demo-systems.js';
import { createApiKey } from '../../runtime/api-keys.js';
import { openDatabase } from '../../runtime/database/index.js';
import { deferSignalCleanup } from '../processes.js';
import { Topology } from './topology.js';

class UsageError extends Error {}

function progress(line: string): void {
  console.log(`[cluster] ${line}`);
}

/** Every process started and where the parts listen. */
async function printTopology(topology: Topology): Promise<void> {
  console.log(
    table(
      ['PROCESS', 'PID'],
      topology.processes().map((entry) => [entry.name, String(entry.pid)]),
    ),
  );
  console.log(`\nTemporal frontend: ${topology.temporal.address} (namespace default, retention 30 days)`);
  if (topology.uiUrl) {
    console.log(
      `Temporal UI: ${topology.uiUrl}/namespaces/default/workflows (payloads decoded by the codec server at ${topology.codecUrl})`,
    );
  }
  console.log(
    `Onboarding API: ${topology.apis.map((api) => api.url).join(' ')} (OpenAPI at /openapi.json, reference at /docs; ` +
      `keys: ECA_DATABASE_URL=<the eca database> eca api-keys create ...)`,
  );
  console.log(
    `Server metrics: ${topology.temporal
      .metricsEndpoints()
      .map((entry) => entry.url)
      .join(' ')}`,
  );
  if (topology.prometheus) {
    const firing = (await topology.prometheus.alerts().catch(() => []))
      .filter((alert) => alert.state === 'firing')
      .map((alert) => alert.labels.alertname);
    console.log(
      `Prometheus: ${topology.prometheus.url} (workers, API replicas and Temporal services scraped, alert rules of deploy/prometheus; ` +
        `firing: ${firing.length ? firing.join(', ') : 'none'})`,
    );
  }
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: {
      applications: { type: 'string', default: '25' },
      keep: { type: 'boolean', default: false },
    },
  });
  const count = Number(values.applications);
  if (!Number.isInteger(count) || count < 0 || count > 5000) {
    throw new UsageError(`--applications must be a whole number between 0 and 5000, got "${values.applications}"`);
  }
  const began = Date.now();
  // Ctrl-C (or SIGTERM) stops every process in order and removes the run's directory; a second one
  // exits at once (the process groups still running are then killed).
  deferSignalCleanup();
  let interrupted = false;
  const stopRequested = new Promise<void>((resolve) => {
    const onSignal = () => {
      if (interrupted) process.exit(130);
      interrupted = true;
      progress('stopping (again to exit at once)...');
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  progress('starting PostgreSQL, the Temporal services and the engine (first run builds the binaries)...');
  const topology = await Topology.start({ log: progress });
  try {
    if (interrupted) return 130;
    progress(`topology up in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    let failed = 0;
    if (count > 0) {
      // The applications go through the onboarding API's replicas, as an onboarding system's would.
      const db = await openDatabase(topology.databaseUrl);
      try {
        const csid = topology.sim.csid;
        const onboarding = (await createApiKey(db, { csid, role: 'onboarding', name: 'cluster demo' })).key;
        const staff = (await createApiKey(db, { csid, role: 'staff', name: 'cluster demo staff' })).key;
        const stop = new AbortController();
        void stopRequested.then(() => stop.abort());
        const fleet = await runDemoFleet(httpSystem(topology.apis[0]!.url, { onboarding, staff }), {
          count,
          signal: stop.signal,
        });
        if (interrupted) return 130;
        console.log(`\n${fleet.summary}\n`);
        if (!fleet.finished) console.error('The applications did not all finish within 10 minutes.');
        failed = fleet.failed.length + (fleet.finished ? 0 : 1);
      } finally {
        await db.close();
      }
    }
    await printTopology(topology);
    console.log(`Elapsed: ${((Date.now() - began) / 1000).toFixed(1)} s.`);
    if (values.keep) {
      console.log('Leaving everything running (--keep); press Ctrl-C to stop every process.');
      await stopRequested;
    }
    return failed > 0 ? 1 : 0;
  } finally {
    progress('stopping every process...');
    const stopped = await topology.close();
    const left = stopped.flatMap(({ what, report }) => (report?.survivors.length ? [what] : []));
    progress(left.length ? `processes outlived their stop (killed): ${left.join(', ')}` : 'all stopped');
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`cluster: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);

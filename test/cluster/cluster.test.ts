/**
 * `npm run test:cluster`: the production topology, really run (scripts/cluster/topology.ts):
 * PostgreSQL, the Temporal services as separate processes (frontend, matching, two history processes,
 * internal worker), `eca setup`, the simulator, the codec server, two engine workers and two replicas of the
 * onboarding API. Applications
 * run through it while one history process and one engine worker are SIGKILLed and restarted; every
 * application must end in its expected state with exactly one account and no duplicate request, as the
 * simulator's own records count them (test/faults/world.ts), and every history, exported with the
 * real `temporal` CLI, must hold none of the applicants' personal data and only encrypted payloads.
 * The document store is the engine's database (`eca`): the workers' documents are rows there, not files.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import pg from 'pg';
import { assertHistoriesReplay } from '../support/history-replay.js';
import { Topology } from '../../scripts/cluster/topology.js';
import { devServerExecutable } from '../../scripts/temporal-servers.js';
import { startWorkerProcess } from '../../scripts/processes.js';
import type { PrometheusAlert } from '../../scripts/prometheus.js';
import { startApplication } from '../../client/applications.js';
import { applicationWorkflowId } from '../../domain/workflow-ids.js';
import { stateQuery } from '../../workflows/application/messages.js';
import { assertGone, printReports, runFleet, unplannedExit, World } from '../faults/world.js';
import { applicant, assertPrivateHistory, personalFields, personalXml } from '../support/history-privacy.js';
import type { Applicant } from '../support/history-privacy.js';

const run = promisify(execFile);
const APPLICATIONS = Number(process.env.CLUSTER_APPLICATIONS ?? 100);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Checks that the applications' documents are in the `eca` database's document store: the XML the client
 * stored for each, and the response file each worker kept after the create (the state's `credentials`),
 * every one a row of `documents`. Answers how many rows and how many response files were found there.
 */
async function assertDocumentsInDatabase(
  cluster: Topology,
  client: World['client'],
  workflowIds: string[],
): Promise<{ rows: number; responseFiles: number }> {
  const db = new pg.Client({ connectionString: cluster.databaseUrl });
  await db.connect();
  let refs: Set<string>;
  try {
    refs = new Set((await db.query<{ ref: string }>('SELECT ref FROM documents')).rows.map((row) => row.ref));
  } finally {
    await db.end();
  }
  assert.ok(refs.size >= workflowIds.length, `documents in the eca database: ${refs.size}`);
  const queue = [...workflowIds];
  let responseFiles = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let workflowId = queue.shift(); workflowId; workflowId = queue.shift()) {
        const handle = client.workflow.getHandle(workflowId);
        // A replay that fails is caught before this, with its history (assertHistoriesReplay).
        const state = await handle.query(stateQuery);
        if (!state.credentials) continue;
        assert.ok(refs.has(state.credentials.ref), `${workflowId}: its response file is in the eca database`);
        responseFiles++;
      }
    }),
  );
  // A create recovered after a lost answer may keep no response file; most keep one. Only the XML service
  // answers a create with a response file: the Web API firm's applications keep none.
  const onXml = workflowIds.filter(
    (id) => id === applicationWorkflowId(cluster.sim.csid, id.split(':').at(-1)!),
  ).length;
  assert.ok(
    responseFiles > onXml / 2,
    `response files in the database: ${responseFiles} for ${onXml} XML applications`,
  );
  return { rows: refs.size, responseFiles };
}

/**
 * The engine workers' supervisor, as compose's restart policy is: a worker that exited by itself is
 * restarted, printed with the end of its output and answered as one line (the case's UNPLANNED EXITS),
 * never hidden. Node has been seen to abort a worker replaying the workflows of a killed one
 * (docs/performance.md, "Workers that exit by themselves").
 */
async function restartExitedWorkers(cluster: Topology): Promise<string[]> {
  const exits: string[] = [];
  for (const worker of [...cluster.workers]) {
    if (worker.running) continue;
    exits.push(await unplannedExit(worker));
    cluster.workers.splice(cluster.workers.indexOf(worker), 1);
    cluster.workerMetrics.delete(worker);
    await cluster.startWorker(`${worker.name} (restarted)`);
  }
  return exits;
}

describe('the production topology: a Temporal cluster on PostgreSQL, every part a process', function () {
  this.timeout(30 * 60_000);
  let topology: Topology | undefined;
  let world: World | undefined;

  before(async function () {
    const began = Date.now();
    topology = await Topology.start({
      ui: false,
      log: (line) => console.log(`      [cluster] ${line}`),
      // Prometheus with compose's rules, at hold times a test can wait for; the gauge counted every 2 s.
      prometheus: { holds: { EcaApplicationsBlocked: '10s', EcaWorkerDown: '10s' }, interval: '2s' },
      workerEnv: { ECA_METRICS_GAUGE_INTERVAL_MS: '2000' },
    });
    console.log(`      [cluster] up in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    world = await World.attach({
      address: topology.temporal.address,
      sim: topology.sim,
      codecKeys: topology.codecKeys,
      documentStore: topology.documentStore,
    });
  });

  after(async function () {
    printReports();
    await world?.close();
    const stopped = (await topology?.close()) ?? [];
    for (const { what, report } of stopped) assertGone(report, what);
  });

  it('runs every application to its expected state while a history process and an engine worker are killed', async function () {
    const cluster = topology!;
    const people = new Map<string, Applicant>();
    const report = await runFleet(world!, {
      name: 'cluster: history + engine worker SIGKILL',
      taskQueue: 'eca-onboarding',
      applications: APPLICATIONS,
      faultKinds: 'history-1 SIGKILL, engine worker SIGKILL',
      timeLimitMs: 15 * 60_000,
      supervise: () => restartExitedWorkers(cluster),
      diagnose: () =>
        cluster.workers
          .map((worker) => `${worker.name} ${worker.running ? 'running' : 'exited'}:\n${worker.output.slice(-1500)}`)
          .join('\n'),
      applicationXml: (externalId) => {
        const person = applicant('cluster', createHash('sha1').update(externalId).digest('hex').slice(0, 8));
        people.set(externalId, person);
        return personalXml(externalId, person);
      },
      disrupt: async (w) => {
        // A crash of one history process: its shards move to the other one, then it comes back.
        w.checkGone(await cluster.temporal.stopService('history-1', 'SIGKILL'), 'temporal history-1 SIGKILL');
        const [victim] = cluster.workers.splice(0, 1);
        w.checkGone(await victim!.stop('SIGKILL'), `${victim!.name} SIGKILL`);
        await sleep(5_000);
        await cluster.temporal.startService('history-1');
        await cluster.startWorker('engine worker 1 (restarted)');
        return 2;
      },
    });

    await assertHistoriesReplay(world!.client, world!.codecKeys, report.workflowIds, 'cluster');
    console.log(`      ${report.workflowIds.length} histories replayed without nondeterminism`);
    const documents = await assertDocumentsInDatabase(cluster, world!.client, report.workflowIds);
    console.log(
      `      document store: ${documents.rows} documents in the eca database, ` +
        `${documents.responseFiles} response files kept there by the workers`,
    );

    // Every history as the official CLI exports it: no personal data, every payload ciphertext.
    const cli = await devServerExecutable();
    if (cli.type !== 'existing-path') assert.fail('the CLI export needs the temporal binary');
    // What every applicant's fields start with (so that no applicant's data is in any history), and
    // the application's own applicant whole.
    const shared = ['Ottolinecluster', 'Quarringtoncluster', '@mailbox.example', 'DLCLUSTER'];
    // The fleet alternates between the world's firms (the XML service's and the Web API's).
    const byWorkflowId = new Map(
      [...people].flatMap(([externalId, person]) =>
        world!.firms.map((csid) => [applicationWorkflowId(csid, externalId), person] as const),
      ),
    );
    const queue = [...report.workflowIds];
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        for (let workflowId = queue.shift(); workflowId; workflowId = queue.shift()) {
          const { stdout } = await run(
            cli.path,
            [
              'workflow',
              'show',
              '--workflow-id',
              workflowId,
              '--address',
              cluster.temporal.address,
              '--output',
              'json',
            ],
            { maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
          );
          const history = JSON.parse(stdout) as { events: unknown[] };
          assert.ok(history.events.length > 10, `${workflowId}: a whole history`);
          const person = byWorkflowId.get(workflowId);
          assert.ok(person, `${workflowId}: an application of this fleet`);
          const payloads = assertPrivateHistory(workflowId, history, [...shared, ...personalFields(person)]);
          assert.ok(payloads.length > 5, `${workflowId}: payloads found`);
        }
      }),
    );
    console.log(
      `      ${report.workflowIds.length} histories exported with the temporal CLI: no personal data, every payload encrypted`,
    );
  });

  it('Prometheus scrapes every part, and raises "worker down" for a killed worker and "blocked" for a blocked application', async function () {
    const cluster = topology!;
    const prometheus = cluster.prometheus!;
    // What the rules and the dashboard read, from the real scrape of the fleet's workers and Temporal services.
    // Series that only exist after an event (a configuration error, a failed workflow task, an empty poll,
    // a daily documents run, a missed schedule) are checked against the code in test/e2e/deploy/prometheus.test.ts.
    const names = new Set(await prometheus.metricNames());
    const scraped = [
      'up',
      'eca_applications',
      'eca_brokerage_calls',
      'eca_brokerage_call_duration_ms_bucket',
      'eca_sweep_slots',
      'eca_sweep_last_success_seconds',
      'eca_sweep_duration_ms_bucket',
      'eca_sweep_brokerage_calls',
      'temporal_workflow_task_queue_poll_succeed',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_workflow_endtoend_latency_bucket',
      'service_requests',
    ];
    assert.deepEqual(
      scraped.filter((name) => !names.has(name)),
      [],
      'metrics the rules or the dashboard read, missing from the scrape',
    );
    const temporalTargets = (await prometheus.targets()).filter((target) => target.labels.job === 'temporal-server');
    assert.ok(temporalTargets.length >= 4, `Temporal services scraped: ${temporalTargets.length}`);

    const firing = async (alert: string, match: (labels: Record<string, string>) => boolean) => {
      const began = Date.now();
      const giveUpAt = began + 180_000;
      let seen: PrometheusAlert[] = [];
      while (Date.now() < giveUpAt) {
        seen = await prometheus.alerts();
        const found = seen.find((a) => a.labels.alertname === alert && a.state === 'firing' && match(a.labels));
        if (found) {
          console.log(
            `      Prometheus: ${alert} firing ${((Date.now() - began) / 1000).toFixed(1)} s after the fault`,
          );
          return found;
        }
        await sleep(1000);
      }
      assert.fail(
        `${alert} did not fire within 180 s; alerts: ${JSON.stringify(seen.map((a) => [a.labels, a.state]))}`,
      );
    };

    // A worker killed (and not started again): its target goes down and the alert fires for it. One that
    // exited by itself since the fleet's run is restarted first, as its supervisor would.
    await restartExitedWorkers(cluster);
    const victim = cluster.workers.at(-1)!;
    const instance = cluster.workerMetrics.get(victim)!;
    world!.checkGone(await victim.stop('SIGKILL'), `${victim.name} SIGKILL`);
    const down = await firing('EcaWorkerDown', (labels) => labels.instance === instance);
    assert.equal(down.labels.severity, 'critical');
    assert.equal(down.annotations.runbook_url, 'docs/operate.md#ecaworkerdown');

    // No application is blocked yet: the alert is quiet.
    assert.ok(!(await prometheus.alerts()).some((a) => a.labels.alertname === 'EcaApplicationsBlocked'));
    // An application whose XML is gone from the store before a worker takes it: started on a queue of its
    // own, the XML deleted, then a worker for that queue blocks it past a 5-s bound (a configuration error).
    const queue = 'eca-alerts';
    const xml = personalXml('alert-blocked-1', applicant('cluster', 'alerts01'));
    await startApplication(world!.context(queue), { applicationXml: xml });
    await world!.store.delete(await world!.store.put(new TextEncoder().encode(xml)));
    const blocker = await startWorkerProcess('blocking worker', {
      temporalAddress: cluster.temporal.address,
      taskQueue: queue,
      simulator: cluster.sim,
      documentStore: cluster.documentStore,
      codecKeys: cluster.codecKeys,
      env: { ECA_BLOCK_AFTER_MS: '5000', ECA_WORKFLOW_BUNDLE_DIR: cluster.bundleDir },
    });
    try {
      const blocked = await firing('EcaApplicationsBlocked', () => true);
      assert.match(blocked.annotations.description ?? '', /^1 application\(s\) are blocked/);
    } finally {
      world!.checkGone(await blocker.stop(), 'blocking worker stop');
    }
  });

  it('serves the onboarding API from two replicas on the engine database: a key of the CLI, one application started on one and followed on the other', async function () {
    const cluster = topology!;
    assert.equal(cluster.apis.length, 2);
    const created = await run(
      process.execPath,
      [
        'bin/eca.js',
        'api-keys',
        'create',
        '--csid',
        cluster.sim.csid,
        '--role',
        'onboarding',
        '--name',
        'cluster',
        '-o',
        'json',
      ],
      { env: { ...process.env, ECA_DATABASE_URL: cluster.databaseUrl } },
    );
    const { key } = JSON.parse(created.stdout) as { key: string };
    const [first, second] = cluster.apis.map((api) => api.url);
    for (const url of [first, second]) assert.equal((await fetch(`${url}/readyz`)).status, 200, url);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/xml' };
    const externalId = 'happy-api-cluster';
    const xml = personalXml(externalId, applicant('cluster', 'api00001'));
    const started = await fetch(`${first}/v1/applications`, { method: 'POST', headers, body: xml });
    assert.equal(started.status, 201, await started.clone().text());
    const again = await fetch(`${second}/v1/applications`, { method: 'POST', headers, body: xml });
    assert.equal(again.status, 200, 'the second replica answers the same application');
    let state = '';
    for (let i = 0; i < 600 && state !== 'open'; i++) {
      const read = await fetch(`${second}/v1/applications/${externalId}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      assert.equal(read.status, 200);
      state = ((await read.json()) as { lifecycleState: string }).lifecycleState;
      if (state !== 'open') await sleep(200);
    }
    assert.equal(state, 'open');
    const records = await world!.records();
    assert.equal(records.externalIds.find((entry) => entry.externalId === externalId)?.accountsCreated, 1);

    // Prometheus's job eca-api scraped both replicas: the start counted on the first (201), the same start
    // again on the second (200), each with the key's firm and the route's pattern, never the external id.
    const [firstMetrics, secondMetrics] = cluster.apis.map((api) => cluster.apiMetrics.get(api.child)!);
    const starts = `eca_api_requests{job="eca-api", route="/v1/applications", method="POST", csid="${cluster.sim.csid}"}`;
    let counted: Array<{ metric: Record<string, string>; value: [number, string] }> = [];
    for (let i = 0; i < 60; i++) {
      counted = await cluster.prometheus!.query(starts);
      if (counted.length >= 2) break;
      await sleep(1000);
    }
    const byInstance = new Map(counted.map((sample) => [sample.metric.instance, sample]));
    assert.equal(byInstance.get(firstMetrics)?.metric.status, '201', JSON.stringify(counted));
    assert.equal(byInstance.get(secondMetrics)?.metric.status, '200', JSON.stringify(counted));
    const targets = (await cluster.prometheus!.targets()).filter((target) => target.labels.job === 'eca-api');
    assert.deepEqual(
      targets.map((target) => target.health),
      ['up', 'up'],
    );
    const labels = await cluster.prometheus!.query('count by (route) (eca_api_requests)');
    assert.ok(!labels.some((sample) => sample.metric.route?.includes(externalId)), 'a route label holds an id');
  });
});

/**
 * The production topology on one machine, every part a process of its own from the registries:
 * PostgreSQL, the Temporal services (frontend, matching, two history processes, internal worker) on
 * it, the namespace set up by `eca setup`, then the engine: the simulated brokerage, the codec server,
 * two engine workers, two replicas of the onboarding API on the engine's database (`eca` in the same
 * PostgreSQL), the Temporal UI server wired to the codec server, and Prometheus scraping the
 * workers and the Temporal services with compose's jobs and alert rules (deploy/prometheus/). The
 * document store is the engine's database too, as in compose: the workers share no directory.
 * `npm run cluster` and `npm run test:cluster` both stand on it.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateCodecKeyEntry } from '../../codec/index.js';
import pg from 'pg';
import { openDatabase } from '../../runtime/database/index.js';
import {
  freePort,
  SimulatorProcess,
  start,
  startApiProcess,
  startTypeScript,
  startWorkerProcess,
} from '../processes.js';
import type { Child, StopReport } from '../processes.js';
import { clusterExecutables, uiServerExecutable } from '../temporal-servers.js';
import { committedRules, PrometheusProcess, prometheusExecutables } from '../prometheus.js';
import { Postgres } from './postgres.js';
import { TemporalCluster } from './temporal.js';

export interface TopologyOptions {
  /** Engine workers to start (default 2). */
  workers?: number;
  /** Start the Temporal UI server (default true; skipped with a warning when it cannot be built). */
  ui?: boolean;
  /** Simulated time per real time of the brokerage (default 20000: a business day in about 4 s). */
  timeScale?: number;
  /** Further environment of the engine workers. */
  workerEnv?: NodeJS.ProcessEnv;
  /**
   * Prometheus's scrape interval (default: compose's, 15 s) and hold times of alerts other than the
   * committed rules' (`{ EcaWorkerDown: '10s' }`); `false` starts none.
   */
  prometheus?: PrometheusOptions | false;
  log?: (line: string) => void;
}

interface PrometheusOptions {
  holds?: Record<string, string>;
  interval?: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function elapsed(since: number): string {
  return `${((Date.now() - since) / 1000).toFixed(1)} s`;
}

export class Topology {
  readonly codecKeys = generateCodecKeyEntry('cluster');
  readonly codecToken = randomBytes(24).toString('hex');
  readonly postgres: Postgres;
  readonly sim: SimulatorProcess;
  temporal!: TemporalCluster;
  codecServer: Child | undefined;
  codecPort = 0;
  ui: Child | undefined;
  uiPort = 0;
  readonly workers: Child[] = [];
  /** The onboarding API's replicas (api/main.ts) and their addresses, on the engine's database. */
  readonly apis: Array<{ child: Child; url: string }> = [];
  /** Each API replica's metrics listener (`host:port`), scraped by Prometheus's job eca-api. */
  readonly apiMetrics = new Map<Child, string>();
  /** Every engine worker's metrics endpoint (`127.0.0.1:port`), kept when it stops: a dead one is a target down. */
  readonly workerMetrics = new Map<Child, string>();
  prometheus: PrometheusProcess | undefined;
  private readonly log: (line: string) => void;

  private constructor(
    readonly dir: string,
    readonly options: TopologyOptions,
  ) {
    this.log = options.log ?? (() => undefined);
    this.postgres = new Postgres({ dataDir: join(dir, 'postgres') });
    this.sim = new SimulatorProcess({ dataDir: join(dir, 'simulator'), timeScale: options.timeScale ?? 20_000 });
  }

  /**
   * ECA_DOCUMENT_STORE of the workers, the API replicas and any client: the engine's database, as in
   * compose (runtime/document-store-postgres.ts), so that no process depends on a shared directory.
   */
  get documentStore(): string {
    return this.databaseUrl;
  }

  /** The engine's database (API keys, documents) in the cluster's PostgreSQL: the `eca` database, as in compose. */
  get databaseUrl(): string {
    return this.postgres.url('eca');
  }

  get bundleDir(): string {
    return join(this.dir, 'workflow-bundles');
  }

  get uiUrl(): string | undefined {
    return this.ui ? `http://127.0.0.1:${this.uiPort}` : undefined;
  }

  get codecUrl(): string {
    return `http://127.0.0.1:${this.codecPort}`;
  }

  /** Brings every part up in order; on failure stops whatever did start before throwing. */
  static async start(options: TopologyOptions = {}): Promise<Topology> {
    const dir = await mkdtemp(join(tmpdir(), 'eca-cluster-'));
    let topology: Topology | undefined;
    try {
      // PostgreSQL runs as its own user when started by root: it must be able to pass through. Every
      // other directory is this user's alone (the simulator's keys, the UI's configuration).
      await chmod(dir, 0o711);
      for (const sub of ['simulator', 'temporal', 'ui', 'workflow-bundles', 'prometheus']) {
        await mkdir(join(dir, sub), { mode: 0o700 });
      }
      topology = new Topology(dir, options);
      await topology.bringUp();
    } catch (error) {
      if (topology) await topology.close().catch(() => undefined);
      else await rm(dir, { recursive: true, force: true });
      throw error;
    }
    return topology;
  }

  private async bringUp(): Promise<void> {
    const log = this.log;
    let began = Date.now();
    const executables = await clusterExecutables();
    const uiBinary =
      this.options.ui === false
        ? undefined
        : await uiServerExecutable().catch((error: unknown) => {
            log(`Temporal UI server not available, continuing without it: ${(error as Error).message.split('\n')[0]}`);
            return undefined;
          });
    log(`binaries ready (${elapsed(began)})`);

    began = Date.now();
    await this.postgres.start();
    log(`PostgreSQL on 127.0.0.1:${this.postgres.port}, pid ${this.postgres.child?.pid} (${elapsed(began)})`);

    began = Date.now();
    this.temporal = new TemporalCluster({ dir: join(this.dir, 'temporal'), postgres: this.postgres, executables });
    await this.temporal.setupSchemas(log);
    log(`schemas set up (${elapsed(began)})`);
    began = Date.now();
    await this.temporal.start(log);
    log(`Temporal frontend on ${this.temporal.address} (${elapsed(began)})`);

    began = Date.now();
    await this.setupNamespace();
    log(`namespace set up with eca setup (${elapsed(began)})`);

    began = Date.now();
    await this.createEngineDatabase();
    log(`engine database eca created and migrated (${elapsed(began)})`);

    began = Date.now();
    // The workers load a prebuilt workflow bundle, as in the image (Dockerfile), instead of bundling at start.
    const bundler = startTypeScript('build-workflow-bundle', 'scripts/build-workflow-bundle.ts', [this.bundleDir]);
    if ((await bundler.exited) !== 0) throw new Error(`building the workflow bundle failed:\n${bundler.output}`);
    log(`workflow bundles prebuilt in ${this.bundleDir} (${elapsed(began)})`);

    began = Date.now();
    await this.sim.start();
    this.codecPort = await freePort();
    if (uiBinary) this.uiPort = await freePort();
    this.codecServer = startTypeScript('codec server', 'codec/main.ts', [], {
      ECA_CODEC_KEYS: this.codecKeys,
      ECA_CODEC_SERVER_TOKEN: this.codecToken,
      ECA_CODEC_SERVER_PORT: String(this.codecPort),
      ECA_CODEC_SERVER_HOST: '127.0.0.1',
      // The browser's origin when it shows the UI (CORS).
      ECA_CODEC_UI_ORIGINS: `http://127.0.0.1:${this.uiPort}`,
    });
    if (uiBinary) await this.startUi(uiBinary);
    await this.codecServer.waitFor(/eca codec server on/, 60_000);
    for (let i = 1; i <= (this.options.workers ?? 2); i++) await this.startWorker(`engine worker ${i}`);
    await this.startApis(2);
    log(
      `simulator ${this.sim.url} (CSID ${this.sim.csid}), codec server ${this.codecUrl}, ` +
        `${this.workers.length} engine workers, onboarding API ${this.apis.map((api) => api.url).join(' ')}` +
        `${this.ui ? `, UI ${this.uiUrl}` : ''} (${elapsed(began)})`,
    );
    if (this.options.prometheus !== false) {
      began = Date.now();
      await this.startPrometheus(this.options.prometheus ?? {});
      log(`Prometheus ${this.prometheus!.url}, alert rules loaded (${elapsed(began)})`);
    }
  }

  /**
   * Prometheus with compose's jobs (deploy/prometheus/prometheus.yml) and rules; the workers' targets are a
   * file Prometheus watches (file_sd), rewritten as workers start, where compose finds them by DNS.
   */
  private async startPrometheus(options: PrometheusOptions): Promise<void> {
    const { prometheus: binary } = await prometheusExecutables();
    const dir = join(this.dir, 'prometheus');
    this.prometheus = new PrometheusProcess({ binary, dir, port: await freePort() });
    const temporal = this.temporal.metricsEndpoints().map((endpoint) => new URL(endpoint.url).host);
    const interval = options.interval ?? '15s';
    const config = {
      global: { scrape_interval: interval, evaluation_interval: interval },
      rule_files: ['alerts.yml'],
      scrape_configs: [
        {
          job_name: 'eca-worker',
          file_sd_configs: [{ files: [join(dir, 'workers.json')], refresh_interval: interval }],
        },
        { job_name: 'eca-api', static_configs: [{ targets: [...this.apiMetrics.values()] }] },
        { job_name: 'temporal-server', static_configs: [{ targets: temporal }] },
      ],
    };
    await this.prometheus.start({
      'workers.json': this.workerTargets(),
      // JSON is YAML.
      'prometheus.yml': `${JSON.stringify(config, null, 2)}\n`,
      'alerts.yml': await committedRules(options.holds),
    });
  }

  private workerTargets(): string {
    return JSON.stringify([{ targets: [...this.workerMetrics.values()] }]);
  }

  /** `eca setup`, run as the command operators run: a process of its own. */
  private async setupNamespace(): Promise<void> {
    const giveUpAt = Date.now() + 120_000;
    for (;;) {
      const setup = startTypeScript('eca setup', 'bin/eca.js', ['setup', '--retention', '30d'], {
        TEMPORAL_ADDRESS: this.temporal.address,
        TEMPORAL_NAMESPACE: 'default',
      });
      const code = await setup.exited;
      for (const line of setup.output.trim().split('\n')) if (line) this.log(`  ${line}`);
      if (code === 0) return;
      // The frontend can take a few seconds to see the history hosts after they start.
      if (Date.now() > giveUpAt) throw new Error(`eca setup failed (exit ${code}):\n${setup.output}`);
      await sleep(2000);
    }
  }

  private async startUi(binary: string): Promise<void> {
    const root = join(this.dir, 'ui');
    await mkdir(join(root, 'config'), { recursive: true });
    // The codec endpoint carries the token in its path: the UI hands it to whoever loads the page,
    // which here is only this machine (everything listens on 127.0.0.1).
    await writeFile(
      join(root, 'config', 'development.yaml'),
      [
        `temporalGrpcAddress: ${this.temporal.address}`,
        'host: 127.0.0.1',
        `port: ${this.uiPort}`,
        'enableUi: true',
        'defaultNamespace: default',
        'notifyOnNewVersion: false',
        'cors:',
        '  allowOrigins:',
        `    - http://127.0.0.1:${this.uiPort}`,
        'codec:',
        `  endpoint: ${this.codecUrl}/${this.codecToken}`,
        '',
      ].join('\n'),
      { mode: 0o600 },
    );
    const args = ['--root', root, '--config', 'config', '--env', 'development', 'start'];
    // Kept before it answers, so that a failed start is stopped by close() too.
    const ui = (this.ui = start('temporal ui-server', binary, args, {}, { cwd: root }));
    await ui.waitForHttp(`http://127.0.0.1:${this.uiPort}/`, 60_000);
  }

  /** One more engine worker process on the default task queue, as configured in production. */
  async startWorker(name: string): Promise<Child> {
    const metrics = `127.0.0.1:${await freePort()}`;
    const worker = await startWorkerProcess(name, {
      temporalAddress: this.temporal.address,
      taskQueue: 'eca-onboarding',
      simulator: this.sim,
      documentStore: this.documentStore,
      codecKeys: this.codecKeys,
      env: {
        ECA_WORKFLOW_BUNDLE_DIR: this.bundleDir,
        ECA_POLL_BATCH_WINDOW_MS: '50',
        WORKER_SHUTDOWN_GRACE_MS: '2000',
        ECA_METRICS_ADDRESS: metrics,
        ...this.options.workerEnv,
      },
    });
    this.workers.push(worker);
    this.workerMetrics.set(worker, metrics);
    // Prometheus reads the file again when it changes (file_sd).
    if (this.prometheus) await writeFile(join(this.dir, 'prometheus', 'workers.json'), this.workerTargets());
    return worker;
  }

  /**
   * The `eca` database, created and brought to the current schema once, before any worker or API replica
   * opens it (each would migrate it too, one at a time under the migrations' advisory lock: nothing left to do).
   */
  private async createEngineDatabase(): Promise<void> {
    const admin = new pg.Client({ connectionString: this.postgres.url('postgres') });
    await admin.connect();
    try {
      await admin.query('CREATE DATABASE eca');
    } finally {
      await admin.end();
    }
    await (await openDatabase(this.databaseUrl)).close();
  }

  /** The onboarding API's replicas on the `eca` database (created by createEngineDatabase). */
  private async startApis(count: number): Promise<void> {
    for (let i = 1; i <= count; i++) {
      const metrics = `127.0.0.1:${await freePort()}`;
      const api = await startApiProcess(`onboarding api ${i}`, {
        temporalAddress: this.temporal.address,
        taskQueue: 'eca-onboarding',
        simulator: this.sim,
        documentStore: this.documentStore,
        codecKeys: this.codecKeys,
        databaseUrl: this.databaseUrl,
        // The simulator's business day passes in seconds: applications started here poll each second.
        env: { ECA_POLL_INTERVAL: '1 second', ECA_METRICS_ADDRESS: metrics },
      });
      this.apis.push(api);
      this.apiMetrics.set(api.child, metrics);
    }
  }

  /** Every process this topology started, for a summary. */
  processes(): Array<{ name: string; pid: number | undefined }> {
    return [
      { name: 'postgres', pid: this.postgres.child?.pid },
      ...[...(this.temporal?.processes ?? new Map<string, Child>())].map(([, child]) => ({
        name: child.name,
        pid: child.pid,
      })),
      { name: 'simulator', pid: this.sim.child?.pid },
      { name: 'codec server', pid: this.codecServer?.pid },
      ...this.apis.map(({ child }) => ({ name: child.name, pid: child.pid })),
      ...this.workers.map((worker) => ({ name: worker.name, pid: worker.pid })),
      ...(this.ui ? [{ name: 'temporal ui-server', pid: this.ui.pid }] : []),
      { name: 'prometheus', pid: this.prometheus?.child?.pid },
    ].filter((entry) => entry.pid !== undefined);
  }

  /**
   * Stops every process, the engine first, then Temporal, then PostgreSQL (each stop attempted even
   * when another fails), and removes the directory; answers the stop reports.
   */
  async close(): Promise<Array<{ what: string; report: StopReport | undefined }>> {
    const stopped: Array<{ what: string; report: StopReport | undefined }> = [];
    const stop = async (what: string, child: { stop(): Promise<StopReport | undefined> } | undefined) => {
      if (!child) return;
      try {
        stopped.push({ what, report: await child.stop() });
      } catch (error) {
        this.log(`${what}: ${(error as Error).message}`);
      }
    };
    await Promise.all(this.workers.filter((w) => w.running).map((worker) => stop(`${worker.name} stop`, worker)));
    await stop('prometheus stop', this.prometheus?.child ? this.prometheus : undefined);
    await stop('temporal ui-server stop', this.ui);
    await stop('codec server stop', this.codecServer);
    await Promise.all(this.apis.map(({ child }) => stop(`${child.name} stop`, child)));
    await stop('simulator stop', this.sim.child ? this.sim : undefined);
    if (this.temporal) stopped.push(...(await this.temporal.stop()));
    await stop('postgres stop', this.postgres.child ? this.postgres : undefined);
    await rm(this.dir, { recursive: true, force: true });
    return stopped;
  }
}

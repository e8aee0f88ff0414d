/**
 * A Temporal cluster on PostgreSQL, each service a process of its own: frontend, matching, two
 * history processes sharing the shards, and the internal worker. Built from the Go module proxy
 * (scripts/temporal-servers.ts), configured by scripts/cluster/temporal.yaml, schemas set up with
 * temporal-sql-tool. Every process can be stopped, killed and started again on its ports.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { start } from '../processes.js';
import { runCommand } from '../run-command.js';
import type { Child, StopReport } from '../processes.js';
import type { ClusterExecutables } from '../temporal-servers.js';
import type { Postgres } from './postgres.js';

export const SERVICES = ['frontend', 'matching', 'history-1', 'history-2', 'worker'] as const;
export type ServiceName = (typeof SERVICES)[number];

const HERE = fileURLToPath(new URL('.', import.meta.url));

/** The databases and the schema each holds (names of temporal-sql-tool's embedded schemas). */
const DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
] as const;

export class ClusterError extends Error {
  override readonly name = 'ClusterError';
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Ports {
  grpc: number;
  membership: number;
  metrics: number;
  http?: number;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return runCommand(command, args, { env, fail: (message) => new ClusterError(message) });
}

/**
 * A port that was free a moment ago, below 32768: the cluster's membership table keeps ports as a
 * PostgreSQL smallint, so the kernel's ephemeral range (which freePort draws from) does not fit.
 */
async function freeLowPort(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) {
      taken.add(port);
      return port;
    }
  }
  throw new ClusterError('no free port found between 20000 and 32000');
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface TemporalClusterOptions {
  /** Where the configuration is written. */
  dir: string;
  postgres: Postgres;
  executables: ClusterExecutables;
  /** History shards, shared by the history processes (default 8). */
  shards?: number;
  /** The server's log level (default warn). */
  logLevel?: string;
}

export class TemporalCluster {
  readonly processes = new Map<ServiceName, Child>();
  private readonly ports = new Map<ServiceName, Ports>();

  constructor(readonly options: TemporalClusterOptions) {}

  /** The frontend, for clients and workers. */
  get address(): string {
    return `127.0.0.1:${this.port('frontend').grpc}`;
  }

  /** Each process's Prometheus endpoint. */
  metricsEndpoints(): Array<{ service: ServiceName; url: string }> {
    return SERVICES.map((service) => ({ service, url: `http://127.0.0.1:${this.port(service).metrics}/metrics` }));
  }

  private port(service: ServiceName): Ports {
    const ports = this.ports.get(service);
    if (!ports) throw new ClusterError('the cluster has not been configured (call start)');
    return ports;
  }

  /** Creates both databases and brings their schemas to the version this server needs. */
  async setupSchemas(log: (line: string) => void): Promise<void> {
    const env = this.options.postgres.sqlToolEnv();
    const tool = this.options.executables.sqlTool;
    for (const database of DATABASES) {
      const db = ['--db', database.name];
      await run(tool, [...db, 'create-database'], env);
      await run(tool, [...db, 'setup-schema', '-v', '0.0'], env);
      await run(tool, [...db, 'update-schema', '--schema-name', database.schema], env);
      log(`database ${database.name}: schema ${database.schema} up to date`);
    }
  }

  private async configure(): Promise<void> {
    const config = join(this.options.dir, 'config');
    await mkdir(config, { recursive: true });
    await copyFile(join(HERE, 'temporal.yaml'), join(config, 'development.yaml'));
    await copyFile(join(HERE, 'dynamic-config.yaml'), join(config, 'dynamic-config.yaml'));
    const taken = new Set<number>();
    for (const service of SERVICES) {
      if (this.ports.has(service)) continue;
      this.ports.set(service, {
        grpc: await freeLowPort(taken),
        membership: await freeLowPort(taken),
        metrics: await freeLowPort(taken),
        ...(service === 'frontend' ? { http: await freeLowPort(taken) } : {}),
      });
    }
  }

  /** The environment the configuration template reads, for one process. */
  private env(service: ServiceName): NodeJS.ProcessEnv {
    const pg = this.options.postgres;
    const history = this.port(service === 'history-2' ? 'history-2' : 'history-1');
    const own = this.port(service);
    const p = (name: ServiceName) => this.port(name);
    return {
      TEMPORAL_LOG_LEVEL: this.options.logLevel ?? 'warn',
      TEMPORAL_NUM_HISTORY_SHARDS: String(this.options.shards ?? 8),
      TEMPORAL_DB_PORT: String(pg.port),
      TEMPORAL_DB_USER: pg.user,
      TEMPORAL_DB_PASSWORD: pg.password,
      TEMPORAL_METRICS_PORT: String(own.metrics),
      TEMPORAL_FRONTEND_GRPC_PORT: String(p('frontend').grpc),
      TEMPORAL_FRONTEND_MEMBERSHIP_PORT: String(p('frontend').membership),
      TEMPORAL_FRONTEND_HTTP_PORT: String(p('frontend').http),
      TEMPORAL_MATCHING_GRPC_PORT: String(p('matching').grpc),
      TEMPORAL_MATCHING_MEMBERSHIP_PORT: String(p('matching').membership),
      // A history process takes its own ports; the others only need some history ports to render.
      TEMPORAL_HISTORY_GRPC_PORT: String(history.grpc),
      TEMPORAL_HISTORY_MEMBERSHIP_PORT: String(history.membership),
      TEMPORAL_WORKER_GRPC_PORT: String(p('worker').grpc),
      TEMPORAL_WORKER_MEMBERSHIP_PORT: String(p('worker').membership),
      TEMPORAL_DYNAMIC_CONFIG_FILE: join(this.options.dir, 'config', 'dynamic-config.yaml'),
    };
  }

  /**
   * Starts one service's process and waits until it listens: on its gRPC port, or for the internal
   * worker, which serves no gRPC, on its membership port.
   */
  async startService(service: ServiceName): Promise<Child> {
    const role = service.startsWith('history') ? 'history' : service;
    const child = start(
      `temporal ${service}`,
      this.options.executables.server,
      // No authorizer: every port listens on 127.0.0.1 only.
      [
        '--root',
        this.options.dir,
        '--config',
        'config',
        '--env',
        'development',
        '--allow-no-auth',
        'start',
        '--service',
        role,
      ],
      this.env(service),
      { cwd: this.options.dir },
    );
    this.processes.set(service, child);
    const port = service === 'worker' ? this.port(service).membership : this.port(service).grpc;
    const giveUpAt = Date.now() + 90_000;
    while (!(await listening(port))) {
      if (!child.running) throw new ClusterError(`temporal ${service} exited at start:\n${child.output}`);
      if (Date.now() > giveUpAt) {
        await child.stop('SIGKILL');
        throw new ClusterError(`temporal ${service} did not listen on ${port} within 90 s:\n${child.output}`);
      }
      await sleep(200);
    }
    return child;
  }

  /** Writes the configuration and starts every service, history first (the others call it). */
  async start(log: (line: string) => void): Promise<void> {
    await this.configure();
    for (const service of ['history-1', 'history-2', 'matching', 'frontend', 'worker'] as const) {
      const began = Date.now();
      const child = await this.startService(service);
      log(`temporal ${service}: pid ${child.pid}, listening (${((Date.now() - began) / 1000).toFixed(1)} s)`);
    }
  }

  /** Stops (SIGTERM: drains) or kills (SIGKILL: a crash) one service; answers the stop's report. */
  async stopService(service: ServiceName, signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<StopReport | undefined> {
    return this.processes.get(service)?.stop(signal, 20_000);
  }

  /** Stops every service, the frontend first so that no new work comes in. */
  async stop(): Promise<Array<{ what: string; report: StopReport | undefined }>> {
    const stopped: Array<{ what: string; report: StopReport | undefined }> = [];
    for (const service of ['frontend', 'worker', 'matching', 'history-1', 'history-2'] as const) {
      const child = this.processes.get(service);
      if (child?.running)
        stopped.push({ what: `temporal ${service} stop`, report: await child.stop('SIGTERM', 20_000) });
    }
    return stopped;
  }
}

/**
 * The engine's parts as processes: the Temporal CLI dev server on a database file, the simulator on a
 * data dir, and worker processes configured through their environment (runtime/config.ts). Each is
 * restartable on the same port, file or queue. Loopback addresses only.
 */
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { Connection } from '@temporalio/client';
import { setupNamespace } from '../../client/setup.js';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable } from '../temporal-servers.js';
import { start, startTypeScript } from './child.js';
import type { Child, StopReport } from './child.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface DevServerOptions {
  /** The SQLite file: executions survive a restart on the same file. In memory when absent. */
  dbFile?: string;
  port?: number;
  /** `--sqlite-pragma` values, e.g. `journal_mode=WAL`. */
  sqlitePragmas?: string[];
  /** Further `--dynamic-config-value KEY=VALUE` entries. */
  dynamicConfig?: string[];
}

/** The Temporal CLI dev server as a process of its own, restartable on the same database file. */
export class DevServer {
  child: Child | undefined;
  port = 0;

  constructor(readonly options: DevServerOptions) {}

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const executable = await devServerExecutable();
    if (executable.type !== 'existing-path') throw new Error('the dev server is not provisioned (npm run servers)');
    this.port ||= this.options.port ?? (await freePort());
    const args = [
      'server',
      'start-dev',
      '--headless',
      '--ip',
      '127.0.0.1',
      '--port',
      String(this.port),
      ...(this.options.dbFile ? ['--db-filename', this.options.dbFile] : []),
      '--log-level',
      'error',
      ...DEV_SERVER_EXTRA_ARGS,
      ...(this.options.dynamicConfig ?? []).flatMap((value) => ['--dynamic-config-value', value]),
      ...(this.options.sqlitePragmas ?? []).flatMap((pragma) => ['--sqlite-pragma', pragma]),
    ];
    const child = (this.child = start('temporal dev server', executable.path, args));
    // Ready once the frontend answers.
    const giveUpAt = Date.now() + 60_000;
    let connection: Connection | undefined;
    while (!connection) {
      try {
        connection = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await connection.workflowService.getSystemInfo({});
      } catch (error) {
        await connection?.close();
        connection = undefined;
        if (!child.running) throw new Error(`the dev server exited:\n${child.output}`, { cause: error });
        if (Date.now() > giveUpAt) {
          await child.stop('SIGKILL');
          throw new Error(`the dev server did not answer in 60 s:\n${child.output}`);
        }
        await sleep(200);
      }
    }
    try {
      // The engine's search attributes, as on every server: through the project's setup step.
      await setupNamespace(connection, { namespace: 'default' });
    } finally {
      await connection.close();
    }
  }

  /** Stops the server's process group; the report says whether anything outlived it. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<StopReport | undefined> {
    return this.child?.stop(signal);
  }

  /** Stops (see `stop`) and starts again on the same port and file; answers the stop's report. */
  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<StopReport | undefined> {
    const report = await this.stop(signal);
    await this.start();
    return report;
  }
}

export interface SimulatorProcessOptions {
  /** State and keys survive a restart here; in memory (keys in a temporary directory) when absent. */
  dataDir?: string;
  timeScale: number;
  port?: number;
  startTime?: string;
  /** `MIN-MAX` ms: look-ups list a processed write that late (`--listing-lag`, simulator/listing-lag.ts). */
  listingLag?: string;
  /** The algorithm of the keys made on a first start (`--keys`): curve25519 unless told. */
  keys?: 'curve25519' | 'rsa4096';
  /** Readings the spec does not promise that the simulator breaks (`--unpromised`: `all` or names). */
  unpromised?: string;
}

/** The simulator CLI (simulator/main.ts) on a data dir, restartable on the same port. */
export class SimulatorProcess {
  child: Child | undefined;
  port = 0;
  csid = '';
  keysDir = '';

  constructor(readonly options: SimulatorProcessOptions) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = [
      '--port',
      String(this.port || this.options.port || 0),
      ...(this.options.dataDir ? ['--data-dir', this.options.dataDir] : []),
      '--time-scale',
      String(this.options.timeScale),
      ...(this.options.startTime ? ['--start-time', this.options.startTime] : []),
      ...(this.options.listingLag ? ['--listing-lag', this.options.listingLag] : []),
      ...(this.options.keys ? ['--keys', this.options.keys] : []),
      ...(this.options.unpromised ? ['--unpromised', this.options.unpromised] : []),
    ];
    const child = (this.child = startTypeScript('simulator', 'simulator/main.ts', args));
    let match: RegExpExecArray;
    try {
      match = await child.waitFor(
        /ECA simulator listening on http:\/\/127\.0\.0\.1:(\d+) \(CSID (\S+), keys in (.+)\)/,
        60_000,
      );
    } catch (error) {
      await child.stop('SIGKILL');
      throw error;
    }
    this.port = Number(match[1]);
    this.csid = match[2]!;
    this.keysDir = match[3]!;
  }

  /** Stops the simulator's process group; the report says whether anything outlived it. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<StopReport | undefined> {
    return this.child?.stop(signal);
  }

  /** Calls counted by earlier runs of the process (the counts start again at zero on a restart). */
  readonly carriedCalls: Record<string, number> = {};

  /** Stops (SIGTERM: the state is written) and starts again on the same port; answers the stop's report. */
  async restart(): Promise<StopReport | undefined> {
    const { calls } = await this.control<{ calls: Record<string, number> }>('GET', '/calls');
    for (const [operation, n] of Object.entries(calls)) {
      this.carriedCalls[operation] = (this.carriedCalls[operation] ?? 0) + n;
    }
    const report = await this.stop();
    await this.start();
    return report;
  }

  /** Calls per operation since the first start, faulted ones included. */
  async calls(): Promise<Record<string, number>> {
    const { calls } = await this.control<{ calls: Record<string, number> }>('GET', '/calls');
    const total = { ...this.carriedCalls };
    for (const [operation, n] of Object.entries(calls)) total[operation] = (total[operation] ?? 0) + n;
    return total;
  }

  /** A control API call (`/_sim/...`). */
  async control<T = unknown>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}/_sim${path}`, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? null : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`simulator control ${method} ${path}: HTTP ${response.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}

export interface WorkerProcessOptions {
  temporalAddress: string;
  taskQueue: string;
  simulator: SimulatorProcess;
  documentStore: string;
  /** `ECA_CODEC_KEYS`; payloads are not encrypted when absent. */
  codecKeys?: string;
  /**
   * `ECA_DATABASE_URL` (the event log, API keys...): the same PostgreSQL as the document store when it is
   * one, otherwise embedded PostgreSQL beside the store's directory, shared by the processes that share the store.
   */
  databaseUrl?: string;
  /** Further environment (WORKER_MAX_CACHED_WORKFLOWS, ECA_TIMEOUT_MS, ...). */
  env?: NodeJS.ProcessEnv;
  /** A compiled worker entry run by `node` alone (an installed package's dist/workers/main.js); the sources by default. */
  compiledEntry?: string;
}

/** The database of processes that share the document store `documentStore` (see `databaseUrl`). */
export function databaseBeside(documentStore: string): string {
  if (/^postgres(ql)?:/i.test(documentStore)) return documentStore;
  return `pglite:${join(dirname(resolve(documentStore)), 'database')}`;
}

/** The engine's environment for the simulator as the brokerage: a worker's, and the API's (SSO links). */
export function engineEnv(options: WorkerProcessOptions): NodeJS.ProcessEnv {
  const sim = options.simulator;
  return {
    TEMPORAL_ADDRESS: options.temporalAddress,
    ECA_TASK_QUEUE: options.taskQueue,
    ECA_CSID: sim.csid,
    ECA_BASE_URL: sim.url,
    ECA_PREFERENCE_URL: `${sim.url}/pref`,
    ECA_FIRM_PRIVATE_KEY: join(sim.keysDir, 'firm-private.asc'),
    ECA_BROKERAGE_PUBLIC_KEY: join(sim.keysDir, 'brokerage-public.asc'),
    ECA_SSO_ALLOW_INSECURE_LOOPBACK: 'true',
    ECA_DOCUMENT_STORE: options.documentStore,
    ECA_DATABASE_URL: options.databaseUrl ?? databaseBeside(options.documentStore),
    ECA_LOG_LEVEL: 'WARN',
    ...(options.codecKeys ? { ECA_CODEC_KEYS: options.codecKeys } : { ECA_CODEC_DISABLED: 'true' }),
    ...options.env,
  };
}

/** One worker process (workers/main.ts), configured as in production: through its environment. */
export async function startWorkerProcess(name: string, options: WorkerProcessOptions): Promise<Child> {
  const env = engineEnv(options);
  const child = options.compiledEntry
    ? start(name, process.execPath, [options.compiledEntry], env, { cwd: dirname(options.compiledEntry) })
    : startTypeScript(name, 'workers/main.ts', [], env);
  try {
    await child.waitFor(/eca worker polling task queue/, 120_000);
  } catch (error) {
    await child.stop('SIGKILL');
    throw error;
  }
  return child;
}

/** One onboarding API process (api/main.ts) on `databaseUrl` and a free port; answers it and its address. */
export async function startApiProcess(
  name: string,
  options: Omit<WorkerProcessOptions, 'compiledEntry'>,
): Promise<{ child: Child; url: string }> {
  // A free port unless the caller's environment names one (a restart on the same port).
  const env = { ECA_API_PORT: '0', ...engineEnv(options) };
  const child = startTypeScript(name, 'api/main.ts', [], env);
  try {
    const [, url] = await child.waitFor(/eca api on (http:\/\/\S+) /, 120_000);
    return { child, url: url! };
  } catch (error) {
    await child.stop('SIGKILL');
    throw error;
  }
}

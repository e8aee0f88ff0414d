/**
 * The engine's parts as real operating-system processes, for the fault-injection suite and the
 * benchmark: the Temporal CLI dev server on a database file, the simulator on a data dir, and worker
 * processes configured through their environment (workers/config.ts). Each can be stopped (SIGTERM),
 * killed (SIGKILL) and started again on the same port, file or queue. Loopback addresses only.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { SearchAttributeType } from '@temporalio/common';
import { ECA_SEARCH_ATTRIBUTES } from '../workflows/search-attributes.js';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable } from './temporal-servers.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');

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

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A child process with its output kept (the last 20 kB) for error messages. */
export class Child {
  output = '';
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly process: ChildProcess,
  ) {
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    process.stdout?.on('data', keep);
    process.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      process.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null)));
    });
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  /** Waits until the output matches, the process exits, or the time is up. */
  async waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (!this.running) throw new Error(`${this.name} exited before ${String(pattern)}:\n${this.output}`);
      await sleep(50);
    }
    throw new Error(`${this.name}: no ${String(pattern)} within ${timeoutMs} ms:\n${this.output}`);
  }

  /** SIGTERM (a stop) or SIGKILL (a crash), then waits for the exit. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM', graceMs = 15_000): Promise<void> {
    if (!this.running) return;
    this.process.kill(signal);
    const exited = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    if (!exited && this.running) {
      this.process.kill('SIGKILL');
      await this.exited;
    }
  }
}

function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Child {
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Child(name, child);
}

function searchAttributeType(type: SearchAttributeType): string {
  switch (type) {
    case SearchAttributeType.DATETIME:
      return 'Datetime';
    case SearchAttributeType.TEXT:
      return 'Text';
    case SearchAttributeType.INT:
      return 'Int';
    case SearchAttributeType.DOUBLE:
      return 'Double';
    case SearchAttributeType.BOOL:
      return 'Bool';
    case SearchAttributeType.KEYWORD_LIST:
      return 'KeywordList';
    default:
      return 'Keyword';
  }
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
      ...ECA_SEARCH_ATTRIBUTES.flatMap((key) => ['--search-attribute', `${key.name}=${searchAttributeType(key.type)}`]),
    ];
    this.child = start('temporal dev server', executable.path, args);
    // Ready once the frontend answers.
    const deadline = Date.now() + 60_000;
    for (;;) {
      try {
        const connection = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await connection.workflowService.getSystemInfo({});
        await connection.close();
        return;
      } catch (error) {
        if (!this.child.running) throw new Error(`the dev server exited:\n${this.child.output}`, { cause: error });
        if (Date.now() > deadline) throw new Error(`the dev server did not answer in 60 s:\n${this.child.output}`);
        await sleep(200);
      }
    }
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.child?.stop(signal);
  }

  async restart(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }
}

export interface SimulatorProcessOptions {
  /** State and keys survive a restart here; in memory (keys in a temporary directory) when absent. */
  dataDir?: string;
  timeScale: number;
  port?: number;
  startTime?: string;
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
      'simulator/main.ts',
      '--port',
      String(this.port || this.options.port || 0),
      ...(this.options.dataDir ? ['--data-dir', this.options.dataDir] : []),
      '--time-scale',
      String(this.options.timeScale),
      ...(this.options.startTime ? ['--start-time', this.options.startTime] : []),
    ];
    this.child = start('simulator', TSX, args);
    const match = await this.child.waitFor(
      /ECA simulator listening on http:\/\/127\.0\.0\.1:(\d+) \(CSID (\S+), keys in (.+)\)/,
      60_000,
    );
    this.port = Number(match[1]);
    this.csid = match[2]!;
    this.keysDir = match[3]!;
  }

  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    await this.child?.stop(signal);
  }

  /** Calls counted by earlier runs of the process (the counts start again at zero on a restart). */
  readonly carriedCalls: Record<string, number> = {};

  async restart(): Promise<void> {
    const { calls } = await this.control<{ calls: Record<string, number> }>('GET', '/calls');
    for (const [operation, n] of Object.entries(calls)) {
      this.carriedCalls[operation] = (this.carriedCalls[operation] ?? 0) + n;
    }
    await this.stop();
    await this.start();
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
  /** Further environment (WORKER_MAX_CACHED_WORKFLOWS, ECA_TIMEOUT_MS, ...). */
  env?: NodeJS.ProcessEnv;
}

/** One worker process (workers/main.ts), configured as in production: through its environment. */
export async function startWorkerProcess(name: string, options: WorkerProcessOptions): Promise<Child> {
  const sim = options.simulator;
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_ADDRESS: options.temporalAddress,
    ECA_TASK_QUEUE: options.taskQueue,
    ECA_CSID: sim.csid,
    ECA_BASE_URL: sim.url,
    ECA_PREFERENCE_URL: `${sim.url}/pref`,
    ECA_FIRM_PRIVATE_KEY: join(sim.keysDir, 'firm-private.asc'),
    ECA_BROKERAGE_PUBLIC_KEY: join(sim.keysDir, 'brokerage-public.asc'),
    ECA_SSO_ALLOW_INSECURE_LOOPBACK: 'true',
    ECA_DOCUMENT_STORE: options.documentStore,
    ECA_LOG_LEVEL: 'WARN',
    ...(options.codecKeys ? { ECA_CODEC_KEYS: options.codecKeys } : { ECA_CODEC_DISABLED: 'true' }),
    ...options.env,
  };
  const child = start(name, TSX, ['workers/main.ts'], env);
  await child.waitFor(/eca worker polling task queue/, 120_000);
  return child;
}

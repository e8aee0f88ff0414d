/**
 * The engine's parts as real operating-system processes, for the fault-injection suite and the
 * benchmark: the Temporal CLI dev server on a database file, the simulator on a data dir, and worker
 * processes configured through their environment (workers/config.ts). Each can be stopped (SIGTERM),
 * killed (SIGKILL) and started again on the same port, file or queue. Loopback addresses only.
 *
 * Each process is started in a process group of its own, and TypeScript entry points run in `node`
 * itself (`node --import tsx file.ts`), not under the tsx CLI, which would run them in a child
 * process of its own: a signal reaches the process that does the work, and a stop signals the whole
 * group. A stop then checks that the process and everything it had started are gone (see
 * `StopReport`). Groups still alive when this process exits, or dies of SIGINT/SIGTERM/SIGHUP, are
 * killed.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Connection } from '@temporalio/client';
import { setupNamespace } from '../client/setup.js';
import { DEV_SERVER_EXTRA_ARGS, devServerExecutable } from './temporal-servers.js';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

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

/** One process as the kernel shows it (`/proc/<pid>/stat`). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Process group id. */
  pgid: number;
  /** `R`, `S`, `D`, `Z` (exited, not yet reaped), ... */
  state: string;
  /** Start time in clock ticks since boot: tells the process from a later one that reuses its pid. */
  startTime: string;
  /** The command line, shortened, for messages. */
  command: string;
}

/** Whether this system has a Linux-style /proc; without it only whole groups can be checked. */
export const PROC_AVAILABLE = existsSync('/proc/self/stat');

function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // `pid (comm) state ppid pgrp session tty_nr tpgid flags ... starttime`; comm may hold spaces and parentheses.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let command = '';
  try {
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 200);
  } catch {
    // Gone meanwhile.
  }
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    state: fields[0] ?? '?',
    startTime: fields[19] ?? '',
    command: command || stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
  };
}

/** Every process on the system (empty without /proc). */
export function listProcesses(): ProcessInfo[] {
  if (!PROC_AVAILABLE) return [];
  const out: ProcessInfo[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const info = readProcess(Number(entry));
    if (info) out.push(info);
  }
  return out;
}

/** The process and every process below it (children, their children, ...), as they are now. */
export function processTree(pid: number, table: ProcessInfo[] = listProcesses()): ProcessInfo[] {
  const root = table.find((info) => info.pid === pid);
  if (!root) return [];
  const tree = [root];
  for (let i = 0; i < tree.length; i++) {
    for (const info of table) if (info.ppid === tree[i]!.pid && !tree.includes(info)) tree.push(info);
  }
  return tree;
}

/** Those of the processes still alive: same pid and start time, not a zombie. */
export function stillAlive(processes: ProcessInfo[]): ProcessInfo[] {
  return processes.filter((seen) => {
    const now = readProcess(seen.pid);
    return now !== undefined && now.startTime === seen.startTime && now.state !== 'Z' && now.state !== 'X';
  });
}

/**
 * Live members of a process group. Without /proc, `kill(-pgid, 0)` tells whether the group has
 * any member (zombies included) and the answer is one placeholder entry.
 */
export function groupMembers(pgid: number): ProcessInfo[] {
  if (PROC_AVAILABLE) return listProcesses().filter((info) => info.pgid === pgid && info.state !== 'Z');
  try {
    process.kill(-pgid, 0);
    return [{ pid: -pgid, ppid: 0, pgid, state: '?', startTime: '', command: `process group ${pgid}` }];
  } catch {
    return [];
  }
}

/** What a stop did, and whether anything outlived it. */
export interface StopReport {
  name: string;
  /** The process id, which is also its process group id; undefined when it never started. */
  pid: number | undefined;
  signal: 'SIGTERM' | 'SIGKILL';
  /** Whether it was still running when the stop began (false: it had exited by itself). */
  wasRunning: boolean;
  /** The process and all it had started, seen just before the signal (just the process without /proc). */
  tree: ProcessInfo[];
  /**
   * Processes of that tree or of its group still alive once the process had exited and a few
   * seconds had passed; empty when the stop was clean. They are killed (SIGKILL) after being counted.
   */
  survivors: ProcessInfo[];
  /** When it had exited by itself: its exit code (-1: a signal) and the end of its output, to say why. */
  exit?: { code: number | null; output: string };
}

/** The survivors of a stop, one line each, for assertion messages. */
export function describeSurvivors(report: StopReport): string {
  return report.survivors
    .map((info) => `pid ${info.pid} (parent ${info.ppid}, group ${info.pgid}, state ${info.state}): ${info.command}`)
    .join('\n');
}

/** Process groups started here and not yet seen empty: killed when this process goes. */
const liveGroups = new Set<number>();
let exitHooked = false;
/** Whether SIGINT/SIGTERM/SIGHUP leave the stopping to this process's own handler (see deferSignalCleanup). */
let signalsDeferred = false;

/**
 * For a program that stops what it started itself on SIGINT/SIGTERM/SIGHUP (gracefully, in order): the
 * signals then no longer SIGKILL every group at once. The groups left when this process exits are
 * still killed.
 */
export function deferSignalCleanup(): void {
  signalsDeferred = true;
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is empty.
  }
}

/** SIGKILLs every group started here that may still have members. Synchronous: safe in an exit handler. */
export function killAllStarted(): void {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
}

function hookExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.on('exit', killAllStarted);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (signalsDeferred) return;
      killAllStarted();
      // Alone on this signal: end the process as the default action would; otherwise the others decide.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

/** A child process with its output kept (the last 20 kB) for error messages. */
export class Child {
  output = '';
  readonly exited: Promise<number | null>;
  /** The last stop's report. */
  lastStop: StopReport | undefined;

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
      // Not started at all (no such executable): there will be no exit event.
      process.once('error', (error) => {
        this.output += `\n${error.message}`;
        if (process.pid === undefined) resolve(null);
      });
    });
  }

  /** The process id, which is also the id of its process group. */
  get pid(): number | undefined {
    return this.process.pid;
  }

  get running(): boolean {
    return this.process.pid !== undefined && this.process.exitCode === null && this.process.signalCode === null;
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

  /**
   * SIGTERM (a stop) or SIGKILL (a crash) to the process's whole group, then waits for the exit
   * (SIGKILL to the group after `graceMs`), then checks that the process and every process it had
   * started are gone. The report lists any that are not (killed once counted); see `StopReport`.
   */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM', graceMs = 15_000): Promise<StopReport> {
    const pid = this.process.pid;
    const wasRunning = this.running;
    const exit = wasRunning ? {} : { exit: { code: await this.exited, output: this.output.slice(-4_000) } };
    if (pid === undefined) {
      this.lastStop = { name: this.name, pid, signal, wasRunning, tree: [], survivors: [], ...exit };
      return this.lastStop;
    }
    const tree = !wasRunning
      ? []
      : PROC_AVAILABLE
        ? processTree(pid)
        : [{ pid, ppid: process.pid, pgid: pid, state: '?', startTime: '', command: this.name }];
    if (wasRunning) {
      killGroup(pid, signal);
      const exited = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
      if (!exited && this.running) {
        killGroup(pid, 'SIGKILL');
        await this.exited;
      }
    }
    // The process is gone and reaped; what it started must go too (members of the group get the
    // signal; a process that left the group would be found through the tree).
    const left = () => {
      const alive = PROC_AVAILABLE ? stillAlive(tree) : [];
      for (const member of groupMembers(pid)) if (!alive.some((info) => info.pid === member.pid)) alive.push(member);
      return alive;
    };
    let survivors = left();
    for (const deadline = Date.now() + 3_000; survivors.length > 0 && Date.now() < deadline; survivors = left()) {
      await sleep(50);
    }
    for (const survivor of survivors) {
      try {
        if (survivor.pid > 0) process.kill(survivor.pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
    if (survivors.length > 0) killGroup(pid, 'SIGKILL');
    if (groupMembers(pid).length === 0) liveGroups.delete(pid);
    this.lastStop = { name: this.name, pid, signal, wasRunning, tree, survivors, ...exit };
    return this.lastStop;
  }
}

/** A user to run a process as (a server that refuses root, such as PostgreSQL). */
export interface RunAs {
  uid: number;
  gid: number;
}

/** Starts a command in a process group of its own (it is the group's leader: group id = pid). */
export function start(
  name: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  options: { cwd?: string; user?: RunAs } = {},
): Child {
  hookExit();
  const child = spawn(command, args, {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    ...options.user,
  });
  if (child.pid !== undefined) liveGroups.add(child.pid);
  return new Child(name, child);
}

/**
 * Runs a TypeScript file (relative to the repository root) in `node` itself with tsx's loader
 * (`node --import tsx`), so that the process started is the one that runs the code.
 */
export function startTypeScript(name: string, file: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Child {
  return start(name, process.execPath, ['--import', 'tsx', file, ...args], env);
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
    const deadline = Date.now() + 60_000;
    let connection: Connection | undefined;
    while (!connection) {
      try {
        connection = await Connection.connect({ address: this.address, connectTimeout: 1000 });
        await connection.workflowService.getSystemInfo({});
      } catch (error) {
        await connection?.close();
        connection = undefined;
        if (!child.running) throw new Error(`the dev server exited:\n${child.output}`, { cause: error });
        if (Date.now() > deadline) {
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
  const child = startTypeScript(name, 'workers/main.ts', [], env);
  try {
    await child.waitFor(/eca worker polling task queue/, 120_000);
  } catch (error) {
    await child.stop('SIGKILL');
    throw error;
  }
  return child;
}

/**
 * Child processes in process groups of their own: started (`start`, `startTypeScript`), their output
 * kept, stopped with a report of anything that outlived the stop, and killed when this process goes.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { groupMembers, PROC_AVAILABLE, processTree, stillAlive } from './proc.js';
import type { ProcessInfo } from './proc.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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

/** Reads every line any child process writes, with the child's name (a test run's log watch, say). */
export type OutputObserver = (name: string, lines: string) => void;

const observers = new Set<OutputObserver>();

/** Gives `observer` every whole line of output of every child started from now on; the returned function stops it. */
export function observeOutput(observer: OutputObserver): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
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
    const keeper = () => {
      let partial = '';
      return (chunk: Buffer) => {
        const text = chunk.toString();
        this.output = (this.output + text).slice(-20_000);
        if (observers.size === 0) return;
        const whole = (partial + text).split('\n');
        partial = whole.pop() ?? '';
        if (whole.length > 0) for (const observer of observers) observer(name, whole.join('\n'));
      };
    };
    // Each stream has its own partial line.
    process.stdout?.on('data', keeper());
    process.stderr?.on('data', keeper());
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
    const giveUpAt = Date.now() + timeoutMs;
    while (Date.now() < giveUpAt) {
      const match = pattern.exec(this.output);
      if (match) return match;
      if (!this.running) throw new Error(`${this.name} exited before ${String(pattern)}:\n${this.output}`);
      await sleep(50);
    }
    throw new Error(`${this.name}: no ${String(pattern)} within ${timeoutMs} ms:\n${this.output}`);
  }

  /** Waits until `url` answers 2xx, the process exits, or the time is up (a server started as this process). */
  async waitForHttp(url: string, timeoutMs: number): Promise<void> {
    const giveUpAt = Date.now() + timeoutMs;
    for (;;) {
      const answered = await fetch(url).then(
        (response) => response.ok,
        () => false,
      );
      if (answered) return;
      if (!this.running) throw new Error(`${this.name} exited:\n${this.output}`);
      if (Date.now() > giveUpAt)
        throw new Error(`${this.name} did not answer ${url} within ${timeoutMs} ms:\n${this.output}`);
      await sleep(200);
    }
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
    for (const giveUpAt = Date.now() + 3_000; survivors.length > 0 && Date.now() < giveUpAt; survivors = left()) {
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

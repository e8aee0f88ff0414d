/**
 * Processes as the kernel shows them (`/proc`, Linux): what a stop checks to tell whether a process
 * and everything it had started are gone. Without /proc only whole process groups can be checked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';

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

/** The bench's yardsticks: percentiles, CPU shares, the worker's Prometheus counters, brokerage calls. */
import { readFile } from 'node:fs/promises';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const round = (value: number, digits = 1) => Math.round(value * 10 ** digits) / 10 ** digits;
export const mib = (bytes: number) => round(bytes / 2 ** 20, 0);

/** Runs `count` jobs with at most `concurrency` in flight. */
export async function pool(
  count: number,
  concurrency: number,
  job: (index: number) => Promise<unknown>,
): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      while (next < count) await job(next++);
    }),
  );
}

/** The processes whose CPU time is measured besides this one. */
export interface Pids {
  server?: number | undefined;
  simulator?: number | undefined;
}

/** A process and its descendants (tsx runs the simulator and the worker in a child node process). */
export async function processTree(pid: number): Promise<number[]> {
  const children = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  const nested = await Promise.all(
    children
      .split(' ')
      .filter(Boolean)
      .map((child) => processTree(Number(child))),
  );
  return [pid, ...nested.flat()];
}

/** CPU seconds a process used so far (utime and stime: fields 14 and 15 of /proc/<pid>/stat). */
export async function processCpuSeconds(pid: number): Promise<number> {
  const fields = (await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '')).split(') ')[1]?.split(' ') ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds used so far by this process (worker and client) and by the server and simulator processes. */
export async function cpuSeconds(pids: Pids): Promise<Record<string, number>> {
  const ticks = async (pid: number | undefined): Promise<number> => {
    if (pid === undefined) return NaN;
    let total = 0;
    for (const each of await processTree(pid)) total += await processCpuSeconds(each);
    return total;
  };
  const own = process.cpuUsage();
  return {
    bench: (own.user + own.system) / 1e6,
    server: await ticks(pids.server),
    simulator: await ticks(pids.simulator),
  };
}

export function cpuShare(before: Record<string, number>, after: Record<string, number>, seconds: number) {
  return Object.fromEntries(
    Object.keys(after).map((key) => [key, `${round(((after[key]! - before[key]!) / seconds) * 100, 0)}%`]),
  );
}

/** Sums of the worker's Prometheus counters and histogram counts, by metric name. */
export async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(url)).text();
  const sums = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line === '') continue;
    const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+([-+\d.eE]+|NaN)/.exec(line);
    if (!match) continue;
    const value = Number(match[3]);
    sums.set(match[1]!, (sums.get(match[1]!) ?? 0) + value);
    // Also by workflow type, where the series has one: `<name>@<type>`.
    const type = /workflow_type="([^"]*)"/.exec(match[2] ?? '')?.[1];
    if (type !== undefined) sums.set(`${match[1]!}@${type}`, (sums.get(`${match[1]!}@${type}`) ?? 0) + value);
  }
  return sums;
}

function metric(sums: Map<string, number>, fragment: string): number {
  for (const [name, value] of sums) if (name.includes(fragment) && name.endsWith('_count')) return value;
  return 0;
}

/** How much a histogram count whose name holds `fragment` grew between two scrapes, by workflow type. */
export function metricGrowthByType(
  before: Map<string, number>,
  after: Map<string, number>,
  fragment: string,
): Record<string, number> {
  const grown: Record<string, number> = {};
  for (const [key, value] of after) {
    const [name, type] = key.split('@');
    if (type === undefined || !name!.includes(fragment) || !name!.endsWith('_count')) continue;
    grown[type] = value - (before.get(key) ?? 0);
  }
  return grown;
}

/** How much a metric (the first histogram count whose name holds `fragment`) grew between two scrapes. */
export function metricGrowth(before: Map<string, number>, after: Map<string, number>, fragment: string): number {
  return metric(after, fragment) - metric(before, fragment);
}

/** Brokerage calls per operation between two counts, divided by `per` and rounded; operations not called left out. */
export function callsPer(
  before: Record<string, number>,
  after: Record<string, number>,
  per: number,
  digits?: number,
): Record<string, number> {
  return Object.fromEntries(
    Object.entries(after)
      .map(([op, n]) => [op, round((n - (before[op] ?? 0)) / per, digits)] as const)
      .filter(([, n]) => n > 0),
  );
}

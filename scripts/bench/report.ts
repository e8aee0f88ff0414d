/** The bench's report: the ceiling, the throughput and waiting tables, and the JSON written to bench-results/. */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { table } from '../../client/cli/output.js';
import { ROOT } from '../processes.js';
import type { ApiComparison } from './api.js';
import { round } from './measure.js';
import type { Ceiling, Throughput } from './throughput.js';
import type { Waiting } from './waiting.js';
import type { EventsFigures } from './events.js';
import type { PoliteFigures } from './polite.js';
import type { FirmsFigures } from './firms.js';
import type { SweepScale } from './sweep-scale.js';
import type { WorkerAlone } from './worker-alone.js';

export interface BenchResult {
  label: string;
  at: string;
  machine: { cpus: number; node: string };
  settings: unknown;
  ceiling: Ceiling;
  throughput: Throughput[];
  api: ApiComparison[];
  events: EventsFigures[];
  polite: PoliteFigures[];
  firms: FirmsFigures[];
  waiting: Waiting[];
  sweepScale: SweepScale[];
  workerAlone: WorkerAlone[];
  totalSeconds: number;
}

function throughputTable(throughput: Throughput[], ceiling: Ceiling): string {
  return table(
    ['N', 'APPS/S', '% OF CEILING', 'WFT/S', 'ACT/S', 'WFT/APP', 'ACT/APP', 'START→ACT P50/P99', 'START→OPEN P50/P99'],
    throughput.map((t) => [
      String(t.applications),
      String(t.applicationsPerSecond),
      `${round((t.applicationsPerSecond / ceiling.workflowsPerSecond) * 100)}%`,
      String(t.workflowTasksPerSecond),
      String(t.activitiesPerSecond),
      String(t.workflowTasksPerApplication),
      String(t.activitiesPerApplication),
      `${t.startToFirstActivityP50Ms} / ${t.startToFirstActivityP99Ms} ms`,
      `${t.startToOpenP50Ms} / ${t.startToOpenP99Ms} ms`,
    ]),
  );
}

function waitingTable(waiting: Waiting[]): string {
  return table(
    ['WAITING', 'SLOT', 'CALLS/SLOT', 'WFT/SLOT', 'ACT/SLOT', 'RSS', 'HEAP', 'REACTION P50/P99', 'POLLNOW→ACT P50/P99'],
    waiting.map((w) => [
      String(w.waitingApplications),
      w.slot,
      String(w.brokerageCallsPerSlot),
      String(w.workflowTasksPerSlot),
      String(w.activitiesPerSlot),
      `${w.workerRssMiB} MiB`,
      `${w.workerHeapUsedMiB} MiB`,
      `${w.reactionP50Ms} / ${w.reactionP99Ms} ms`,
      `${w.pollNowToActivityP50Ms} / ${w.pollNowToActivityP99Ms} ms`,
    ]),
  );
}

/** The targets for the onboarding API on this machine: printed beside the figures, never asserted. */
const API_TARGETS = { startCostPercent: 15, readP99Ms: 50 };

function apiTable(api: ApiComparison[]): string {
  const rows = api.flatMap((a) =>
    a.starts.map((s) => {
      const reads = s.side === 'client' || s.side === 'api' ? a.reads[s.side] : undefined;
      return [
        s.side,
        String(s.applications),
        String(s.startsPerSecond),
        `${s.startP50Ms} / ${s.startP99Ms} ms`,
        `${s.cpu.bench} / ${s.cpu.server}`,
        reads ? String(reads.reads) : '—',
        reads ? `${reads.readP50Ms} / ${reads.readP99Ms} ms` : '—',
        reads ? `${reads.readMaxMs} ms` : '—',
      ];
    }),
  );
  const headers = ['SIDE', 'N', 'STARTS/S', 'START P50/P99', 'CPU BENCH/SERVER', 'READS', 'READ P50/P99', 'READ MAX'];
  const lines = [table(headers, rows)];
  const met = (ok: boolean) => (ok ? 'met' : 'not met');
  for (const a of api) {
    const p99 = a.reads.api.readP99Ms;
    lines.push(
      `Onboarding API (N=${a.applications}; in flight: ${a.concurrency} starts, ${a.readConcurrency} reads): ` +
        `costs ${a.startCostPercent} % of the client's start throughput (target ≤ ${API_TARGETS.startCostPercent} %: ` +
        `${met(a.startCostPercent <= API_TARGETS.startCostPercent)}); ` +
        `read p99 ${p99} ms (target ≤ ${API_TARGETS.readP99Ms} ms: ${met(p99 <= API_TARGETS.readP99Ms)}); ` +
        `API key check p50/p99 ${a.keyCheckP50Ms} / ${a.keyCheckP99Ms} ms`,
    );
  }
  return lines.join('\n');
}

function firmsReport(f: FirmsFigures): string {
  const run = (label: string, r: FirmsFigures['alone']) => [
    label,
    String(r.firms),
    String(r.applications),
    String(r.seconds),
    String(r.applicationsPerSecond),
    String(r.callsPerSecondPerFirm),
    `${r.startToOpenP50Ms} / ${r.startToOpenP99Ms} ms`,
    `${r.cpu.bench} / ${r.cpu.server} / ${r.cpu.simulator}`,
  ];
  const runs = table(
    ['RUN', 'FIRMS', 'APPS', 'SECONDS', 'APPS/S', 'CALLS/S PER FIRM', 'START→OPEN P50/P99', 'CPU BENCH/SERVER/SIM'],
    [run('one firm alone', f.alone), run('all firms at once', f.together)],
  );
  const perFirm = table(
    ['CSID', 'CALLS', 'BUSIEST SECOND', 'REFUSED (429)', 'PUT OFF'],
    f.perFirm.map((firm) => [
      firm.csid,
      String(firm.calls),
      String(firm.busiestSecond),
      String(firm.refused),
      String(firm.deferred),
    ]),
  );
  return [
    `Many firms (${f.firms} firms, ${f.applicationsPerFirm} applications each, ${f.callsPerSecondCap} calls/s per firm):`,
    runs,
    `All firms at once: ${f.together.applicationsPerSecond} applications/s against ${f.firms} × ${f.alone.applicationsPerSecond} ` +
      `= ${round(f.firms * f.alone.applicationsPerSecond, 2)} (ratio ${f.ratio}); busiest second of any firm ${f.busiestSecond} ` +
      `(cap ${f.callsPerSecondCap}: ${f.capExceeded ? 'EXCEEDED' : 'not exceeded'}), ${f.refused} refused`,
    perFirm,
    `Calls per operation, first firm (warm-up, alone, at once): ${JSON.stringify(f.perFirm[0]?.byOperation ?? {})}`,
  ].join('\n');
}

/** Prints the tables and writes the result to bench-results/<timestamp>.json. */
export async function report(result: BenchResult): Promise<void> {
  const { ceiling, throughput, api, waiting } = result;
  console.log(
    `\nCeiling: ${ceiling.workflowsPerSecond} no-op workflows/s (${ceiling.workflowTasksPerSecond} workflow tasks/s, ${ceiling.activitiesPerSecond} activities/s)`,
  );
  if (throughput.length > 0) console.log(throughputTable(throughput, ceiling));
  for (const t of throughput) {
    console.log(
      `Brokerage calls per application (N=${t.applications}): ${JSON.stringify(t.brokerageCallsPerApplication)}`,
    );
  }
  if (api.length > 0) console.log(apiTable(api));
  for (const e of result.events) {
    console.log(
      `Events (N=${e.applications}): ${e.events} events (${e.eventsPerApplication} per application), all received; ` +
        `transition → webhook received p50/p99 ${e.transitionToWebhookP50Ms} / ${e.transitionToWebhookP99Ms} ms; ` +
        `transition → event log p50/p99 ${e.transitionToLogP50Ms} / ${e.transitionToLogP99Ms} ms; ${e.deliveries} deliveries`,
    );
  }
  for (const p of result.polite) {
    console.log(
      `Politeness (N=${p.applications} at once, ${p.callsPerSecondCap} calls/s): ${p.calls} calls in ${p.seconds} s ` +
        `(${p.meanCallsPerSecond}/s); busiest second of the simulator's ${p.busiestSecond}, ${p.refused} refused, ` +
        `${p.deferred} put off by the budget`,
    );
  }
  for (const f of result.firms) console.log(firmsReport(f));
  if (waiting.length > 0) console.log(waitingTable(waiting));
  for (const w of result.workerAlone) {
    console.log(
      `Worker alone (${w.waitingApplications} waiting, ${w.slot} slots, ${w.database} database): RSS idle ${w.workerRssIdleMiB} MiB, after the starts ` +
        `${w.workerRssAfterStartsMiB} MiB, quiet ${w.workerRssQuietMiB} MiB; CPU ${w.workerCpuSecondsPerApplication} s per ` +
        `application started, ${w.workerCpuQuiet} of a core while quiet; ${w.workflowTasksPerQuietSlot} workflow tasks per quiet slot; ` +
        `all waiting after ${w.allWaitingAfterSeconds} s`,
    );
  }
  for (const s of result.sweepScale) {
    console.log(
      `Sweep at scale (${s.waitedOnAccounts} accounts waited on, ${s.slot} slots): ${s.brokerageCallsPerSlot} brokerage calls, ` +
        `${s.workflowTasksPerSlot} workflow tasks, ${s.activitiesPerSlot} activities per quiet slot; the sweep's activity ` +
        `p50/max ${s.sweepDurationP50Ms} / ${s.sweepDurationMaxMs} ms over ${s.sweepReports} slots (${s.sweepListPages} list pages, ` +
        `${s.sweepChanged} changed); worker+bench RSS ${s.workerRssMiB} MiB`,
    );
  }
  const outDir = join(ROOT, 'bench-results');
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, `${result.at.replace(/[:.]/g, '-')}.json`);
  await writeFile(file, `${JSON.stringify(result, null, 2)}\n`);
  console.log(`\nWritten: ${file} (${result.totalSeconds} s)`);
}

/**
 * The demo's applications: N applications spread over the simulator's scenarios, the firm's staff
 * played for each (documents, a correction, an abandon and reset), progress until every one is final,
 * and the summary table of outcomes against the expected ones, played as an onboarding system does:
 * through the onboarding API (demo-systems.ts). `npm run demo` runs it on the dev server, `npm run
 * cluster` on the cluster.
 */
import { randomUUID } from 'node:crypto';
import { SingleBar } from 'cli-progress';
import type { EngineContext } from '../client/context.js';
import { table } from '../client/cli/output.js';
import { APPLICATION_XML_EXAMPLE } from '../eca/index.js';
import { wantsDocument } from '../workflows/lifecycle/tasks.js';
import type { FleetApplication, OnboardingSystem } from './demo-systems.js';

/** Each scenario, the staff action the demo plays for it, and the final state it must reach. */
export const SCENARIOS = [
  { name: 'happy', expected: 'open' },
  { name: 'docs-required', expected: 'open' },
  { name: 'doc-rejected', expected: 'open' },
  { name: 'portal-task', expected: 'open' },
  { name: 'compliance-rejected', expected: 'rejected' },
  { name: 'stalled', expected: 'open' },
  { name: 'invalid', expected: 'open' },
] as const;
type ScenarioName = (typeof SCENARIOS)[number]['name'];

/** Poll intervals for a simulator whose business day passes in seconds. */
export const DEMO_SETTINGS: NonNullable<EngineContext['settings']> = {
  pollIntervals: { tracking: '1 second' },
  requestPollInterval: '1 second',
};

interface Tracked {
  externalId: string;
  scenario: ScenarioName;
  expected: string;
  state?: FleetApplication;
  documentRound: number;
  abandoned: boolean;
  resubmitted: boolean;
}

export interface FleetResult {
  /** The summary: one row per scenario (SCENARIO, APPS, OUTCOMES, EXPECTED, OK). */
  summary: string;
  /** Applications not in their expected final state (empty when all are). */
  failed: string[];
  /** Whether every application became final within the time limit (and no abort). */
  finished: boolean;
}

function applicationXml(externalId: string, valid: boolean): string {
  const xml = APPLICATION_XML_EXAMPLE.replace('external_id="EXT-1"', `external_id="${externalId}"`);
  return valid ? xml : xml.replace(' first="Jane"', '');
}

function pdf(label: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% demo document ${label}\n%%EOF\n`);
}

/** Starts `count` applications, plays the staff and shows progress until all are final (or the time limit passes). */
export async function runDemoFleet(
  system: OnboardingSystem,
  options: {
    count: number;
    timeLimitMs?: number;
    signal?: AbortSignal;
    /** Names the fleet in its lines when several run at once (then no progress bar: lines only). */
    label?: string;
  },
): Promise<FleetResult> {
  const { count } = options;
  const prefix = options.label ? `[${options.label}] ` : '';
  const run = randomUUID().slice(0, 6);
  const tracked: Tracked[] = [];
  for (let i = 0; i < count && !options.signal?.aborted; i++) {
    const scenario = SCENARIOS[i % SCENARIOS.length]!;
    const externalId = `${scenario.name}-${run}-${i + 1}`;
    await system.start(applicationXml(externalId, scenario.name !== 'invalid'));
    tracked.push({
      externalId,
      scenario: scenario.name,
      expected: scenario.expected,
      documentRound: 0,
      abandoned: false,
      resubmitted: false,
    });
  }
  console.log(`${prefix}Started ${count} applications over ${SCENARIOS.length} scenarios.`);

  const bar =
    process.stdout.isTTY && !options.label
      ? new SingleBar({ format: 'final [{bar}] {value}/{total} | {states}', hideCursor: true })
      : undefined;
  bar?.start(count, 0, { states: '' });
  const giveUpAt = Date.now() + (options.timeLimitMs ?? 10 * 60_000);
  let lastLine = 0;
  let finished = false;
  for (;;) {
    await Promise.all(tracked.filter((app) => !app.state?.done).map((app) => staff(system, app)));
    const done = tracked.filter((app) => app.state?.done).length;
    const states = new Map<string, number>();
    for (const app of tracked) {
      const state = app.state?.lifecycleState ?? 'starting';
      states.set(state, (states.get(state) ?? 0) + 1);
    }
    const summary = [...states].map(([state, n]) => `${state} ${n}`).join(', ');
    if (bar) bar.update(done, { states: summary });
    else if (Date.now() - lastLine > 5000 || done === count) {
      console.log(`${prefix}${done}/${count} final | ${summary}`);
      lastLine = Date.now();
    }
    if (done === count) {
      finished = true;
      break;
    }
    if (Date.now() > giveUpAt || options.signal?.aborted) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  bar?.stop();

  const rows = SCENARIOS.map((scenario) => {
    const apps = tracked.filter((app) => app.scenario === scenario.name);
    const outcomes = new Map<string, number>();
    for (const app of apps) {
      const state = app.state?.lifecycleState ?? 'starting';
      outcomes.set(state, (outcomes.get(state) ?? 0) + 1);
    }
    const ok = apps.every((app) => app.state?.lifecycleState === app.expected);
    return [
      scenario.name,
      String(apps.length),
      [...outcomes].map(([s, n]) => `${s} ${n}`).join(', ') || '-',
      scenario.expected,
      apps.length === 0 ? '-' : ok ? 'yes' : 'NO',
    ];
  });
  return {
    summary: table(['SCENARIO', 'APPS', 'OUTCOMES', 'EXPECTED', 'OK'], rows),
    failed: tracked.filter((app) => app.state?.lifecycleState !== app.expected).map((app) => app.externalId),
    finished,
  };
}

/** Plays the firm's staff for one application: reads its state and answers what it waits for. */
async function staff(system: OnboardingSystem, app: Tracked): Promise<void> {
  try {
    app.state = await system.read(app.externalId);
  } catch {
    return; // not visible yet
  }
  const state = app.state;
  if (state.lifecycleState === 'needsDocuments') {
    const forms = [...new Set(state.pendingTasks.filter(wantsDocument).map((task) => task.formNumber))];
    if (forms.length === 0) return;
    app.documentRound++;
    const documents = forms.map((formNumber) => ({
      formNumber,
      data: pdf(`${app.externalId} ${formNumber} #${app.documentRound}`),
    }));
    app.state = await system.provideDocuments(app.externalId, documents).catch(() => state);
  } else if (state.lifecycleState === 'needsCorrection' && !app.resubmitted) {
    app.resubmitted = true;
    app.state = await system.resubmit(app.externalId, applicationXml(app.externalId, true));
  } else if (app.scenario === 'stalled' && state.lifecycleState === 'awaitingClient' && !app.abandoned) {
    app.abandoned = true;
    app.state = await system.abandon(app.externalId, 'demo: client unresponsive');
  } else if (state.lifecycleState === 'abandoned') {
    app.state = await system.reset(app.externalId);
  }
}

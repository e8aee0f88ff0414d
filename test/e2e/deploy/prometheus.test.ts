/**
 * The alert rules, compose's Prometheus configuration and the dashboard under deploy/, edited by hand:
 * real promtool (built from the Go module proxy) accepts them, every rule fires on its series and stays
 * quiet on the others (deploy/prometheus/alerts.test.yml), every metric the rules read is one the code
 * exports, and every dashboard query parses and uses only metrics the rule tests feed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  CONFIG_FILE,
  DASHBOARD_FILE,
  DATASOURCE_FILE,
  prometheusExecutables,
  RULE_TESTS_FILE,
  RULES_FILE,
  rulesWithHolds,
} from '../../../scripts/prometheus.js';

const run = promisify(execFile);

/** Metric names in a PromQL expression: identifiers not called, once strings, matchers, ranges and grouping clauses are gone. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"[^"]*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\bgroup_(?:left|right)\b/g, ' ');
  const operators = new Set(['and', 'or', 'unless']);
  const names = [...bare.matchAll(/\b([a-z_][a-z0-9_]*)\b(?!\s*\()/gi)].map((match) => match[1]!);
  return [...new Set(names.filter((name) => !operators.has(name)))];
}

/** The jobs an expression selects (`job="eca-worker"`). */
function jobsSelected(expr: string): string[] {
  return [...expr.matchAll(/\bjob="([^"]+)"/g)].map((match) => match[1]!);
}

interface Rule {
  alert: string;
  expr: string;
  runbookUrl: string;
}

/** A one-line scalar of an alert's block: double-quoted (as JSON quotes it), single-quoted or plain. */
function scalar(block: string, key: string, alert: string): string {
  const match = new RegExp(`^\\s+${key}: (.*)$`, 'm').exec(block);
  assert.ok(match, `${alert} has no ${key}`);
  const value = match[1]!.trim();
  assert.doesNotMatch(value, /^[|>]/, `${alert}: write ${key} on one line (this test reads it so)`);
  if (value.startsWith('"')) return JSON.parse(value) as string;
  if (value.startsWith("'")) return value.slice(1, -1).replaceAll("''", "'");
  return value;
}

/** The committed alert rules; promtool's count of them checks that none is missed. */
async function committedAlerts(): Promise<Rule[]> {
  const blocks = (await readFile(RULES_FILE, 'utf8')).split(/^\s*- alert: /m).slice(1);
  return blocks.map((block) => {
    const alert = block.slice(0, block.indexOf('\n')).trim();
    return { alert, expr: scalar(block, 'expr', alert), runbookUrl: scalar(block, 'runbook_url', alert) };
  });
}

interface Panel {
  title: string;
  datasource: { uid: string };
  gridPos: { x: number; y: number };
  targets: Array<{ expr: string; datasource: { uid: string } }>;
}

async function dashboardPanels(): Promise<Panel[]> {
  return (JSON.parse(await readFile(DASHBOARD_FILE, 'utf8')) as { panels: Panel[] }).panels;
}

describe('alert rules and dashboard (real promtool)', function () {
  // The first run builds Prometheus and promtool from the Go module proxy (a few minutes, then cached).
  this.timeout(15 * 60_000);
  let promtool: string;
  let alerts: Rule[];

  before(async function () {
    ({ promtool } = await prometheusExecutables());
    alerts = await committedAlerts();
  });

  it('promtool accepts the rules and the configuration, and every rule test passes', async function () {
    const rules = await run(promtool, ['check', 'rules', RULES_FILE]);
    assert.match(rules.stdout, new RegExp(`SUCCESS: ${alerts.length} rules found`));
    const config = await run(promtool, ['check', 'config', '--syntax-only', CONFIG_FILE]);
    assert.match(config.stdout, /SUCCESS/);
    const tests = await run(promtool, ['test', 'rules', RULE_TESTS_FILE]);
    assert.match(tests.stdout, /SUCCESS/);
  });

  it('every alert has a rule test that fires it, and a runbook entry in docs/operate.md', async function () {
    const tests = await readFile(RULE_TESTS_FILE, 'utf8');
    const runbooks = await readFile('docs/operate.md', 'utf8');
    assert.ok(alerts.length >= 10, `alerts read: ${alerts.map((rule) => rule.alert).join(', ')}`);
    for (const { alert, runbookUrl } of alerts) {
      assert.match(
        tests,
        new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`),
        `${alert} never fires in a test`,
      );
      assert.match(tests, new RegExp(`alertname: ${alert}\\n\\s+exp_alerts: \\[\\]`), `${alert} is never tested quiet`);
      assert.match(runbooks, new RegExp(`^#### ${alert}$`, 'm'), `no runbook heading for ${alert}`);
      assert.equal(runbookUrl, `docs/operate.md#${alert.toLowerCase()}`);
    }
  });

  it('the rule tests fail on rules with other hold times (the tests can fail)', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-rules-'));
    try {
      const rules = rulesWithHolds(await readFile(RULES_FILE, 'utf8'), {
        EcaApplicationsBlocked: '2h',
        EcaWorkerDown: '10m',
      });
      await writeFile(join(dir, 'alerts.yml'), rules);
      await cp(RULE_TESTS_FILE, join(dir, 'alerts.test.yml'));
      const failed = await run(promtool, ['test', 'rules', join(dir, 'alerts.test.yml')]).then(
        () => undefined,
        (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
      );
      assert.ok(failed, 'the rule tests passed on other hold times');
      assert.match(failed, /alertname: EcaApplicationsBlocked/);
      assert.match(failed, /alertname: EcaWorkerDown/);
      assert.doesNotMatch(failed, /alertname: EcaSweepLate/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('hold times: an unknown alert, one without a hold or a bad duration is refused', async function () {
    const rules = await readFile(RULES_FILE, 'utf8');
    assert.throws(() => rulesWithHolds(rules, { EcaWorkerDwn: '10s' }), /EcaWorkerDwn is not an alert with a "for:"/);
    assert.throws(() => rulesWithHolds(rules, { EcaSweepLate: '10s' }), /EcaSweepLate is not an alert with a "for:"/);
    assert.throws(() => rulesWithHolds(rules, { EcaWorkerDown: '2 hours' }), /"2 hours" is not a duration/);
    const changed = rulesWithHolds(rules, { EcaApiDown: '10s' });
    assert.equal(changed.split('\n').length, rules.split('\n').length);
    assert.match(changed, /alert: EcaApiDown\n\s+expr: .*\n\s+for: "10s"\n/);
    assert.match(changed, /alert: EcaWorkerDown\n\s+expr: .*\n\s+for: "2m"\n/);
  });

  it('every dashboard query parses, and reads only metrics the rule tests feed', async function () {
    const tests = await readFile(RULE_TESTS_FILE, 'utf8');
    const fed = new Set([...tests.matchAll(/series: '([a-z_][a-z0-9_]*)\{/g)].map((match) => match[1]!));
    // The histograms' buckets and the SDK's end-to-end latency are read by the dashboard alone: they are
    // checked against a real scrape in the cluster test.
    const dashboardOnly = new Set([
      'eca_brokerage_call_duration_ms_bucket',
      'eca_sweep_duration_ms_bucket',
      'eca_sweep_brokerage_calls',
      'eca_api_request_duration_ms_bucket',
      'temporal_workflow_task_schedule_to_start_latency_bucket',
      'temporal_workflow_endtoend_latency_bucket',
    ]);
    const panels = await dashboardPanels();
    const recording = panels.flatMap((panel, i) =>
      panel.targets.map((target, j) => ({ record: `dashboard:panel${i}:${j}`, expr: target.expr })),
    );
    assert.ok(recording.length >= 15, `dashboard queries: ${recording.length}`);
    const dir = await mkdtemp(join(tmpdir(), 'eca-dashboard-'));
    try {
      // JSON is YAML: promtool reads it as a rules file.
      await writeFile(
        join(dir, 'dashboard.yml'),
        JSON.stringify({ groups: [{ name: 'dashboard', rules: recording }] }),
      );
      const checked = await run(promtool, ['check', 'rules', join(dir, 'dashboard.yml')]);
      assert.match(checked.stdout, new RegExp(`SUCCESS: ${recording.length} rules found`));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    for (const { expr } of recording) {
      for (const name of metricNames(expr)) {
        assert.ok(fed.has(name) || dashboardOnly.has(name), `the dashboard reads ${name}, which no rule test feeds`);
      }
    }
  });

  it('every metric the rules read is exported by the code that should export it', async function () {
    // The engine's from workers/metrics.ts (the onboarding API's from api/metrics.ts), the SDK's from Temporal Core's source (prefixed `temporal_`),
    // the Temporal server's by name; the cluster test sees the ones a run produces in a real scrape.
    const engine = await readFile('workers/metrics.ts', 'utf8');
    const api = await readFile('api/metrics.ts', 'utf8');
    const core = await readFile(
      'node_modules/@temporalio/core-bridge/sdk-core/crates/sdk-core/src/telemetry/metrics.rs',
      'utf8',
    );
    const server = new Set(['up', 'schedule_missed_catchup_window']);
    const read = new Set(alerts.flatMap((rule) => metricNames(rule.expr)));
    assert.ok(read.size >= 10, `metrics read by the rules: ${[...read].join(', ')}`);
    for (const name of read) {
      if (name.startsWith('eca_api_'))
        assert.match(api, new RegExp(`name: '${name}'`), `${name} is not created in api/metrics.ts`);
      else if (name.startsWith('eca_'))
        assert.match(engine, new RegExp(`'${name}'`), `${name} is not created in workers/metrics.ts`);
      else if (name.startsWith('temporal_')) {
        assert.match(core, new RegExp(`"${name.slice('temporal_'.length)}"`), `${name} is not a Temporal Core metric`);
      } else assert.ok(server.has(name), `${name}: whose metric is it?`);
    }
  });

  it("the jobs the rules and the dashboard select are compose's scrape jobs", async function () {
    const config = await readFile(CONFIG_FILE, 'utf8');
    const jobs = new Set([...config.matchAll(/job_name: "?([\w-]+)"?/g)].map((match) => match[1]!));
    const panels = await dashboardPanels();
    const exprs = [...alerts, ...panels.flatMap((panel) => panel.targets)].map((query) => query.expr);
    const selected = new Set(exprs.flatMap(jobsSelected));
    assert.ok(selected.size >= 2, `jobs selected: ${[...selected].join(', ')}`);
    for (const job of selected) assert.ok(jobs.has(job), `job="${job}" is not a job of ${CONFIG_FILE}`);
  });

  it("the dashboard's datasource is the one compose provisions, and its panels are laid out without overlap", async function () {
    const uid = /^\s+uid: (\S+)$/m.exec(await readFile(DATASOURCE_FILE, 'utf8'))?.[1];
    assert.ok(uid, `no datasource uid in ${DATASOURCE_FILE}`);
    const panels = await dashboardPanels();
    for (const panel of panels) {
      assert.equal(panel.datasource.uid, uid, panel.title);
      for (const target of panel.targets) assert.equal(target.datasource.uid, uid, panel.title);
    }
    const places = panels.map((panel) => `${panel.gridPos.x},${panel.gridPos.y}`);
    assert.equal(new Set(places).size, places.length);
  });
});

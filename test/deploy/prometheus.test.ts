/**
 * The alert rules, compose's Prometheus configuration and the dashboard (scripts/prometheus/): the
 * committed files are the generated ones, real promtool (built from the Go module proxy) accepts them,
 * every rule fires on its series and stays quiet on the others (deploy/prometheus/alerts.test.yml), and
 * every dashboard query parses and uses only metrics the rule tests feed.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { prometheusExecutables } from '../../scripts/prometheus/server.js';
import { CONFIG_FILE, generatedFiles, RULE_TESTS_FILE, RULES_FILE, rulesYaml } from '../../scripts/prometheus/files.js';
import { dashboard, dashboardPanels, DATASOURCE_UID } from '../../scripts/prometheus/dashboard.js';
import { alertRules, ThresholdError, thresholdsWith } from '../../scripts/prometheus/rules.js';
import { toYaml } from '../../scripts/prometheus/yaml.js';

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

describe('alert rules and dashboard (real promtool)', function () {
  // The first run builds Prometheus and promtool from the Go module proxy (a few minutes, then cached).
  this.timeout(15 * 60_000);
  let promtool: string;

  before(async function () {
    ({ promtool } = await prometheusExecutables());
  });

  it('the committed files under deploy/ are the generated ones (npm run prometheus)', async function () {
    for (const [path, content] of Object.entries(generatedFiles())) {
      assert.equal(await readFile(path, 'utf8'), content, `${path} is stale: run npm run prometheus`);
    }
  });

  it('promtool accepts the rules and the configuration, and every rule test passes', async function () {
    const rules = await run(promtool, ['check', 'rules', RULES_FILE]);
    assert.match(rules.stdout, new RegExp(`SUCCESS: ${alertRules().length} rules found`));
    const config = await run(promtool, ['check', 'config', '--syntax-only', CONFIG_FILE]);
    assert.match(config.stdout, /SUCCESS/);
    const tests = await run(promtool, ['test', 'rules', RULE_TESTS_FILE]);
    assert.match(tests.stdout, /SUCCESS/);
  });

  it('every alert has a rule test that fires it, and a runbook entry in docs/production.md', async function () {
    const tests = await readFile(RULE_TESTS_FILE, 'utf8');
    const production = await readFile('docs/production.md', 'utf8');
    for (const { alert, annotations } of alertRules()) {
      assert.match(
        tests,
        new RegExp(`alertname: ${alert}\\n\\s+exp_alerts:\\n\\s+- exp_labels`),
        `${alert} never fires in a test`,
      );
      assert.match(tests, new RegExp(`alertname: ${alert}\\n\\s+exp_alerts: \\[\\]`), `${alert} is never tested quiet`);
      assert.match(production, new RegExp(`^#### ${alert}$`, 'm'), `no runbook heading for ${alert}`);
      assert.equal(annotations.runbook_url, `docs/production.md#${alert.toLowerCase()}`);
    }
  });

  it('the rule tests fail on rules with other thresholds (the tests can fail)', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-rules-'));
    try {
      await writeFile(join(dir, 'alerts.yml'), rulesYaml(thresholdsWith(['blockedFor=2h', 'workerDownFor=10m'])));
      await cp(RULE_TESTS_FILE, join(dir, 'alerts.test.yml'));
      const failed = await run(promtool, ['test', 'rules', join(dir, 'alerts.test.yml')]).then(
        () => undefined,
        (error: { stdout: string; stderr: string }) => `${error.stdout}${error.stderr}`,
      );
      assert.ok(failed, 'the rule tests passed on other thresholds');
      assert.match(failed, /alertname: EcaApplicationsBlocked/);
      assert.match(failed, /alertname: EcaWorkerDown/);
      assert.doesNotMatch(failed, /alertname: EcaSweepLate/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
    const panels = dashboardPanels();
    const recording = panels.flatMap((panel, i) =>
      panel.targets.map((target, j) => ({ record: `dashboard:panel${i}:${j}`, expr: target.expr })),
    );
    const dir = await mkdtemp(join(tmpdir(), 'eca-dashboard-'));
    try {
      await writeFile(
        join(dir, 'dashboard.yml'),
        toYaml({ groups: [{ name: 'dashboard', rules: recording }] }, 'dashboard'),
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
    const read = new Set(alertRules().flatMap((rule) => metricNames(rule.expr)));
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

  it("the dashboard's datasource is the one compose provisions, and its panels are laid out without overlap", async function () {
    const datasource = await readFile('deploy/grafana/provisioning/datasources/prometheus.yml', 'utf8');
    assert.match(datasource, new RegExp(`uid: ${DATASOURCE_UID}\\n`));
    const model = dashboard() as { panels: Array<{ gridPos: { x: number; y: number } }> };
    const places = model.panels.map((panel) => `${panel.gridPos.x},${panel.gridPos.y}`);
    assert.equal(new Set(places).size, places.length);
  });

  it('thresholds: a typo or a bad value is refused naming the setting', function () {
    assert.throws(() => thresholdsWith(['blockdFor=2h']), ThresholdError);
    assert.throws(() => thresholdsWith(['blockedFor=2 hours']), /"2 hours" is not a duration/);
    assert.throws(() => thresholdsWith(['brokerageErrorRatio=-1']), /brokerageErrorRatio must be a positive number/);
    assert.equal(thresholdsWith(['blockedFor=4h']).blockedFor, '4h');
    assert.match(rulesYaml(thresholdsWith(['blockedFor=4h'])), /Thresholds changed from the defaults: blockedFor=4h/);
  });
});

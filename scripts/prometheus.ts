/**
 * Prometheus and promtool from the Go module proxy (built once with `go install`, cached per user like
 * the Temporal servers; PROMETHEUS_PATH and PROMTOOL_PATH point at binaries you already have), and a
 * Prometheus process for `npm run cluster`. Built without the web UI's assets: the HTTP API, which the
 * tests and the cluster summary use, is whole; a Prometheus UI comes with compose's image.
 *
 * The alert rules, compose's configuration and the dashboard are files under deploy/, edited by hand and
 * tested with promtool (test/e2e/deploy/prometheus.test.ts); the cluster loads the same rules file.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { cacheRoot, goBuild, isExecutable, overridden } from './cache.js';
import { ROOT, start } from './processes/child.js';
import type { Child, StopReport } from './processes/child.js';

/** The committed files, by their path in the repository. */
export const RULES_FILE = 'deploy/prometheus/alerts.yml';
export const RULE_TESTS_FILE = 'deploy/prometheus/alerts.test.yml';
export const CONFIG_FILE = 'deploy/prometheus/prometheus.yml';
export const DASHBOARD_FILE = 'deploy/grafana/dashboards/eca-onboarding.json';
export const DATASOURCE_FILE = 'deploy/grafana/provisioning/datasources/prometheus.yml';

/**
 * The committed alert rules with the hold time (`for:`) of some alerts changed, such as
 * `{ EcaWorkerDown: '10s' }`: the cluster test waits seconds for an alert, not minutes.
 */
export function rulesWithHolds(rules: string, holds: Record<string, string>): string {
  const blocks = rules.split(/^(?=\s*- alert: )/m);
  for (const [alert, hold] of Object.entries(holds)) {
    if (!/^\d+[smhd]$/.test(hold)) throw new Error(`"${hold}" is not a duration such as 90s, 15m, 26h or 7d`);
    const i = blocks.findIndex((block) => new RegExp(`^\\s*- alert: ${alert}\\n`).test(block));
    if (i < 0 || !/^\s+for: /m.test(blocks[i]!)) throw new Error(`${alert} is not an alert with a "for:" hold`);
    blocks[i] = blocks[i]!.replace(/^(\s+for: ).*$/m, `$1"${hold}"`);
  }
  return blocks.join('');
}

/** The committed alert rules (`RULES_FILE`), with `holds` as in `rulesWithHolds`. */
export async function committedRules(holds: Record<string, string> = {}): Promise<string> {
  return rulesWithHolds(await readFile(join(ROOT, RULES_FILE), 'utf8'), holds);
}

/** Prometheus 3.16.0: its Go module's versions are v0.<major><minor>.<patch>. */
export const PROMETHEUS_MODULE_VERSION = 'v0.316.0';

export interface PrometheusExecutables {
  prometheus: string;
  promtool: string;
}

export async function prometheusExecutables(): Promise<PrometheusExecutables> {
  const [prometheus, promtool] = await Promise.all([overridden('PROMETHEUS_PATH'), overridden('PROMTOOL_PATH')]);
  if (prometheus && promtool) return { prometheus, promtool };
  const dir = join(cacheRoot(), 'prometheus', PROMETHEUS_MODULE_VERSION);
  const built = { prometheus: join(dir, 'prometheus'), promtool: join(dir, 'promtool') };
  if (!(await isExecutable(built.prometheus)) || !(await isExecutable(built.promtool))) {
    await goBuild(
      dir,
      `Prometheus and promtool (module ${PROMETHEUS_MODULE_VERSION})`,
      [
        { path: 'github.com/prometheus/prometheus/cmd/prometheus', built: 'prometheus', name: 'prometheus' },
        { path: 'github.com/prometheus/prometheus/cmd/promtool', built: 'promtool', name: 'promtool' },
      ],
      PROMETHEUS_MODULE_VERSION,
    );
  }
  return { prometheus: prometheus ?? built.prometheus, promtool: promtool ?? built.promtool };
}

export interface PrometheusAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: 'pending' | 'firing' | 'inactive';
  value: string;
}

/** A Prometheus server on 127.0.0.1 with its configuration and rules written into `dir`. */
export class PrometheusProcess {
  child: Child | undefined;

  constructor(readonly options: { binary: string; dir: string; port: number }) {}

  get url(): string {
    return `http://127.0.0.1:${this.options.port}`;
  }

  /** Writes the files (by name: `prometheus.yml`, `alerts.yml`...), starts and waits until ready. */
  async start(files: Record<string, string>): Promise<void> {
    const { binary, dir, port } = this.options;
    await mkdir(join(dir, 'data'), { recursive: true, mode: 0o700 });
    for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content, { mode: 0o600 });
    this.child = start('prometheus', binary, [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ]);
    await this.child.waitForHttp(`${this.url}/-/ready`, 60_000);
  }

  private async api<T>(path: string): Promise<T> {
    const response = await fetch(`${this.url}/api/v1/${path}`);
    const body = (await response.json()) as { status: string; data: T; error?: string };
    if (body.status !== 'success') throw new Error(`prometheus ${path}: ${body.error ?? response.status}`);
    return body.data;
  }

  alerts(): Promise<PrometheusAlert[]> {
    return this.api<{ alerts: PrometheusAlert[] }>('alerts').then((data) => data.alerts);
  }

  /** An instant query's samples: labels and value. */
  query(expr: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>> {
    return this.api(`query?query=${encodeURIComponent(expr)}`).then((data) => (data as { result: never }).result);
  }

  /** Every metric name Prometheus holds samples of. */
  metricNames(): Promise<string[]> {
    return this.api<string[]>('label/__name__/values');
  }

  /** Scrape targets and their health. */
  targets(): Promise<Array<{ labels: Record<string, string>; health: string; lastError: string }>> {
    return this.api<{ activeTargets: never[] }>('targets').then((data) => data.activeTargets);
  }

  async stop(): Promise<StopReport | undefined> {
    return this.child?.stop();
  }
}

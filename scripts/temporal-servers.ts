/**
 * Provides real Temporal servers without a download from outside the package registries:
 *
 * - the dev server (Temporal CLI, with the UI) is built once with `go install` from the Go module proxy;
 * - the time-skipping test server (Java) is fetched once from Maven Central with `mvn` and started
 *   through a small wrapper script that `exec`s java.
 *
 * - for `npm run cluster`, the Temporal server, temporal-sql-tool and the Temporal UI server are built
 *   the same way (`npm run servers -- cluster`), and Prometheus with promtool (`-- prometheus`, also for
 *   the alert rule tests; scripts/prometheus.ts).
 *
 * All are cached per user and per version, outside the repository (scripts/cache.ts), each entry built
 * once however many processes ask for it at once. Tests, the demo and CI all call this module; run it
 * directly with the names to provision (`npm run servers -- dev test`) to print their paths. `all` (no
 * name) is everything `npm test` needs, provisioned by its `pretest` before mocha's workers start: both
 * servers, the browser tests' Chromium (scripts/browser.ts), promtool and the contract tools.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  buildAtomically,
  cacheRoot,
  goBuild,
  isExecutable,
  log,
  overridden,
  provisionOnce,
  run,
  seconds,
  ServerProvisioningError,
  which,
} from './cache.js';

export const TEMPORAL_CLI_VERSION = '1.5.1';
export const TEST_SERVER_VERSION = '1.38.0';
/** Bumped when the way the test server is fetched or wrapped changes, so caches are rebuilt. */
const TEST_SERVER_RECIPE = 2;

/** What `@temporalio/testing` accepts as `server.executable`. */
export type ServerExecutable =
  { type: 'existing-path'; path: string } | { type: 'cached-download'; downloadDir?: string };

/** The dev or test server an environment variable points at (unset or empty: none). */
async function serverOverride(variable: string): Promise<ServerExecutable | undefined> {
  const path = process.env[variable] ? await overridden(variable) : undefined;
  return path ? { type: 'existing-path', path } : undefined;
}

/** The Temporal CLI (dev server + UI), built with Go when there is no cached copy. */
export async function devServerExecutable(): Promise<ServerExecutable> {
  const override = await serverOverride('TEMPORAL_CLI_PATH');
  if (override) return override;
  const dir = join(cacheRoot(), 'temporal-cli', TEMPORAL_CLI_VERSION);
  const binary = join(dir, 'temporal');
  if (await isExecutable(binary)) return { type: 'existing-path', path: binary };

  if (!(await which('go'))) {
    log('Go is not installed: falling back to the Temporal SDK download of the dev server (needs internet).');
    return { type: 'cached-download', downloadDir: join(cacheRoot(), 'sdk-download') };
  }
  await goBuild(
    dir,
    `the Temporal dev server (temporal CLI v${TEMPORAL_CLI_VERSION})`,
    [{ path: 'github.com/temporalio/cli/cmd/temporal', built: 'temporal', name: 'temporal' }],
    `v${TEMPORAL_CLI_VERSION}`,
  );
  return { type: 'existing-path', path: binary };
}

export const TEMPORAL_SERVER_VERSION = '1.29.1';
export const UI_SERVER_VERSION = '2.42.1';

/** A Temporal server (every service in one binary) and its SQL schema tool, for a real cluster. */
export interface ClusterExecutables {
  server: string;
  sqlTool: string;
}

/**
 * The Temporal server and temporal-sql-tool, built once with `go install` (TEMPORAL_SERVER_PATH and
 * TEMPORAL_SQL_TOOL_PATH point at binaries you already have).
 */
export async function clusterExecutables(): Promise<ClusterExecutables> {
  const [server, sqlTool] = await Promise.all([
    overridden('TEMPORAL_SERVER_PATH'),
    overridden('TEMPORAL_SQL_TOOL_PATH'),
  ]);
  if (server && sqlTool) return { server, sqlTool };
  const dir = join(cacheRoot(), 'temporal-server', TEMPORAL_SERVER_VERSION);
  const built = { server: join(dir, 'temporal-server'), sqlTool: join(dir, 'temporal-sql-tool') };
  if (!(await isExecutable(built.server)) || !(await isExecutable(built.sqlTool))) {
    await goBuild(
      dir,
      `the Temporal server and temporal-sql-tool v${TEMPORAL_SERVER_VERSION}`,
      [
        { path: 'go.temporal.io/server/cmd/server', built: 'server', name: 'temporal-server' },
        { path: 'go.temporal.io/server/cmd/tools/sql', built: 'sql', name: 'temporal-sql-tool' },
      ],
      `v${TEMPORAL_SERVER_VERSION}`,
    );
  }
  return { server: server ?? built.server, sqlTool: sqlTool ?? built.sqlTool };
}

/** The Temporal UI server, built once with `go install` (TEMPORAL_UI_SERVER_PATH overrides). */
export async function uiServerExecutable(): Promise<string> {
  const override = await overridden('TEMPORAL_UI_SERVER_PATH');
  if (override) return override;
  const dir = join(cacheRoot(), 'temporal-ui-server', UI_SERVER_VERSION);
  const binary = join(dir, 'temporal-ui-server');
  if (!(await isExecutable(binary))) {
    await goBuild(
      dir,
      `the Temporal UI server v${UI_SERVER_VERSION}`,
      [{ path: 'github.com/temporalio/ui-server/v2/cmd/server', built: 'server', name: 'temporal-ui-server' }],
      `v${UI_SERVER_VERSION}`,
    );
  }
  return binary;
}

function testServerPom(): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>local.eca-onboarding</groupId>
  <artifactId>temporal-test-server-fetch</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.temporal</groupId>
      <artifactId>temporal-test-server</artifactId>
      <version>${TEST_SERVER_VERSION}</version>
    </dependency>
    <!-- Binds SLF4J to a no-op logger: the server otherwise prints a warning on every start. -->
    <dependency>
      <groupId>org.slf4j</groupId>
      <artifactId>slf4j-nop</artifactId>
      <version>1.7.36</version>
    </dependency>
  </dependencies>
</project>
`;
}

/**
 * The wrapper the SDK starts as `<wrapper> <port>`. Serial GC and C1-only compilation roughly halve
 * the JVM's start-up on a small machine, which keeps it well inside the SDK's readiness window.
 */
function testServerWrapper(libDir: string): string {
  return `#!/bin/sh
# Temporal time-skipping test server ${TEST_SERVER_VERSION}; argument: port
exec java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \${TEMPORAL_TEST_SERVER_JAVA_OPTS:-} \\
  -cp '${libDir}/*' io.temporal.testserver.TestServer "$@"
`;
}

/** The Java time-skipping test server, fetched with Maven when there is no cached copy. */
export async function testServerExecutable(): Promise<ServerExecutable> {
  const override = await serverOverride('TEMPORAL_TEST_SERVER_PATH');
  if (override) return override;
  const dir = join(cacheRoot(), 'temporal-test-server', `${TEST_SERVER_VERSION}-r${TEST_SERVER_RECIPE}`);
  const wrapper = join(dir, 'temporal-test-server');
  if (await isExecutable(wrapper)) return { type: 'existing-path', path: wrapper };

  const [java, mvn] = await Promise.all([which('java'), which('mvn')]);
  if (!java || !mvn) {
    const missing = [java ? undefined : 'java (JDK 17+)', mvn ? undefined : 'mvn (Maven)'].filter(Boolean);
    log(
      `${missing.join(' and ')} not found: falling back to the Temporal SDK download of the test server (needs internet).`,
    );
    return { type: 'cached-download', downloadDir: join(cacheRoot(), 'sdk-download') };
  }
  await provisionOnce(
    dir,
    () => isExecutable(wrapper),
    async () => {
      log(`fetching the Temporal time-skipping test server ${TEST_SERVER_VERSION} with Maven, first run only...`);
      const started = Date.now();
      await buildAtomically(dir, async (tmp) => {
        await writeFile(join(tmp, 'pom.xml'), testServerPom());
        await run(
          mvn,
          [
            '-q',
            '-B',
            'dependency:copy-dependencies',
            '-DincludeScope=runtime',
            `-DoutputDirectory=${join(tmp, 'lib')}`,
          ],
          { cwd: tmp },
        );
        // The wrapper names the final directory: it is only used after the rename below succeeds.
        await writeFile(join(tmp, 'temporal-test-server'), testServerWrapper(join(dir, 'lib')));
        await chmod(join(tmp, 'temporal-test-server'), 0o755);
      });
      log(`fetched the Temporal test server in ${seconds(started)}: ${wrapper}`);
    },
  );
  return { type: 'existing-path', path: wrapper };
}

/** Options the dev server always needs here (no outbound version check). */
export const DEV_SERVER_EXTRA_ARGS = ['--dynamic-config-value', 'frontend.enableServerVersionCheck=false'];

/** What `npm run servers -- <name>...` provisions; `all` is every one `npm test` needs (its `pretest`). */
const PROVISIONERS: Record<string, () => Promise<void>> = {
  dev: async () => console.log(`dev server:  ${JSON.stringify(await devServerExecutable())}`),
  test: async () => console.log(`test server: ${JSON.stringify(await testServerExecutable())}`),
  // The browser tests' Chromium (scripts/browser.ts): the machine's, or one from the npm registry.
  browser: async () => {
    const { chromiumExecutable } = await import('./browser.js');
    console.log(`chromium:    ${await chromiumExecutable()}`);
  },
  // The rule tests' promtool and the cluster's Prometheus (scripts/prometheus.ts).
  prometheus: async () => {
    const { prometheusExecutables } = await import('./prometheus.js');
    console.log(`prometheus:  ${JSON.stringify(await prometheusExecutables())}`);
  },
  // The contract tests' generator, Python venv and Java client dependencies (scripts/contract-tools.ts).
  contract: async () => {
    const { provisionContractTools } = await import('./contract-tools.js');
    await provisionContractTools();
  },
  cluster: async () => {
    await PROVISIONERS.prometheus!();
    console.log(`cluster:     ${JSON.stringify(await clusterExecutables())}`);
    console.log(`ui server:   ${JSON.stringify(await uiServerExecutable())}`);
  },
};
const ALL = ['dev', 'test', 'browser', 'prometheus', 'contract'];

/** Provisions each name of `names` in turn (none: `all`); an unknown name is refused before any is. */
export async function provision(names: readonly string[]): Promise<void> {
  const unknown = names.filter((name) => name !== 'all' && !(name in PROVISIONERS));
  if (unknown.length > 0) {
    throw new ServerProvisioningError(
      `usage: temporal-servers [all|${Object.keys(PROVISIONERS).join('|')}]... (unknown: ${unknown.join(', ')})`,
    );
  }
  const asked = names.length === 0 ? ['all'] : names;
  const each = [...new Set(asked.flatMap((name) => (name === 'all' ? ALL : [name])))];
  for (const name of each) await PROVISIONERS[name]!();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  provision(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}

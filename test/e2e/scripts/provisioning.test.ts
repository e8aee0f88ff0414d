/**
 * Provisioning the per-user cache (scripts/cache.ts, scripts/temporal-servers.ts) from several processes
 * at once, as mocha's parallel workers ask for it: real `temporal-servers` processes on a cache of their
 * own (ECA_CACHE_DIR), with a stand-in `mvn` on their PATH that records each fetch and ends only when told,
 * so that the processes are known to overlap. No network, no real Maven.
 */
import assert from 'node:assert/strict';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { startTypeScript } from '../../../scripts/processes.js';
import type { Child } from '../../../scripts/processes.js';
import { TEST_SERVER_VERSION } from '../../../scripts/temporal-servers.js';
import { until } from '../../support/until.js';

const SCRIPT = 'scripts/temporal-servers.ts';

/** Records its process id, waits for the go file, then leaves what `dependency:copy-dependencies` would. */
const FAKE_MVN = `#!/bin/sh
echo $$ >> "$FAKE_MVN_LOG"
while [ ! -e "$FAKE_MVN_GO" ]; do sleep 0.05; done
for arg in "$@"; do
  case "$arg" in -DoutputDirectory=*) out="\${arg#-DoutputDirectory=}" ;; esac
done
mkdir -p "$out" && : > "$out/temporal-test-server.jar"
`;

describe('provisioning the cache from several processes at once (scripts/cache.ts)', function () {
  this.timeout(120_000);
  let dir: string;
  const children: Child[] = [];

  beforeEach(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-provisioning-'));
  });

  afterEach(async function () {
    await Promise.all(children.splice(0).map((child) => child.stop('SIGKILL')));
    await rm(dir, { recursive: true, force: true });
  });

  async function fetchesSoFar(log: string): Promise<number> {
    return (await readFile(log, 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
  }

  it('fetches the test server once while the others wait for it, and each answers the one entry', async function () {
    const bin = join(dir, 'bin');
    const log = join(dir, 'mvn.log');
    const go = join(dir, 'go');
    await mkdir(bin);
    await writeFile(join(bin, 'mvn'), FAKE_MVN);
    await writeFile(join(bin, 'java'), '#!/bin/sh\nexit 0\n');
    await Promise.all([chmod(join(bin, 'mvn'), 0o755), chmod(join(bin, 'java'), 0o755)]);
    const env = {
      PATH: `${bin}${delimiter}${process.env.PATH ?? ''}`,
      ECA_CACHE_DIR: join(dir, 'cache'),
      TEMPORAL_TEST_SERVER_PATH: '',
      FAKE_MVN_LOG: log,
      FAKE_MVN_GO: go,
    };
    const askers = [1, 2, 3].map((i) => startTypeScript(`provisioner ${i}`, SCRIPT, ['test'], env));
    children.push(...askers);
    // Each is either fetching (a line in the log) or says that it waits: all three have got that far.
    await until('every process to fetch or wait', async () => {
      const waiting = askers.filter((child) =>
        /waiting for (process \d+|another process) to provide/.test(child.output),
      ).length;
      return (await fetchesSoFar(log)) + waiting >= askers.length;
    });
    assert.equal(await fetchesSoFar(log), 1, 'one fetch, the others waiting for it');
    await writeFile(go, '');
    const codes = await Promise.all(askers.map((child) => child.exited));
    assert.deepEqual(codes, [0, 0, 0], askers.map((child) => child.output).join('\n'));
    const wrapper = join(dir, 'cache', 'temporal-test-server', `${TEST_SERVER_VERSION}-r2`, 'temporal-test-server');
    for (const child of askers) assert.ok(child.output.includes(`"path":"${wrapper}"`), child.output);
    assert.equal((await stat(wrapper)).mode & 0o111, 0o111);
    assert.equal(await fetchesSoFar(log), 1);
  });

  it('provisions every name it is given, in turn, and refuses an unknown one before any', async function () {
    const env = {
      ECA_CACHE_DIR: join(dir, 'cache'),
      // Executables that exist: nothing is built, each name answers its path.
      TEMPORAL_CLI_PATH: process.execPath,
      TEMPORAL_TEST_SERVER_PATH: process.execPath,
    };
    const both = startTypeScript('provisioner', SCRIPT, ['dev', 'test'], env);
    children.push(both);
    assert.equal(await both.exited, 0, both.output);
    assert.match(both.output, /dev server: .*"existing-path"/);
    assert.match(both.output, /test server: .*"existing-path"/);

    const unknown = startTypeScript('provisioner', SCRIPT, ['dev', 'tset'], env);
    children.push(unknown);
    assert.equal(await unknown.exited, 1);
    assert.match(unknown.output, /unknown: tset/);
    assert.doesNotMatch(unknown.output, /dev server:/);
  });
});

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, loadWorkerConfig } from '../../../runtime/config.js';
import { createEcaClientFromConfig } from '../../../runtime/brokerage.js';

describe('worker configuration', function () {
  let dir: string;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-config-'));
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('has defaults for a local run and reads every setting from the environment', function () {
    const defaults = loadWorkerConfig({});
    assert.equal(defaults.temporal.address, 'localhost:7233');
    assert.equal(defaults.temporal.taskQueue, 'eca-onboarding');
    assert.equal(defaults.polling.maxAccountsPerCall, 100);
    assert.equal(defaults.worker.isolateExecutionTimeoutMs, 60_000, 'far above the SDK default of 5 s');

    const config = loadWorkerConfig({
      TEMPORAL_ADDRESS: 'temporal.example:7233',
      TEMPORAL_API_KEY: 'key',
      ECA_CSID: 'FIRM1',
      ECA_POLL_MAX_ACCOUNTS_PER_CALL: '250',
      ECA_SWEEP_LISTING_INTERVAL_MS: '600000',
      WORKER_MAX_CACHED_WORKFLOWS: '5000',
      WORKER_ISOLATE_EXECUTION_TIMEOUT_MS: '120000',
      ECA_CALLS_PER_SECOND: '10',
      ECA_CALLS_PER_SECOND_BY_OPERATION: 'create=2, getAccountStatus=5',
      ECA_MAINTENANCE_WINDOWS: 'Sun 22:00-02:00',
      ECA_MAINTENANCE_TIME_ZONE: 'America/New_York',
    });
    assert.equal(config.temporal.address, 'temporal.example:7233');
    assert.equal(config.temporal.tls.enabled, true, 'an API key implies TLS');
    assert.equal(config.brokerage.csid, 'FIRM1');
    assert.equal(config.polling.maxAccountsPerCall, 250);
    assert.equal(config.polling.sweepListingIntervalMs, 600_000);
    assert.equal(defaults.polling.sweepListingIntervalMs, 3_600_000, 'the sweep lists once an hour by default');
    assert.equal(config.worker.maxCachedWorkflows, 5000);
    assert.equal(config.worker.isolateExecutionTimeoutMs, 120_000);
    assert.equal(config.brokerage.callsPerSecond, 10);
    assert.deepEqual(config.brokerage.callsPerSecondByOperation, { create: 2, getAccountStatus: 5 });
    assert.equal(config.brokerage.callWaitMaxMs, 20_000);
    assert.equal(config.brokerage.maintenanceWindows, 'Sun 22:00-02:00');
    assert.equal(config.brokerage.maintenanceTimeZone, 'America/New_York');
    assert.equal(defaults.brokerage.callsPerSecond, undefined, 'no cap unless set');
    assert.equal(defaults.brokerage.maintenanceTimeZone, 'UTC');
  });

  it('names the variable of every invalid value', function () {
    assert.throws(
      () =>
        loadWorkerConfig({
          ECA_ENVIRONMENT: 'staging',
          ECA_POLL_MAX_ACCOUNTS_PER_CALL: '-3',
          ECA_BASE_URL: 'not a url',
          ECA_CALLS_PER_SECOND: '0',
          ECA_CALLS_PER_SECOND_BY_OPERATION: 'creat=2',
          ECA_MAINTENANCE_WINDOWS: 'Sun 22:00-2:00',
          ECA_MAINTENANCE_TIME_ZONE: 'Mars/Olympus',
        }),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /ECA_CALLS_PER_SECOND \(/.test(error.message) &&
        /ECA_MAINTENANCE_WINDOWS .*"Sun 22:00-2:00"/.test(error.message) &&
        /ECA_MAINTENANCE_TIME_ZONE .*IANA time zone/.test(error.message) &&
        /ECA_CALLS_PER_SECOND_BY_OPERATION \(brokerage\.callsPerSecondByOperation\): Unrecognized key: "creat"/.test(
          error.message,
        ) &&
        /ECA_ENVIRONMENT/.test(error.message) &&
        /ECA_POLL_MAX_ACCOUNTS_PER_CALL/.test(error.message) &&
        /ECA_BASE_URL/.test(error.message),
    );
  });

  it('reads a JSON file under the environment, and refuses one that is not JSON', async function () {
    const file = join(dir, 'config.json');
    await writeFile(file, JSON.stringify({ temporal: { namespace: 'onboarding' }, brokerage: { csid: 'FROMFILE' } }));
    const config = loadWorkerConfig({ ECA_CONFIG_FILE: file, ECA_CSID: 'FROMENV' });
    assert.equal(config.temporal.namespace, 'onboarding');
    assert.equal(config.brokerage.csid, 'FROMENV', 'the environment wins over the file');

    await writeFile(file, '{ not json');
    assert.throws(() => loadWorkerConfig({ ECA_CONFIG_FILE: file }), /ECA_CONFIG_FILE .* is not a JSON object/);
    assert.throws(() => loadWorkerConfig({ ECA_CONFIG_FILE: join(dir, 'missing.json') }), /cannot be read/);
  });

  it('requires the brokerage CSID and keys before the worker connects, naming each missing one', function () {
    assert.throws(
      () => createEcaClientFromConfig(loadWorkerConfig({ ECA_CSID: 'FIRM1' }).brokerage),
      /ECA_FIRM_PRIVATE_KEY, ECA_BROKERAGE_PUBLIC_KEY/,
    );
  });

  it('reads Worker Versioning, and refuses a deployment or build named while it is off', function () {
    assert.deepEqual(
      (({ versioning, deploymentName, buildId }) => ({ versioning, deploymentName, buildId }))(
        loadWorkerConfig({ WORKER_VERSIONING: 'true', WORKER_DEPLOYMENT_NAME: 'eca', WORKER_BUILD_ID: '1.0.1' }).worker,
      ),
      { versioning: true, deploymentName: 'eca', buildId: '1.0.1' },
    );
    assert.equal(loadWorkerConfig({}).worker.versioning, false);
    assert.throws(
      () => loadWorkerConfig({ WORKER_BUILD_ID: '1.0.1' }),
      /WORKER_VERSIONING \(worker.versioning\): WORKER_DEPLOYMENT_NAME and WORKER_BUILD_ID apply only with WORKER_VERSIONING=true/,
    );
  });
});

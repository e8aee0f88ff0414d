/**
 * Where Temporal is, read through Temporal's environment configuration: a TOML profile file, the
 * standard variables over it, the engine's earlier TLS names with a deprecation warning, and errors
 * that name the file, the profile or the variables. Real files in a temporary folder.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigurationError, loadWorkerConfig } from '../../../runtime/config.js';
import { temporalConnectionOptions } from '../../../runtime/temporal-connection.js';
import { loadTemporalProfile } from '../../../runtime/temporal-profile.js';

describe('Temporal connection settings (environment configuration)', function () {
  let dir: string;
  let toml: string;
  const files: Record<string, string> = {};

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-profile-'));
    for (const name of ['ca', 'cert', 'key', 'other-cert']) {
      files[name] = join(dir, `${name}.pem`);
      await writeFile(files[name], `-----BEGIN ${name.toUpperCase()}-----\n${name}\n-----END-----\n`);
    }
    toml = join(dir, 'temporal.toml');
    await writeFile(
      toml,
      `[profile.default]
address = "localhost:7233"
namespace = "default"

[profile.prod]
address = "prod.tmprl.cloud:7233"
namespace = "onboarding.a1b2c"

[profile.prod.tls]
client_cert_path = "${files.cert}"
client_key_path = "${files.key}"
server_name = "prod.tmprl.cloud"

[profile.prod.grpc_meta]
team = "onboarding"
`,
    );
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  it('takes the profile TEMPORAL_PROFILE names from TEMPORAL_CONFIG_FILE, TLS files and gRPC metadata included', async function () {
    const config = loadWorkerConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod' });
    assert.equal(config.temporal.address, 'prod.tmprl.cloud:7233');
    assert.equal(config.temporal.namespace, 'onboarding.a1b2c');
    assert.deepEqual(config.temporal.grpcMetadata, { team: 'onboarding' });
    const options = await temporalConnectionOptions(config.temporal);
    assert.equal(options.tls?.serverNameOverride, 'prod.tmprl.cloud');
    assert.match(options.tls?.clientCertPair?.crt.toString() ?? '', /BEGIN CERT/);
    assert.match(options.tls?.clientCertPair?.key.toString() ?? '', /BEGIN KEY/);
    assert.deepEqual(options.metadata, { team: 'onboarding' });

    const local = loadWorkerConfig({ TEMPORAL_CONFIG_FILE: toml });
    assert.equal(local.temporal.address, 'localhost:7233', 'the default profile without TEMPORAL_PROFILE');
    assert.equal(local.temporal.tls.enabled, false);
  });

  it("lets the standard variables override the profile, and both override the engine's JSON file", async function () {
    const config = loadWorkerConfig({
      TEMPORAL_CONFIG_FILE: toml,
      TEMPORAL_PROFILE: 'prod',
      TEMPORAL_ADDRESS: 'override:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: files['other-cert']!,
      TEMPORAL_TLS_SERVER_CA_CERT_PATH: files.ca!,
    });
    assert.equal(config.temporal.address, 'override:7233');
    assert.equal(config.temporal.namespace, 'onboarding.a1b2c', 'what the variables leave alone stays the profile’s');
    const options = await temporalConnectionOptions(config.temporal);
    assert.match(options.tls?.clientCertPair?.crt.toString() ?? '', /BEGIN OTHER-CERT/);
    assert.match(options.tls?.serverRootCACertificate?.toString() ?? '', /BEGIN CA/);
    // The variables also win over the engine's own JSON file (ECA_CONFIG_FILE).
    const json = join(dir, 'eca.json');
    await writeFile(json, JSON.stringify({ temporal: { address: 'from-json:7233', namespace: 'json-ns' } }));
    const layered = loadWorkerConfig({ ECA_CONFIG_FILE: json, TEMPORAL_NAMESPACE: 'env-ns' });
    assert.deepEqual([layered.temporal.address, layered.temporal.namespace], ['from-json:7233', 'env-ns']);
  });

  it('reads certificates given as data, and TEMPORAL_TLS=false turns TLS off', async function () {
    const config = loadWorkerConfig({
      TEMPORAL_TLS_CLIENT_CERT_DATA: '-----BEGIN INLINE CERT-----',
      TEMPORAL_TLS_CLIENT_KEY_DATA: '-----BEGIN INLINE KEY-----',
    });
    assert.equal(config.temporal.tls.enabled, true);
    const options = await temporalConnectionOptions(config.temporal);
    assert.equal(options.tls?.clientCertPair?.crt.toString(), '-----BEGIN INLINE CERT-----');
    const off = loadWorkerConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'prod', TEMPORAL_TLS: 'false' });
    assert.equal(off.temporal.tls.enabled, false);
  });

  it('accepts the earlier TLS names, each with one deprecation warning naming its replacement', async function () {
    const warnings: string[] = [];
    const env = { TEMPORAL_TLS_CERT: files.cert!, TEMPORAL_TLS_KEY: files.key!, TEMPORAL_TLS_CA: files.ca! };
    const profile = loadTemporalProfile(env, (message) => warnings.push(message));
    assert.deepEqual(profile.tls?.clientCert, { path: files.cert });
    assert.deepEqual(profile.tls?.clientKey, { path: files.key });
    assert.deepEqual(profile.tls?.serverCa, { path: files.ca });
    assert.deepEqual(warnings.sort(), [
      'TEMPORAL_TLS_CA is deprecated: use TEMPORAL_TLS_SERVER_CA_CERT_PATH',
      'TEMPORAL_TLS_CERT is deprecated: use TEMPORAL_TLS_CLIENT_CERT_PATH',
      'TEMPORAL_TLS_KEY is deprecated: use TEMPORAL_TLS_CLIENT_KEY_PATH',
    ]);
    loadTemporalProfile(env, (message) => warnings.push(message));
    assert.equal(warnings.length, 3, 'once per process');
    const options = await temporalConnectionOptions(loadWorkerConfig(env).temporal);
    assert.match(options.tls?.clientCertPair?.crt.toString() ?? '', /BEGIN CERT/);
    // The same name twice with the same value is fine; with two values it is an error naming both.
    loadTemporalProfile({ TEMPORAL_TLS_CERT: files.cert!, TEMPORAL_TLS_CLIENT_CERT_PATH: files.cert! }, () => {});
    assert.throws(
      () => loadTemporalProfile({ TEMPORAL_TLS_CERT: files.cert!, TEMPORAL_TLS_CLIENT_CERT_PATH: files.ca! }, () => {}),
      (error: unknown) =>
        error instanceof ConfigurationError &&
        /TEMPORAL_TLS_CERT and TEMPORAL_TLS_CLIENT_CERT_PATH name different files/.test(error.message),
    );
  });

  it('names the file and the profile when they are wrong', async function () {
    assert.throws(
      () => loadWorkerConfig({ TEMPORAL_CONFIG_FILE: toml, TEMPORAL_PROFILE: 'staging' }),
      (error: unknown) =>
        error instanceof ConfigurationError && error.message.includes(`Temporal profile "staging" from ${toml}`),
    );
    assert.throws(
      () => loadWorkerConfig({ TEMPORAL_CONFIG_FILE: join(dir, 'missing.toml') }),
      (error: unknown) => error instanceof ConfigurationError && /missing\.toml does not exist/.test(error.message),
    );
    const broken = join(dir, 'broken.toml');
    await writeFile(broken, '[profile.default\naddress = ');
    assert.throws(
      () => loadWorkerConfig({ TEMPORAL_CONFIG_FILE: broken }),
      (error: unknown) => error instanceof ConfigurationError && error.message.includes(broken),
    );
    await assert.rejects(
      temporalConnectionOptions(loadWorkerConfig({ TEMPORAL_TLS_CLIENT_CERT_PATH: files.cert! }).temporal),
      /TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH go together/,
    );
    await assert.rejects(
      temporalConnectionOptions(loadWorkerConfig({ TEMPORAL_TLS_SERVER_CA_CERT_PATH: join(dir, 'nope.pem') }).temporal),
      /TEMPORAL_TLS_SERVER_CA_CERT_PATH .*nope\.pem cannot be read/,
    );
  });
});

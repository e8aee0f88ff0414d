/** `eca firms` (the real executable) on the embedded database: keys sealed, never printed, errors named. */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import * as openpgp from 'openpgp';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateKeyPair } from '../../../eca/crypto.js';
import { formatCodecKeys, generateCodecKeyring } from '../../../codec/keyring.js';
import { exitCodeOf } from '../../../client/cli/exit-codes.js';
import { openDatabase } from '../../../runtime/database/index.js';
import type { Database } from '../../../runtime/database/index.js';
import { useDatabaseBackends } from '../../support/databases.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

describe('eca firms (real executable)', function () {
  this.timeout(120_000);
  const backends = useDatabaseBackends({ postgres: false });
  let url: string;
  // The test process holds the database, as a running worker or API server would: each CLI run connects
  // through the holder's socket instead of opening PGlite itself (seconds of CPU a run).
  let held: Database | undefined;
  let folder: string;
  const codecKeys = formatCodecKeys(generateCodecKeyring('k1'));
  const files = { firm: '', rotated: '', brokerage: '', passphrase: '' };
  const secrets: string[] = [];

  function eca(
    words: string[],
    env: Record<string, string> = { ECA_CODEC_KEYS: codecKeys },
    database: string = url,
  ): Promise<Run> {
    const {
      ECA_DATABASE_URL: _url,
      ECA_CSID: _csid,
      ECA_OUTPUT: _output,
      ECA_CODEC_KEYS: _keys,
      ...inherited
    } = process.env;
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        [ECA, 'firms', ...words, '--database', database],
        { env: { ...inherited, NO_COLOR: '1', ...env } },
        (error, stdout, stderr) =>
          resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });
  }

  /** Asserts the run succeeded and printed no key or passphrase. */
  function clean(run: Run): Run {
    assert.equal(run.code, 0, run.stderr);
    for (const secret of secrets) assert.ok(!`${run.stdout}${run.stderr}`.includes(secret), 'a secret was printed');
    assert.doesNotMatch(run.stdout, /BEGIN PGP/);
    return run;
  }

  before(async function () {
    url = await backends.embedded.freshUrl();
    held = await openDatabase(url);
    folder = await mkdtemp(join(tmpdir(), 'eca-firms-cli-'));
    const passphrase = 'cli firm passphrase';
    const [firm, rotated, brokerage] = await Promise.all([
      generateKeyPair({ name: 'Firm', email: 'firm@example.test', passphrase }),
      generateKeyPair({ name: 'Firm', email: 'firm@example.test', passphrase }),
      generateKeyPair({ name: 'Brokerage', email: 'brokerage@example.test' }),
    ]);
    secrets.push(passphrase, firm.privateKey.split('\n')[3]!, codecKeys.split(':')[1]!);
    for (const [name, text] of Object.entries({
      firm: firm.privateKey,
      rotated: rotated.privateKey,
      brokerage: brokerage.publicKey,
      passphrase: `${passphrase}\n`,
    })) {
      files[name as keyof typeof files] = join(folder, `${name}.asc`);
      await writeFile(files[name as keyof typeof files], text, { mode: 0o600 });
    }
  });

  after(async function () {
    await held?.close();
    if (folder) await rm(folder, { recursive: true, force: true });
  });

  const keyArgs = (firmKey: string) => [
    '--firm-key',
    firmKey,
    '--brokerage-key',
    files.brokerage,
    '--passphrase-file',
    files.passphrase,
  ];

  it('adds, lists, shows, updates, rotates, disables and enables a firm, printing no key', async function () {
    const added = clean(
      await eca(['add', 'A-X', '--name', 'Advisors X', '--firm-type', 'advisor', ...keyArgs(files.firm), '-o', 'json']),
    );
    const record = JSON.parse(added.stdout) as { csid: string; keys: { version: number }; settings: object };
    assert.equal(record.csid, 'A-X');
    assert.equal(record.keys.version, 1);
    assert.deepEqual((record.settings as { firmTypes: string[] }).firmTypes, ['advisor']);

    const listed = clean(await eca(['list']));
    assert.match(listed.stdout, /A-X\s+Advisors X\s+qa\s+database\s+v1/);
    clean(await eca(['update', 'A-X', '--calls-per-second', '10', '--maintenance-windows', '03:00-03:30']));
    const shown = clean(await eca(['show', 'A-X']));
    assert.match(shown.stdout, /calls a second:\s+10 in all/);
    assert.match(shown.stdout, /maintenance windows:\s+03:00-03:30 \(UTC\)/);

    const rotated = clean(await eca(['rotate-keys', 'A-X', ...keyArgs(files.rotated), '-o', 'json']));
    assert.equal((JSON.parse(rotated.stdout) as { keys: { version: number } }).keys.version, 2);

    clean(await eca(['disable', 'A-X', '--reason', 'contract ended', '--yes']));
    assert.match(clean(await eca(['list'])).stdout, /disabled: contract ended/);
    clean(await eca(['enable', 'A-X']));
    assert.match(clean(await eca(['show', 'A-X'])).stdout, /state:\s+active/);
  });

  it('adds a firm on the Web API with its client and key, moves another to it, and names what is missing', async function () {
    const pem = join(folder, 'webapi.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pemText = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    secrets.push(pemText.split('\n')[2]!);
    await writeFile(pem, pemText, { mode: 0o600 });
    const client = [
      '--webapi-url',
      'https://api.example.test',
      '--webapi-client-id',
      'w-client',
      '--webapi-key-id',
      'k1',
    ];
    clean(await eca(['add', 'W-1', '--protocol', 'webapi', ...client, '--webapi-key', pem, ...keyArgs(files.firm)]));
    const shown = clean(await eca(['show', 'W-1']));
    assert.match(shown.stdout, /protocol:\s+the Web API \(OAuth 2\.0\)/);
    assert.match(shown.stdout, /Web API client:\s+w-client \(key k1\) at https:\/\/api\.example\.test/);

    clean(await eca(['add', 'W-2', ...keyArgs(files.firm)]));
    assert.match(clean(await eca(['show', 'W-2'])).stdout, /protocol:\s+the XML service/);
    const withoutClient = await eca(['update', 'W-2', '--protocol', 'webapi']);
    assert.notEqual(withoutClient.code, 0);
    assert.match(withoutClient.stderr, /webApi/);
    clean(await eca(['rotate-keys', 'W-2', ...keyArgs(files.firm), '--webapi-key', pem]));
    clean(await eca(['update', 'W-2', '--protocol', 'webapi', ...client]));
    assert.match(clean(await eca(['show', 'W-2'])).stdout, /protocol:\s+the Web API/);
    const notPem = await eca([
      'add',
      'W-3',
      '--protocol',
      'webapi',
      ...client,
      '--webapi-key',
      files.brokerage,
      ...keyArgs(files.firm),
    ]);
    assert.notEqual(notPem.code, 0);
    assert.match(notPem.stderr, /webApiPrivateKey/);
  });

  it('refuses a brokerage URL that is a metadata service, another scheme or carries a password, naming the field', async function () {
    const pem = join(folder, 'urls.pem');
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pemText = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    secrets.push(pemText.split('\n')[2]!);
    await writeFile(pem, pemText, { mode: 0o600 });
    const client = (url: string) => ['--webapi-url', url, '--webapi-client-id', 'u-client', '--webapi-key-id', 'k1'];
    const metadata = await eca([
      'add',
      'U-1',
      '--protocol',
      'webapi',
      ...client('http://169.254.169.254/latest/'),
      '--webapi-key',
      pem,
      ...keyArgs(files.firm),
    ]);
    assert.equal(metadata.code, exitCodeOf('INVALID_INPUT'), metadata.stderr);
    assert.match(metadata.stderr, /webApi\.baseUrl: 169\.254\.169\.254 is a link-local address: never a brokerage/);
    for (const [option, url, field, reason] of [
      ['--base-url', 'file:///etc/passwd', 'baseUrl', /scheme file is not http or https/],
      ['--preference-url', 'http://user:secret@prefs.example.test/', 'preferenceUrl', /user name or password/],
      ['--base-url', 'gopher://127.0.0.1:25/', 'baseUrl', /scheme gopher/],
    ] as const) {
      const run = await eca(['add', 'U-2', option, url, ...keyArgs(files.firm)]);
      assert.equal(run.code, exitCodeOf('INVALID_INPUT'), run.stderr);
      assert.match(run.stderr, new RegExp(`${field}: `));
      assert.match(run.stderr, reason);
      assert.ok(!run.stderr.includes('secret@'), 'the password is not repeated');
    }
    assert.doesNotMatch(clean(await eca(['list'])).stdout, /U-[12]\b/, 'nothing was added');
    // A private network stays allowed (a brokerage reached over a VPN), and a live firm cannot move to the metadata service.
    clean(await eca(['add', 'U-3', '--base-url', 'http://10.1.2.3:8443/', ...keyArgs(files.firm)]));
    const moved = await eca(['update', 'U-3', '--base-url', 'http://[fd00:ec2::254]/']);
    assert.equal(moved.code, exitCodeOf('INVALID_INPUT'), moved.stderr);
    assert.match(moved.stderr, /baseUrl: \[fd00:ec2::254\] is a cloud metadata service/);
    assert.match(clean(await eca(['show', 'U-3'])).stdout, /10\.1\.2\.3:8443/);
  });

  it('takes a binary key file, and reads the firms without the codec keys, opening a database no one holds', async function () {
    const own = await backends.embedded.freshUrl();
    const binary = join(folder, 'firm.gpg');
    const armored = await readFile(files.firm, 'utf8');
    await writeFile(binary, (await openpgp.readPrivateKey({ armoredKey: armored })).write(), { mode: 0o600 });
    clean(
      await eca(
        ['add', 'BIN', '--firm-key', binary, '--brokerage-key', files.brokerage, '--passphrase-file', files.passphrase],
        { ECA_CODEC_KEYS: codecKeys },
        own,
      ),
    );
    const listed = clean(await eca(['list'], {}, own));
    assert.match(listed.stdout, /BIN/);
  });

  it('names what is wrong, with the exit code of its class', async function () {
    const noCodec = await eca(['add', 'B', ...keyArgs(files.firm)], {});
    assert.equal(noCodec.code, exitCodeOf('CONFIGURATION'), noCodec.stderr);
    const unsealed = await eca(['add', 'B', ...keyArgs(files.firm)], { ECA_CODEC_DISABLED: 'true' });
    assert.equal(unsealed.code, exitCodeOf('INVALID_INPUT'), unsealed.stderr);
    assert.match(unsealed.stderr, /keys: .*sealed with the codec keys: configure ECA_CODEC_KEYS/);

    const badUrl = await eca(['add', 'B', '--base-url', 'nowhere', ...keyArgs(files.firm)]);
    assert.equal(badUrl.code, exitCodeOf('INVALID_INPUT'));
    assert.match(badUrl.stderr, /baseUrl/);

    const wrongPassphrase = await eca(['add', 'B', '--firm-key', files.firm, '--brokerage-key', files.brokerage], {
      ECA_CODEC_KEYS: codecKeys,
      ECA_FIRM_KEY_PASSPHRASE: 'not it',
    });
    assert.equal(wrongPassphrase.code, exitCodeOf('INVALID_INPUT'));
    assert.match(wrongPassphrase.stderr, /firmPrivateKey.*passphrase/);

    // A file that holds no key is refused without a word of what it holds.
    const garbage = join(folder, 'garbage.key');
    await writeFile(garbage, 'SECRET-LOOKING-BYTES\u0000\u0001', { mode: 0o600 });
    const notAKey = await eca(['add', 'B', '--firm-key', garbage, '--brokerage-key', files.brokerage]);
    assert.equal(notAKey.code, exitCodeOf('INVALID_INPUT'));
    assert.match(notAKey.stderr, /--firm-key: .*not an OpenPGP private key/);
    assert.ok(!notAKey.stderr.includes('SECRET-LOOKING'), notAKey.stderr);

    const unknown = await eca(['disable', 'NOPE', '--reason', 'x', '--yes']);
    assert.equal(unknown.code, exitCodeOf('FIRM_NOT_CONFIGURED'));
    assert.match(unknown.stderr, /firm NOPE/);
  });
});

/**
 * `firms`: the firms one deployment serves, in the engine's database (runtime/firms.ts): add, list, show,
 * update, rotate-keys, disable, enable. Keys are read from files and sealed with the codec keys
 * (ECA_CODEC_KEYS, the workers' own); no command prints a key. A passphrase is read from a file or from
 * ECA_FIRM_KEY_PASSPHRASE, never from the command line (where `ps` would show it).
 */
import { readFileSync } from 'node:fs';
import { PROTOCOL_NAMES } from '../../domain/protocols.js';
import { Option } from 'commander';
import type { Command } from 'commander';
import type { FirmKeys, FirmRecord, FirmRegistry } from '../../runtime/firms.js';
import { DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL } from '../../runtime/database/url.js';
import { InvalidInputError } from '../errors.js';
import { withDatabase } from './api-keys.js';
import { confirm, examples, yesOption } from './options.js';
import { out, table, time } from './output.js';
import type { OutputFormat } from './output.js';

const firmsModule = () => import('../../runtime/firms.js');
const keyringModule = () => import('../../codec/keyring.js');
const settingsModule = () => import('../../runtime/firm-settings.js');

/**
 * Runs `run` with the registry of the database the options name. Commands that seal keys (`sealing`) need
 * the codec keys (ECA_CODEC_KEYS) and stop without them; the others open no key and need none.
 */
async function withFirms<T>(
  command: Command,
  run: (firms: FirmRegistry, output: OutputFormat) => Promise<T>,
  { sealing = false } = {},
) {
  const [{ FirmRegistry }, { configuredCodecKeyring, CodecConfigurationError }] = await Promise.all([
    firmsModule(),
    keyringModule(),
  ]);
  let keyring: ReturnType<typeof configuredCodecKeyring>;
  try {
    keyring = configuredCodecKeyring();
  } catch (error) {
    if (sealing || !(error instanceof CodecConfigurationError)) throw error;
  }
  return withDatabase(command, (db, options) => run(new FirmRegistry(db, { keyring }), options.output));
}

/** A record with its dates as ISO text: what `-o json` prints. */
function plain(record: FirmRecord): Record<string, unknown> {
  return JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
}

function recordsTable(records: FirmRecord[]): string {
  return table(
    ['CSID', 'NAME', 'ENVIRONMENT', 'MANAGED BY', 'KEYS', 'ROTATED', 'STATE'],
    records.map((record) => [
      record.csid,
      record.name,
      record.settings.environment,
      record.managedBy,
      `v${record.keys.version}${record.keys.stored ? '' : ' (environment only)'}`,
      time(record.keys.rotatedAt),
      record.disabled ? `disabled: ${record.disabled.reason}` : 'active',
    ]),
  );
}

function recordText(record: FirmRecord): string {
  const { settings } = record;
  const rows: Array<[string, string | undefined]> = [
    ['CSID', record.csid],
    ['name', record.name],
    ['state', record.disabled ? `disabled since ${time(record.disabled.at)}: ${record.disabled.reason}` : 'active'],
    ['managed by', record.managedBy === 'environment' ? 'the environment of its workers (ECA_CSID)' : 'eca firms'],
    ['protocol', PROTOCOL_NAMES[settings.protocol]],
    ...(settings.webApi
      ? ([
          [
            'Web API client',
            `${settings.webApi.clientId} (key ${settings.webApi.keyId}) at ${settings.webApi.baseUrl}`,
          ],
        ] as Array<[string, string]>)
      : []),
    ['environment', settings.environment],
    ['base URL', settings.baseUrl ?? "the environment's"],
    ['preference URL', settings.preferenceUrl ?? "the environment's"],
    ['firm types', settings.firmTypes.join(', ') || 'none given'],
    [
      'calls a second',
      [
        settings.callsPerSecond === undefined ? 'no cap' : `${settings.callsPerSecond} in all`,
        ...Object.entries(settings.callsPerSecondByOperation ?? {}).map(([operation, n]) => `${operation} ${n}`),
      ].join(', '),
    ],
    [
      'maintenance windows',
      settings.maintenanceWindows ? `${settings.maintenanceWindows} (${settings.maintenanceTimeZone})` : 'none',
    ],
    ['status sweep', settings.sweepInterval ? `every ${settings.sweepInterval}` : "the deployment's slot"],
    [
      'keys',
      `version ${record.keys.version}, rotated ${time(record.keys.rotatedAt)}${record.keys.stored ? ', sealed in the database' : ', held by the environment only'}${record.keys.openPgp ? '' : ', no OpenPGP keys (Web API alone)'}`,
    ],
    ['added', time(record.createdAt)],
  ];
  return rows.map(([name, value]) => `${`${name}:`.padEnd(21)}${value ?? ''}`).join('\n');
}

interface KeyOptions {
  firmKey?: string;
  brokerageKey?: string;
  passphraseFile?: string;
  webapiKey?: string;
}

/** The keys the options name, read from their files (armored or binary) as armored text; never printed. */
async function keysOf(options: KeyOptions): Promise<FirmKeys> {
  const read = (file: string | undefined, option: string): Buffer => {
    if (!file) throw new InvalidInputError(option, 'give the file of the key');
    try {
      return readFileSync(file);
    } catch (error) {
      throw new InvalidInputError(
        option,
        `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
  };
  const armored = async (file: string | undefined, option: string, kind: 'private' | 'public') => {
    const bytes = read(file, option);
    try {
      return await (await settingsModule()).armoredKey(bytes, kind);
    } catch (error) {
      throw new InvalidInputError(option, `${file}: ${(error as Error).message}`);
    }
  };
  const passphrase = options.passphraseFile
    ? read(options.passphraseFile, '--passphrase-file')
        .toString('utf8')
        .replace(/\r?\n$/, '')
    : process.env.ECA_FIRM_KEY_PASSPHRASE;
  // A firm on the Web API alone gives its Web API key and no OpenPGP keys; the registry says what is missing.
  const openPgp = options.firmKey !== undefined || options.brokerageKey !== undefined || !options.webapiKey;
  return {
    ...(openPgp && {
      firmPrivateKey: await armored(options.firmKey, '--firm-key', 'private'),
      brokeragePublicKey: await armored(options.brokerageKey, '--brokerage-key', 'public'),
    }),
    ...(passphrase ? { passphrase } : {}),
    // The registry reads the PEM file (or text) and checks it is an RSA private key.
    ...(options.webapiKey ? { webApiPrivateKey: options.webapiKey } : {}),
  };
}

interface SettingOptions {
  environment?: string;
  baseUrl?: string;
  preferenceUrl?: string;
  firmType?: string[];
  callsPerSecond?: string;
  maintenanceWindows?: string;
  maintenanceTimeZone?: string;
  sweepInterval?: string;
  protocol?: string;
  webapiUrl?: string;
  webapiClientId?: string;
  webapiKeyId?: string;
}

/** The settings the options give (the registry checks each and names the one that is wrong). */
function settingsOf(options: SettingOptions): Record<string, unknown> {
  const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));
  const entries: Array<[string, unknown]> = [
    ['environment', options.environment],
    ['baseUrl', options.baseUrl],
    ['preferenceUrl', options.preferenceUrl],
    ['firmTypes', options.firmType],
    ['callsPerSecond', number(options.callsPerSecond)],
    ['maintenanceWindows', options.maintenanceWindows],
    ['maintenanceTimeZone', options.maintenanceTimeZone],
    ['sweepInterval', options.sweepInterval],
    ['protocol', options.protocol],
    [
      'webApi',
      options.webapiUrl || options.webapiClientId || options.webapiKeyId
        ? { baseUrl: options.webapiUrl, clientId: options.webapiClientId, keyId: options.webapiKeyId }
        : undefined,
    ],
  ];
  return Object.fromEntries(entries.filter(([, value]) => value !== undefined));
}

const printed = (output: OutputFormat, record: FirmRecord, line: string) =>
  out(output, plain(record), () => `${line}\n${recordText(record)}`);

async function add(csid: string, options: SettingOptions & KeyOptions & { name?: string }, command: Command) {
  const keys = await keysOf(options);
  await withFirms(
    command,
    async (firms, output) => {
      const record = await firms.add({ csid, name: options.name ?? csid, settings: settingsOf(options), keys });
      printed(output, record, `added firm ${csid}: workers use it within seconds, no restart`);
    },
    { sealing: true },
  );
}

async function list(_options: unknown, command: Command) {
  await withFirms(command, async (firms, output) => {
    const records = await firms.list();
    out(output, records.map(plain), () => (records.length === 0 ? 'no firms (eca firms add)' : recordsTable(records)));
  });
}

async function show(csid: string, _options: unknown, command: Command) {
  await withFirms(command, async (firms, output) => {
    const record = await firms.get(csid);
    if (!record) throw new InvalidInputError('<csid>', `no firm ${csid} (eca firms list shows them)`);
    out(output, plain(record), () => recordText(record));
  });
}

async function update(csid: string, options: SettingOptions & { name?: string }, command: Command) {
  await withFirms(command, async (firms, output) => {
    const record = await firms.update(csid, { name: options.name, settings: settingsOf(options) });
    printed(output, record, `updated firm ${csid}`);
  });
}

async function rotateKeys(csid: string, options: KeyOptions & { dropOpenpgpKeys?: boolean }, command: Command) {
  const keys = await keysOf(options);
  await withFirms(
    command,
    async (firms, output) => {
      const record = await firms.rotateKeys(csid, keys, { dropOpenPgpKeys: options.dropOpenpgpKeys === true });
      printed(
        output,
        record,
        `firm ${csid} signs with keys version ${record.keys.version} (every worker within seconds)`,
      );
    },
    { sealing: true },
  );
}

async function disable(csid: string, options: { reason: string }, command: Command) {
  await confirm(command, `Disable firm ${csid}? Its running applications stop in blocked, and it takes no new work.`);
  await withFirms(command, async (firms, output) => {
    printed(output, await firms.disable(csid, options.reason), `disabled firm ${csid}`);
  });
}

async function enable(csid: string, _options: unknown, command: Command) {
  await withFirms(command, async (firms, output) => {
    printed(output, await firms.enable(csid), `enabled firm ${csid}: retry its blocked applications (eca retry)`);
  });
}

function settingOptions(command: Command, adding: boolean): Command {
  return command
    .addOption(new Option('--environment <name>', "the brokerage's environment").choices(['qa', 'prod']))
    .option('--base-url <url>', "the brokerage's web service address (the environment's by default)")
    .option('--preference-url <url>', "the brokerage's preference service address")
    .option(`--firm-type <type...>`, 'advisor, fully-disclosed or non-disclosed (for update functions)')
    .option('--calls-per-second <n>', "the firm's brokerage calls a second, every worker together")
    .option('--maintenance-windows <windows>', 'no brokerage call inside: "03:00-03:30; Sun 22:00-02:00"')
    .option('--maintenance-time-zone <zone>', `the windows' IANA time zone${adding ? ' (UTC)' : ''}`)
    .option('--sweep-interval <duration>', "the firm's status sweep slot: 10m, 90s (the deployment's)")
    .addOption(
      new Option(
        '--protocol <name>',
        `the brokerage protocol its applications start on${adding ? ' (xml)' : ''}`,
      ).choices(['xml', 'webapi']),
    )
    .option('--webapi-url <url>', "the brokerage's Web API address (with the two below: the firm's Web API client)")
    .option('--webapi-client-id <id>', "the firm's Web API client id")
    .option('--webapi-key-id <kid>', "the key id the brokerage registered for the client's key");
}

function keyOptions(command: Command): Command {
  return command
    .option('--firm-key <file>', "the firm's OpenPGP private key (armored or binary), for the XML service")
    .option('--brokerage-key <file>', "the brokerage's OpenPGP public key, with --firm-key")
    .option('--passphrase-file <file>', "the private key's passphrase (or ECA_FIRM_KEY_PASSPHRASE)")
    .option('--webapi-key <file>', "the Web API client's RSA private key (PEM), for a firm on the Web API");
}

export function addFirmCommands(program: Command): void {
  const group = program
    .command('firms')
    .description(
      'the firms this deployment serves, each with its CSID, keys and settings: add, list, show, update, rotate-keys, disable, enable',
    )
    .addOption(
      new Option('--database <url>', 'the engine database: postgres://user:password@host/db or pglite:<directory>')
        .env(DATABASE_URL_VARIABLE)
        .default(DEFAULT_DATABASE_URL),
    );
  const adding = keyOptions(settingOptions(group.command('add'), true))
    .description('a new firm, its keys checked and sealed with the codec keys (ECA_CODEC_KEYS)')
    .argument('<csid>', "the firm's client service id")
    .option('--name <text>', 'a display name (the CSID by default)')
    .action(add);
  examples(adding, [
    [
      'firms add FIRM2 --name "Second Advisors" --firm-key firm2.asc --brokerage-key brokerage.asc --passphrase-file pass.txt',
      'a firm with its own keys',
    ],
    [
      'firms add FIRM3 --protocol webapi --webapi-url https://api.ibkr.com --webapi-client-id firm3 --webapi-key-id k1 --webapi-key firm3.pem',
      'a firm on the Web API (OAuth 2.0)',
    ],
  ]);
  examples(group.command('list').description('every firm, never its keys').action(list), [
    ['firms list', 'CSIDs, key versions and states'],
    ['firms list -o json', 'the same as JSON'],
  ]);
  examples(group.command('show').description("one firm's settings and key version").argument('<csid>').action(show), [
    ['firms show FIRM2', "the firm's settings, its key version and when it was rotated"],
  ]);
  const updating = settingOptions(group.command('update'), false)
    .description('change settings; the others stay (a firm of ECA_CSID is changed by its variables)')
    .argument('<csid>')
    .option('--name <text>', 'a new display name')
    .action(update);
  examples(updating, [
    ['firms update FIRM2 --calls-per-second 10', "cap the firm's brokerage calls, every worker together"],
    [
      'firms update FIRM2 --maintenance-windows "Sun 22:00-02:00" --maintenance-time-zone America/New_York',
      "no calls during the brokerage's weekly window",
    ],
  ]);
  const rotation = keyOptions(group.command('rotate-keys'))
    .description('new keys for the firm: every worker signs with them within seconds, no restart')
    .option(
      '--drop-openpgp-keys',
      "with --webapi-key alone: drop the firm's OpenPGP keys (once its last application on the XML service has ended)",
    )
    .argument('<csid>')
    .action(rotateKeys);
  examples(rotation, [
    ['firms rotate-keys FIRM2 --firm-key firm2-2027.asc --brokerage-key brokerage.asc', 'new keys, no restart'],
  ]);
  const disabling = group
    .command('disable')
    .description('the firm takes no new work; its running applications stop in blocked with the reason (asks first)')
    .argument('<csid>')
    .requiredOption('--reason <text>', 'why: shown on every blocked application and refusal');
  yesOption(disabling).action(disable);
  examples(disabling, [['firms disable FIRM2 --reason "contract ended" --yes', 'without asking']]);
  examples(group.command('enable').description('the firm works again').argument('<csid>').action(enable), [
    ['firms enable FIRM2', 'then retry its blocked applications (eca retry)'],
  ]);
  examples(group, [
    ['firms list', 'the firms, their key versions and states'],
    ['firms disable FIRM2 --reason "contract ended" --yes', 'stop a firm'],
  ]);
}

/**
 * `api-keys`: the onboarding API's keys, in the engine's database (`--database`, ECA_DATABASE_URL).
 * With the embedded database, these commands reach it through the API server when it runs, and
 * open it themselves when it does not.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { ApiKeyInput, ApiKeyRecord } from '../../runtime/api-keys.js';
import type { Database } from '../../runtime/database/index.js';
import { DATABASE_URL_VARIABLE, DEFAULT_DATABASE_URL } from '../../runtime/database/url.js';
import { InvalidInputError } from '../errors.js';
import { confirm, examples, globalOptions, yesOption } from './options.js';
import type { GlobalOptions } from './options.js';
import { out, table, time } from './output.js';

const apiKeys = () => import('../../runtime/api-keys.js');
const database = () => import('../../runtime/database/index.js');

/** Runs `run` on the database the options name, and closes it after. */
export async function withDatabase<T>(
  command: Command,
  run: (db: Database, options: GlobalOptions & { database: string }) => Promise<T>,
): Promise<T> {
  const options = command.optsWithGlobals<GlobalOptions & { database: string }>();
  const db = await (await database()).openDatabase(options.database);
  try {
    return await run(db, options);
  } finally {
    await db.close();
  }
}

function recordsTable(records: ApiKeyRecord[]): string {
  return table(
    ['ID', 'CSID', 'ROLE', 'NAME', 'CREATED', 'LAST USED', 'REVOKED'],
    records.map((record) => [
      record.id,
      record.csid,
      record.role,
      record.name,
      time(record.createdAt),
      time(record.lastUsedAt),
      time(record.revokedAt),
    ]),
  );
}

async function create(options: { role: string; name: string }, command: Command): Promise<void> {
  const { csid: given } = globalOptions(command);
  // An admin key belongs to no firm; every other key to the firm of --csid.
  const csid = options.role === 'admin' ? undefined : given;
  if (!csid && options.role !== 'admin') {
    throw new InvalidInputError('--csid', 'give the firm the key is for (--csid or ECA_CSID)');
  }
  const { ApiKeyInputError, checkApiKeyInput, createApiKey } = await apiKeys();
  let input: ApiKeyInput;
  try {
    // Checked before the database is opened.
    input = checkApiKeyInput({ csid, role: options.role, name: options.name });
  } catch (error) {
    // The library names its field; the person at the terminal typed an option.
    throw error instanceof ApiKeyInputError ? new InvalidInputError(`--${error.field}`, error.reason) : error;
  }
  await withDatabase(command, async (db, { output }) => {
    const { key, record } = await createApiKey(db, input);
    out(output, { key, ...record }, () =>
      [
        `API key ${record.id} for CSID ${record.csid}, role ${record.role} (${record.name}):`,
        key,
        'It is shown this once: the engine keeps only its hash. Hand it to its user now.',
      ].join('\n'),
    );
  });
}

async function list(options: { allFirms?: boolean }, command: Command): Promise<void> {
  await withDatabase(command, async (db, { csid, output }) => {
    const records = await (await apiKeys()).listApiKeys(db, { csid: options.allFirms ? undefined : csid });
    out(output, records, () => (records.length === 0 ? 'no API keys' : recordsTable(records)));
  });
}

async function revoke(id: string, _options: unknown, command: Command): Promise<void> {
  await confirm(command, `Revoke API key ${id}? Requests with it are refused from then on.`);
  await withDatabase(command, async (db, { output }) => {
    if (!(await (await apiKeys()).revokeApiKey(db, id))) {
      throw new InvalidInputError('<id>', `no API key ${id} (eca api-keys list shows them)`);
    }
    out(output, { id, revoked: true }, () => `revoked API key ${id}`);
  });
}

export function addApiKeyCommands(program: Command): void {
  const group = program
    .command('api-keys')
    .description("the onboarding API's keys, each for one firm (--csid) and one role: create, list, revoke")
    .addOption(
      new Option('--database <url>', 'the engine database: postgres://user:password@host/db or pglite:<directory>')
        .env(DATABASE_URL_VARIABLE)
        .default(DEFAULT_DATABASE_URL),
    );
  const creation = group
    .command('create')
    .description('a new key for the firm of --csid: printed once, stored as a hash only')
    .requiredOption(
      '--role <role>',
      'onboarding (the onboarding system), staff, ops (read only), or admin (firms and keys, no --csid)',
    )
    .requiredOption('--name <text>', 'who or what uses the key, for the list')
    .action(create);
  examples(creation, [
    ['api-keys create --csid FIRM1 --role onboarding --name "onboarding system"', 'a key for the onboarding system'],
    ['api-keys create --csid FIRM1 --role ops --name grafana -o json', 'the key and its record as JSON'],
  ]);
  const listing = group
    .command('list')
    .description('the keys of the firm of --csid (every firm without one): never their secrets')
    .option('--all-firms', 'every CSID, not only --csid')
    .action(list);
  examples(listing, [
    ['api-keys list --csid FIRM1', "the firm's keys, revoked ones too"],
    ['api-keys list --all-firms -o json', 'every key as JSON'],
  ]);
  const revocation = group
    .command('revoke')
    .description("revoke a key for good: requests with it are refused (within the API's key cache, 5 s) (asks first)")
    .argument('<id>', 'the key id (the part after eca_, as `list` shows it)');
  yesOption(revocation).action(revoke);
  examples(revocation, [['api-keys revoke 7h3kq2m5xz4a --yes', 'revoke without asking']]);
  examples(group, [
    ['api-keys create --csid FIRM1 --role staff --name "back office"', 'a key for staff'],
    ['api-keys list', 'the keys, without their secrets'],
  ]);
}

/**
 * PostgreSQL for the local cluster, from the machine's own packages (`initdb`, `postgres`, `psql`):
 * a fresh data directory, loopback only, never as root (as the `postgres` user when started by
 * root). The database superuser is `temporal`; its password is generated per run and lives only in
 * this process's memory and the environment of the processes given it: it is set through psql's
 * standard input and written to no file. Local socket connections (in the data directory, which
 * only the server's user can enter) need no password; TCP connections on 127.0.0.1 need it.
 */
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readdirSync, readFileSync } from 'node:fs';
import { chown, mkdir } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { freePort, start } from '../processes.js';
import { runCommand } from '../run-command.js';
import type { Child, RunAs, StopReport } from '../processes.js';

export class PostgresError extends Error {
  override readonly name = 'PostgresError';
}

/** Where Debian puts each installed version's server binaries (newest first), searched after PATH. */
function debianBinDirs(): string[] {
  try {
    return readdirSync('/usr/lib/postgresql')
      .filter((version) => /^\d+$/.test(version))
      .sort((a, b) => Number(b) - Number(a))
      .map((version) => join('/usr/lib/postgresql', version, 'bin'));
  } catch {
    return [];
  }
}

function findBinary(name: string): string {
  const dirs = [
    ...(process.env.ECA_POSTGRES_BIN ? [process.env.ECA_POSTGRES_BIN] : []),
    ...(process.env.PATH ?? '').split(delimiter).filter(Boolean),
    ...debianBinDirs(),
  ];
  for (const dir of dirs) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new PostgresError(
    `${name} not found: install PostgreSQL (Debian: apt-get install postgresql) or set ECA_POSTGRES_BIN to its bin directory`,
  );
}

/** Whether PostgreSQL's server binaries are on this machine (ECA_POSTGRES_BIN, PATH or Debian's folders). */
export function postgresInstalled(): boolean {
  try {
    findBinary('initdb');
    findBinary('postgres');
    findBinary('psql');
    return true;
  } catch {
    return false;
  }
}

/** The account PostgreSQL runs as when this process is root; undefined otherwise (runs as the caller). */
function serverUser(): RunAs | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!entry) throw new PostgresError('running as root and there is no "postgres" user to run PostgreSQL as');
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}

function runToEnd(command: string, args: string[], options: { user?: RunAs; input?: string }): Promise<string> {
  return runCommand(command, args, { ...options, fail: (message) => new PostgresError(message) });
}

export interface PostgresOptions {
  /** The data directory (created; must not exist yet or be empty). */
  dataDir: string;
  port?: number;
}

export class Postgres {
  readonly user = 'temporal';
  readonly password = randomBytes(24).toString('hex');
  readonly host = '127.0.0.1';
  port = 0;
  child: Child | undefined;
  private readonly runAs = serverUser();

  constructor(readonly options: PostgresOptions) {}

  /** initdb, start on loopback, set the password; resolves once TCP connections with it work. */
  async start(): Promise<void> {
    const { dataDir } = this.options;
    this.port ||= this.options.port ?? (await freePort());
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (this.runAs) await chown(dataDir, this.runAs.uid, this.runAs.gid);
    await runToEnd(
      findBinary('initdb'),
      [
        '-D',
        dataDir,
        '-U',
        this.user,
        '--auth-local=trust',
        '--auth-host=scram-sha-256',
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      { user: this.runAs },
    );
    await this.run();
    // Over the socket (trusted, in the data directory); the statement goes through stdin, not argv.
    await runToEnd(
      findBinary('psql'),
      ['-h', dataDir, '-p', String(this.port), '-U', this.user, '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q'],
      { user: this.runAs, input: `ALTER ROLE ${this.user} PASSWORD '${this.password}';\n` },
    );
  }

  /** Starts the server process on the existing data directory. */
  async run(): Promise<void> {
    const { dataDir } = this.options;
    const child = (this.child = start(
      'postgres',
      findBinary('postgres'),
      [
        '-D',
        dataDir,
        '-p',
        String(this.port),
        '-k',
        dataDir,
        '-c',
        `listen_addresses=${this.host}`,
        // Five Temporal processes with two pools each, the schema tool and psql.
        '-c',
        'max_connections=200',
        // A commit returns before its WAL reaches the disk: the database stays consistent after a crash
        // of any process and loses at most the last moments on a crash of the machine itself.
        '-c',
        'synchronous_commit=off',
      ],
      {},
      { user: this.runAs },
    ));
    try {
      await child.waitFor(/database system is ready to accept connections/, 60_000);
    } catch (error) {
      await child.stop('SIGKILL');
      throw new PostgresError(`PostgreSQL did not start: ${(error as Error).message}`);
    }
  }

  /** A URL of one of its databases, with the password (for `pg` and the engine's ECA_DATABASE_URL). */
  url(database: string): string {
    return `postgres://${this.user}:${this.password}@${this.host}:${this.port}/${database}`;
  }

  /** The environment temporal-sql-tool reads (SQL_*). */
  sqlToolEnv(): NodeJS.ProcessEnv {
    return {
      SQL_HOST: this.host,
      SQL_PORT: String(this.port),
      SQL_USER: this.user,
      SQL_PASSWORD: this.password,
      SQL_PLUGIN: 'postgres12',
    };
  }

  /** SIGTERM: PostgreSQL's "smart" shutdown, once its clients (the Temporal services) are gone. */
  async stop(): Promise<StopReport | undefined> {
    return this.child?.stop('SIGTERM', 20_000);
  }
}

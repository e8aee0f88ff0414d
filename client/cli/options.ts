/** The options every command shares, option parsers, and the engine connection a command runs against. */
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { ConnectedEngine, ConnectOptions } from '../connection.js';
import { out } from './output.js';

export interface GlobalOptions extends ConnectOptions {
  json?: boolean;
}

/** Where the engine is: each flag falls back to the variable the workers and compose files read too. */
const CONNECTION_OPTIONS: ReadonlyArray<[flags: string, description: string, env: string]> = [
  ['--address <host:port>', 'Temporal frontend', 'TEMPORAL_ADDRESS'],
  ['--namespace <name>', 'Temporal namespace', 'TEMPORAL_NAMESPACE'],
  ['--task-queue <name>', 'task queue of the workers', 'ECA_TASK_QUEUE'],
  ['--csid <id>', "the firm's client service id", 'ECA_CSID'],
  ['--document-store <dir>', 'document store directory', 'ECA_DOCUMENT_STORE'],
];

export function addGlobalOptions(program: Command): Command {
  for (const [flags, description, env] of CONNECTION_OPTIONS)
    program.addOption(new Option(flags, description).env(env));
  return program.option('--json', 'print JSON for scripts');
}

type AnyFunction = (...args: never[]) => unknown;

/**
 * `name` of the module `load` imports, loaded at its first call: command modules name the API they call
 * this way, so that `eca --help` loads commander and the command definitions only (no SDK, no crypto).
 */
export function deferred<M extends Record<K, AnyFunction>, K extends keyof M>(
  load: () => Promise<M>,
  name: K,
): (...args: Parameters<M[K]>) => Promise<Awaited<ReturnType<M[K]>>> {
  return async (...args: Parameters<M[K]>): Promise<Awaited<ReturnType<M[K]>>> => {
    const run = (await load())[name];
    const result: unknown = await run(...args);
    return result as Awaited<ReturnType<M[K]>>;
  };
}

const connectEngine = deferred(() => import('../connection.js'), 'connectEngine');

export function globalOptions(command: Command): GlobalOptions {
  return command.optsWithGlobals<GlobalOptions>();
}

/** An option's number within bounds; commander reports anything else as an invalid argument. */
function boundedOption(min: number, max: number, accepts: (value: string, n: number) => boolean, what: string) {
  return (value: string): number => {
    const n = Number(value);
    if (!accepts(value, n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected ${what} from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/** An option's whole number within bounds. */
export function integerOption(min: number, max: number): (value: string) => number {
  return boundedOption(min, max, (value, n) => /^\d+$/.test(value.trim()) && Number.isSafeInteger(n), 'a whole number');
}

/** An option's number of seconds within bounds (decimals allowed). */
export function secondsOption(min: number, max: number): (value: string) => number {
  return boundedOption(min, max, (value, n) => value.trim() !== '' && Number.isFinite(n), 'a number of seconds');
}

/** Runs `run` against the engine the command's options name, and closes the connection after. */
export async function withEngine<T>(
  command: Command,
  run: (engine: ConnectedEngine, json: boolean) => Promise<T>,
): Promise<T> {
  const options = globalOptions(command);
  const engine = await connectEngine(options);
  try {
    return await run(engine, options.json ?? false);
  } finally {
    await engine.close();
  }
}

/** How the commands that act on one application name it. */
export const APPLICATION_REFERENCE = '<externalId|accountId>';

/** A command on one application, named by its reference, that prints what the engine answers about it. */
export interface ApplicationCommand<T> {
  name: string;
  description: string;
  ask: (engine: ConnectedEngine, reference: string) => Promise<T>;
  /** The answer for people; `--json` prints the answer itself. */
  text: (answer: T, reference: string) => string;
}

export function applicationCommand<T>(
  program: Command,
  { name, description, ask, text }: ApplicationCommand<T>,
): Command {
  return program
    .command(name)
    .description(description)
    .argument(APPLICATION_REFERENCE)
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const answer = await ask(engine, reference);
        out(json, answer, () => text(answer, reference));
      });
    });
}

/** The options every command shares, option parsers, and the engine connection a command runs against. */
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import type { ConnectedEngine, ConnectOptions } from '../connection.js';
import { parseDurationMs } from '../errors.js';
import type { ColorChoice } from './color.js';
import { CliError } from './errors.js';
import { OUTPUT_FORMATS, out } from './output.js';
import type { OutputFormat } from './output.js';

export interface GlobalOptions extends ConnectOptions {
  output: OutputFormat;
  json?: boolean;
  color: ColorChoice;
}

/** Where the engine is: each flag falls back to the variable the workers and compose files read too. */
const CONNECTION_OPTIONS: ReadonlyArray<[flags: string, description: string, env: string]> = [
  ['--address <host:port>', 'Temporal frontend', 'TEMPORAL_ADDRESS'],
  ['--namespace <name>', 'Temporal namespace', 'TEMPORAL_NAMESPACE'],
  ['--task-queue <name>', 'task queue of the workers', 'ECA_TASK_QUEUE'],
  ['--csid <id>', "the firm's client service id", 'ECA_CSID'],
  ['--document-store <location>', 'document store: a directory, postgres://… or pglite:<dir>', 'ECA_DOCUMENT_STORE'],
];

export function addGlobalOptions(program: Command): Command {
  for (const [flags, description, env] of CONNECTION_OPTIONS)
    program.addOption(new Option(flags, description).env(env));
  return program
    .addOption(
      new Option('-o, --output <format>', 'text for people; json or jsonl (errors too) for scripts')
        .choices(OUTPUT_FORMATS)
        .env('ECA_OUTPUT')
        .default('text'),
    )
    .addOption(new Option('--json', 'same as -o json').implies({ output: 'json' }))
    .addOption(
      new Option('--color <when>', 'colour: auto (a terminal without NO_COLOR), always, never')
        .choices(['auto', 'always', 'never'])
        .default('auto'),
    );
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

/** The output format the command line asks for. */
export function outputFormat(command: Command): OutputFormat {
  return globalOptions(command).output;
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

/** An option's number of seconds within bounds, in decimal digits with a fraction if need be (`2`, `0.5`, `.5`). */
export function secondsOption(min: number, max: number): (value: string) => number {
  return boundedOption(min, max, (value) => /^(\d+(\.\d*)?|\.\d+)$/.test(value.trim()), 'a number of seconds');
}

/** The longest `--timeout`: the longest a Node timer waits (2^31-1 ms, about 24.8 days); a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * `--timeout`'s duration as whole milliseconds. Around it whitespace is ignored; the rest, at most 100
 * characters, is a number (`2`, `1.5`, `.5`) and a unit, a space between them or not: `ms`, `s`, `m`,
 * `h`, `d`, `w` or `y`, or a word for one (`msec`, `sec`, `second`, `min`, `minute`, `hr`, `hour`,
 * `day`, `week`, `yr`, `year`, each also plural), in any case. A number alone is milliseconds; a fraction
 * of a millisecond counts as a whole one. The duration is positive and at most MAX_TIMEOUT_MS; anything
 * else is refused as a usage error naming the option. (`ms`, the SDK's own parser, reads the number and
 * unit.)
 */
export function durationOption(value: string): number {
  let ms: number;
  try {
    ms = parseDurationMs(value, '--timeout', '30s, 10m or 2h');
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
  if (ms > MAX_TIMEOUT_MS) {
    throw new InvalidArgumentError(
      `--timeout: "${value}" is over the maximum of ${MAX_TIMEOUT_MS} ms (24.8 days: give 24d or less)`,
    );
  }
  return Math.ceil(ms);
}

/** `--timeout`, for a command that waits on Temporal or a workflow: `fallback` is a duration such as `1m`. */
export function timeoutOption(command: Command, fallback: string, what = 'how long to wait for an answer'): Command {
  return command.addOption(
    new Option('--timeout <duration>', `${what} (30s, 10m, 2h)`)
      .argParser(durationOption)
      .default(durationOption(fallback), fallback),
  );
}

/** Seconds for people: `90 s`, `10 min`. */
function seconds(ms: number): string {
  return ms >= 120_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10} s`;
}

export interface EngineRun {
  /** What to tell the person when the command's `--timeout` passes (what goes on, how to look). */
  onTimeout?: string | (() => string);
}

/**
 * Runs `run` against the engine the command's options name, and closes the connection after. A command
 * with `--timeout` gives up when it passes: every Temporal call inside is cancelled, and the command
 * ends with the TIMEOUT exit code.
 */
export async function withEngine<T>(
  command: Command,
  run: (engine: ConnectedEngine, format: OutputFormat) => Promise<T>,
  { onTimeout }: EngineRun = {},
): Promise<T> {
  const options = globalOptions(command);
  const timeoutMs = command.opts<{ timeout?: number }>().timeout;
  const engine = await connectEngine(options);
  try {
    if (timeoutMs === undefined) return await run(engine, options.output);
    const signal = AbortSignal.timeout(timeoutMs);
    try {
      return await engine.client.withAbortSignal(signal, () => run(engine, options.output));
    } catch (error) {
      if (!signal.aborted) throw error;
      const hint =
        (typeof onTimeout === 'function' ? onTimeout() : onTimeout) ??
        'what was sent may still be delivered; look with `eca status`';
      throw new CliError('TIMEOUT', `${command.name()}: no answer within ${seconds(timeoutMs)} (--timeout): ${hint}`);
    }
  } finally {
    await engine.close();
  }
}

/** `--yes`, for a destructive command. */
export function yesOption(command: Command): Command {
  return command.option('-y, --yes', 'do it without asking');
}

/**
 * Asks before a destructive action: `--yes` goes ahead; at a terminal the person answers y; anywhere
 * else (a script, `-o json`) the command refuses with NOT_CONFIRMED, having done nothing.
 */
export async function confirm(command: Command, question: string): Promise<void> {
  if (command.opts<{ yes?: boolean }>().yes) return;
  const interactive = process.stdin.isTTY && process.stderr.isTTY && outputFormat(command) === 'text';
  if (!interactive) {
    throw new CliError('NOT_CONFIRMED', `${question} Not confirmed: nothing was done (give --yes to confirm)`);
  }
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(`${question} [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) throw new CliError('NOT_CONFIRMED', 'not confirmed: nothing was done');
  } finally {
    prompt.close();
  }
}

/** Examples under the command's help: what each does, then the `eca <args>` line. */
export function examples(command: Command, lines: ReadonlyArray<[args: string, what: string]>): Command {
  const text = lines.map(([args, what]) => `  # ${what}\n  $ eca ${args}`).join('\n');
  return command.addHelpText('after', `\nExamples:\n${text}`);
}

/** How the commands that act on one application name it. */
export const APPLICATION_REFERENCE = '<externalId|accountId>';

/** A command on one application, named by its reference, that prints what the engine answers about it. */
export interface ApplicationCommand<T> {
  name: string;
  description: string;
  ask: (engine: ConnectedEngine, reference: string) => Promise<T>;
  /** The answer for people; `-o json` prints the answer itself. */
  text: (answer: T, reference: string) => string;
  examples: ReadonlyArray<[args: string, what: string]>;
  /** Asked before acting, unless `--yes`: the action is destructive. */
  confirm?: (reference: string) => string;
}

export function applicationCommand<T>(program: Command, spec: ApplicationCommand<T>): Command {
  const command = program.command(spec.name).description(spec.description).argument(APPLICATION_REFERENCE);
  if (spec.confirm) yesOption(command);
  timeoutOption(command, '1m');
  examples(command, spec.examples);
  return command.action(async (reference: string, _options: unknown, self: Command) => {
    if (spec.confirm) await confirm(self, spec.confirm(reference));
    await withEngine(self, async (engine, format) => {
      const answer = await spec.ask(engine, reference);
      out(format, answer, () => spec.text(answer, reference));
    });
  });
}

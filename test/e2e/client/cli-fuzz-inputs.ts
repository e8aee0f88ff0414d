/**
 * Inputs for the CLI's property-based tests (cli.fuzz.test.ts): command lines drawn from the command
 * tree itself (every command, its options and the global ones, with values that probe them), batch CSV
 * contents, and durations in the forms `--timeout` documents.
 */
import { join } from 'node:path';
import type { Command, Option } from 'commander';
import { buildProgram } from '../../../client/cli/index.js';
import { fc } from '../../support/fuzz.js';

/**
 * The environment of a fuzzed command: nothing reaches Temporal. Without codec keys every command that
 * connects to the engine stops with CONFIGURATION, and without its config file so does `setup` (which
 * connects to Temporal alone), each after its own input has been checked.
 */
export const FUZZ_ENV: Readonly<Record<string, string>> = {
  TEMPORAL_ADDRESS: '127.0.0.1:9',
  TEMPORAL_CONFIG_FILE: '/nonexistent/eca-cli-fuzz/temporal.toml',
  TEMPORAL_PROFILE: 'fuzz',
  ECA_CSID: 'CSID-FUZZ',
  ECA_CODEC_DISABLED: '',
  ECA_CODEC_KEYS: '',
  ECA_CODEC_KEYS_FILE: '',
  NO_COLOR: '1',
};

/** The units `--timeout` documents, as `ms` reads them (longest first), and their milliseconds. */
export const UNITS: ReadonlyArray<readonly [unit: string, ms: number]> = [
  ...(['milliseconds', 'millisecond', 'msecs', 'msec', 'ms'] as const).map((unit) => [unit, 1] as const),
  ...(['seconds', 'second', 'secs', 'sec', 's'] as const).map((unit) => [unit, 1000] as const),
  ...(['minutes', 'minute', 'mins', 'min', 'm'] as const).map((unit) => [unit, 60_000] as const),
  ...(['hours', 'hour', 'hrs', 'hr', 'h'] as const).map((unit) => [unit, 3_600_000] as const),
  ...(['days', 'day', 'd'] as const).map((unit) => [unit, 86_400_000] as const),
  ...(['weeks', 'week', 'w'] as const).map((unit) => [unit, 604_800_000] as const),
  ...(['years', 'year', 'yrs', 'yr', 'y'] as const).map((unit) => [unit, 31_557_600_000] as const),
];

const digits = (minLength: number, maxLength: number) =>
  fc.string({ unit: fc.constantFrom(...'0123456789'), minLength, maxLength });

/** A duration in a documented form, with the milliseconds it stands for (NaN when over 100 characters). */
export function durationText(): fc.Arbitrary<{ text: string; ms: number }> {
  const number = fc.oneof(
    digits(1, 16),
    fc.tuple(digits(1, 8), digits(1, 6)).map(([whole, fraction]) => `${whole}.${fraction}`),
    digits(1, 6).map((fraction) => `.${fraction}`),
  );
  const unit = fc.option(
    fc.tuple(fc.constantFrom(...UNITS), fc.boolean()).map(([[name, ms], upper]) => ({
      name: upper ? name.toUpperCase() : name,
      ms,
    })),
  );
  return fc
    .record({
      sign: fc.constantFrom('', '', '-'),
      number,
      gap: fc.constantFrom('', ' ', '  '),
      unit,
      around: fc.constantFrom('', ' ', '\t', '\u00a0'),
    })
    .map(({ sign, number: n, gap, unit: u, around }) => {
      const core = `${sign}${n}${u ? `${gap}${u.name}` : ''}`;
      const ms = core.length > 100 ? Number.NaN : Number.parseFloat(`${sign}${n}`) * (u?.ms ?? 1);
      return { text: `${around}${core}${around}`, ms };
    });
}

/** Values an option or an argument may be given: numbers, durations, unicode, empty, paths, option-like. */
function values(folder: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom('', ' ', '-', '--', '0', '-1', '1', '4', '64', '65', '1e3', '0x10', 'NaN', 'Infinity', '.5'),
    fc.constantFrom('1.5', '10000', '10001', '99999999999999999999', '3600', '3601', '0.49', '1000000'),
    fc.constantFrom('1s', '30s', '10m', '2h', '24d', '25d', '9999999999999d', '0s', '-1s', '1.0005s', 'soon'),
    durationText().map(({ text }) => text),
    fc.string({ unit: 'grapheme', maxLength: 12 }),
    fc.string({ unit: 'binary', maxLength: 12 }),
    fc.constantFrom(
      folder,
      join(folder, 'good.csv'),
      join(folder, 'bad.csv'),
      join(folder, 'a.xml'),
      join(folder, 'secret.xml'),
      join(folder, 'sub', '8001-scan.pdf'),
      `8001:${join(folder, 'sub', '8001-scan.pdf')}`,
      join(folder, 'missing.xml'),
      '/dev/null',
      '/dev/zero',
      '.',
    ),
    fc.constantFrom('json', 'jsonl', 'text', 'always', 'never', 'auto', 'bash', 'zsh', 'fish', 'tcsh', 'advisor'),
    fc.constantFrom('25:00', '07:30', 'Europe/Zurich', 'Mars/Olympus', '203.0.113.7', '10.0.0.1, 10.0.0.2'),
  );
}

/** An option given on the command line: the flag alone, or with a value (`--flag v`, or `--flag=v`). */
function optionTokens(option: Option, value: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  const flag = fc.constantFrom(...[option.long, option.short].filter((f): f is string => f !== undefined));
  if (!option.required && !option.optional) return flag.map((f) => [f]);
  const given = option.argChoices ? fc.oneof(fc.constantFrom(...option.argChoices), value) : value;
  return fc
    .tuple(flag, given, fc.boolean())
    .map(([f, v, joined]) => (joined && f.startsWith('--') ? [`${f}=${v}`] : [f, v]));
}

function commandsOf(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands.flatMap((sub) => [
    { path: [...path, sub.name()], command: sub },
    ...commandsOf(sub, [...path, sub.name()]),
  ]);
}

/** The arguments a command declares, each given a value (an optional one or not, a variadic one or two). */
function argumentTokens(command: Command, value: fc.Arbitrary<string>): fc.Arbitrary<string[]> {
  const each = command.registeredArguments.map((argument) => {
    if (argument.variadic) return fc.array(value, { minLength: argument.required ? 1 : 0, maxLength: 2 });
    return argument.required ? value.map((v) => [v]) : fc.option(value).map((v) => (v === null ? [] : [v]));
  });
  return fc.tuple(...each).map((tokens) => tokens.flat());
}

/**
 * A command line (the words after `eca`): a command of the tree, or none, or an unknown one. Mostly in
 * the shape the command takes (its arguments, then options of its own and global ones), the rest in
 * any order with stray words. Never a NUL: no argv holds one.
 */
export function argvArbitrary(folder: string): fc.Arbitrary<string[]> {
  const program = buildProgram();
  const value = values(folder);
  const commands = [{ path: [] as string[], command: program }, ...commandsOf(program)];
  const stray = fc.constantFrom(['--frobnicate'], ['-x'], ['--'], ['--help'], ['-h'], ['help'], ['--no-color']);
  const line = fc.constantFrom(...commands).chain(({ path, command }) => {
    const options = [...command.options, ...program.options];
    const option = fc.constantFrom(...options).chain((o) => optionTokens(o, value));
    const shaped = fc
      .tuple(argumentTokens(command, value), fc.array(option, { maxLength: 4 }))
      .map(([args, tokens]) => [...path, ...args, ...tokens.flat()]);
    const token = fc.oneof(
      { weight: 5, arbitrary: option },
      { weight: 4, arbitrary: value.map((v) => [v]) },
      { weight: 1, arbitrary: stray },
    );
    const start = fc.oneof(
      { weight: 9, arbitrary: fc.constant(path) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }).map((word) => [word]) },
    );
    const chaotic = fc
      .tuple(start, fc.array(token, { maxLength: 6 }))
      .map(([words, tokens]) => [...words, ...tokens.flat()]);
    return fc.oneof({ weight: 3, arbitrary: shaped }, { weight: 2, arbitrary: chaotic });
  });
  return line.map((argv) => argv.map((arg) => arg.replaceAll('\0', '')));
}

/** Names a batch CSV's rows may give: files, links inside and out, loops, escapes, odd text. */
const ROW_PATHS = [
  'a.xml',
  'missing.xml',
  'sub/8001-scan.pdf',
  'in/8001-scan.pdf',
  'out/secret.xml',
  'secret.xml',
  'dangling',
  'loop',
  'loop/x.xml',
  'a.xml/x.xml',
  '../outside/secret.xml',
  '/etc/passwd',
  '.',
  'sub/..',
  'sub/../../batch/a.xml',
  '..a.xml',
  '',
  ' ',
];

/** A batch CSV's bytes: arbitrary, or CSV-shaped with paths that probe the folder check. */
export function csvArbitrary(): fc.Arbitrary<string | Uint8Array> {
  const path = fc.oneof(fc.constantFrom(...ROW_PATHS), fc.string({ unit: 'grapheme', maxLength: 10 }));
  const documents = fc
    .array(
      fc.oneof(
        fc.tuple(digits(0, 5), path).map(([form, p]) => `${form}:${p}`),
        path,
      ),
      { maxLength: 3 },
    )
    .map((parts) => parts.join(';'));
  const quoted = (field: string) => `"${field.replaceAll('"', '""')}"`;
  const field = fc.oneof(path, documents, path.map(quoted), fc.constantFrom('"unclosed', 'a"b', '""'));
  const header = fc.constantFrom(
    'application,documents',
    'documents,application',
    'application',
    'app,docs',
    '\uFEFFapplication,documents',
    '',
  );
  const shaped = fc
    .tuple(
      header,
      fc.array(fc.array(field, { minLength: 1, maxLength: 3 }), { maxLength: 5 }),
      fc.constantFrom(',', ';', '\t'),
      fc.constantFrom('\n', '\r\n', '\r'),
    )
    .map(([head, rows, separator, end]) => [head, ...rows.map((row) => row.join(separator))].join(end));
  return fc.oneof(
    { weight: 4, arbitrary: shaped },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
  );
}

export interface CsvRow {
  application: string;
  documents: Array<{ form: string; path: string }>;
}

/** Well-formed rows naming files that are not there (yet), under names no file of the folder has. */
export function csvRowsArbitrary(): fc.Arbitrary<CsvRow[]> {
  const segment = fc
    .string({ unit: fc.constantFrom(...'abcXYZ019_-.,"\'#:é漢😀'), minLength: 1, maxLength: 8 })
    .filter((name) => name !== '.' && name !== '..');
  const path = fc.array(segment, { minLength: 1, maxLength: 3 }).map((segments) => `r-${segments.join('/')}`);
  const form = fc.string({ unit: fc.constantFrom(...'0123456789'), minLength: 1, maxLength: 5 });
  return fc.array(fc.record({ application: path, documents: fc.array(fc.record({ form, path }), { maxLength: 3 }) }), {
    maxLength: 5,
  });
}

/**
 * Property-based tests of the CLI's input: arbitrary command lines (option names, durations, numbers,
 * unicode, empty strings, paths) end in a normal answer or a typed refusal, never an unexpected error,
 * a stack trace or a hang; arbitrary batch CSVs are parsed correctly or refused as invalid input, and
 * their rows never lead out of the CSV's folder, symbolic links or not; and the option parsers accept
 * exactly what they document. Nothing reaches Temporal: without codec keys or a Temporal config file,
 * every command that would connect stops with CONFIGURATION once its own input has been checked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, isAbsolute, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'csv-stringify/sync';
import { InvalidArgumentError } from 'commander';
import { InvalidInputError } from '../../../client/errors.js';
import type * as Cli from '../../../client/cli/index.js';
import { batchItems } from '../../../client/cli/documents.js';
import { EXIT_CODES } from '../../../client/cli/exit-codes.js';
import { durationOption, integerOption, MAX_TIMEOUT_MS, secondsOption } from '../../../client/cli/options.js';
import { fc, fuzzParameters, fuzzRuns } from '../../support/fuzz.js';
import { argvArbitrary, csvArbitrary, csvRowsArbitrary, durationText, FUZZ_ENV, UNITS } from './cli-fuzz-inputs.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));
const DOCUMENTED = new Map(EXIT_CODES.map((row) => [row.exitCode, row.code]));
// eslint-disable-next-line no-control-regex -- colour codes are stripped before reading a message
const ANSI = /\x1b\[[0-9;]*m/g;

/**
 * The CLI's entry point, imported as bin/eca.js imports it: as an ES module, with the API modules its
 * commands import at their first call. (This file's own imports may be loaded as CommonJS: a second copy
 * of the error classes, which the CLI's `instanceof` checks would not know.)
 */
let cli: typeof Cli;

/**
 * fuzzParameters for a property that spawns processes (a second or so a case): FUZZ_RUNS raises its
 * budget only up to `cap` runs, and the count kept for the summary is the runs it makes.
 */
function processParameters<T>(surface: string, inNpmTest: number, cap: number): fc.Parameters<T> {
  const runs = Math.min(fuzzRuns(inNpmTest), cap);
  const long = process.env.FUZZ_RUNS;
  delete process.env.FUZZ_RUNS;
  try {
    return fuzzParameters<T>(surface, runs);
  } finally {
    if (long !== undefined) process.env.FUZZ_RUNS = long;
  }
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** What a command line may end in: a normal answer (0), or a refusal of a documented class, in one line. */
function assertOutcome(argv: readonly string[], run: Run): void {
  const shown = `eca ${JSON.stringify(argv)} → ${run.code}\n${run.stderr}`;
  assert.ok(DOCUMENTED.has(run.code), `undocumented exit code: ${shown}`);
  assert.notEqual(run.code, 1, `an unexpected error (nothing here can fail a batch): ${shown}`);
  assert.doesNotMatch(run.stderr, /\n\s+at |node:internal/, `a stack trace: ${shown}`);
  if (run.code === 0) return;
  assert.equal(run.stdout, '', `output on a refusal: ${shown}`);
  if (cli.asksForJson(argv, {})) {
    const lines = run.stderr.split('\n');
    assert.equal(lines.length, 2, `not one JSON line: ${shown}`);
    const { error } = JSON.parse(lines[0]!) as { error: { code: string; exitCode: number; message: string } };
    assert.equal(error.exitCode, run.code, shown);
    assert.equal(error.code, DOCUMENTED.get(run.code), shown);
    assert.ok(error.message.length > 0, shown);
    return;
  }
  const text = run.stderr.replace(ANSI, '');
  // commander's usage errors: `error: …` and the hint to --help, or a group's help when no command of it
  // is named; every other refusal is one `eca:` line
  if (run.code === 2) assert.match(text, /^(error: \S|Usage: eca )/, shown);
  else assert.match(text, /^eca: [^\n]+\n$/, `not one line: ${shown}`);
}

/** `eca …argv` in this process, its output captured. */
async function inProcess(argv: readonly string[]): Promise<Run> {
  const run: Run = { code: -1, stdout: '', stderr: '' };
  const writes = { stdout: process.stdout.write, stderr: process.stderr.write };
  process.stdout.write = (chunk: string | Uint8Array) => ((run.stdout += chunk.toString()), true);
  process.stderr.write = (chunk: string | Uint8Array) => {
    const text = chunk.toString();
    // A line of gRPC's own log (`E Connection to … excess pings`), from another test's connection to a
    // Temporal server that is still open in this process, is not the command's: it passes through.
    if (/^[DIEW] \S/.test(text)) return writes.stderr.call(process.stderr, chunk);
    run.stderr += text;
    return true;
  };
  try {
    run.code = await cli.main(['node', 'eca', ...argv]);
  } finally {
    Object.assign(process, { exitCode: undefined });
    process.stdout.write = writes.stdout;
    process.stderr.write = writes.stderr;
  }
  return run;
}

/** `eca …argv` as its own process: the real executable, its exit code and stderr. */
function asProcess(argv: readonly string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ECA, ...argv], { env: { ...process.env, ...FUZZ_ENV } }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

describe('eca CLI (fuzz)', function () {
  this.timeout(120_000);
  let dir: string;
  let folder: string;
  let realFolder: string;
  let last: readonly string[] | undefined;
  const saved: NodeJS.ProcessEnv = {};
  let stdinIsTTY: boolean | undefined;

  before(async function () {
    cli = await import('../../../client/cli/index.js');
    dir = await mkdtemp(join(tmpdir(), 'eca-cli-fuzz-'));
    // The folder a batch CSV sits in: a file, a subfolder, and links inside, outside, dangling, in a loop.
    folder = join(dir, 'batch');
    await mkdir(join(folder, 'sub'), { recursive: true });
    await mkdir(join(dir, 'outside'));
    await writeFile(join(dir, 'outside', 'secret.xml'), '<secret/>');
    await writeFile(join(folder, 'a.xml'), '<Applications/>');
    await writeFile(join(folder, 'sub', '8001-scan.pdf'), '%PDF-1.4');
    await symlink(join(dir, 'outside'), join(folder, 'out'));
    await symlink(join(dir, 'outside', 'secret.xml'), join(folder, 'secret.xml'));
    await symlink(join(folder, 'sub'), join(folder, 'in'));
    await symlink(join(folder, 'gone'), join(folder, 'dangling'));
    await symlink(join(folder, 'loop'), join(folder, 'loop'));
    await writeFile(join(folder, 'good.csv'), 'application,documents\na.xml,8001:sub/8001-scan.pdf\n');
    await writeFile(join(folder, 'bad.csv'), 'application,documents\n"a.xml\n');
    realFolder = await realpath(folder);
    for (const [name, value] of Object.entries(FUZZ_ENV)) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
    delete process.env.ECA_OUTPUT;
    // No one to ask: a destructive command refuses (NOT_CONFIRMED) instead of waiting for an answer.
    stdinIsTTY = process.stdin.isTTY;
    process.stdin.isTTY = false;
  });

  afterEach(function () {
    if (this.currentTest?.state === 'failed' && last)
      process.stderr.write(`last command line: ${JSON.stringify(last)}\n`);
  });

  after(async function () {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    process.stdin.isTTY = stdinIsTTY as boolean;
    (await import('../../../client/cli/color.js')).setColorChoice('auto');
    await rm(dir, { recursive: true, force: true });
  });

  it('answers or refuses any command line with a typed one-line error (in process)', async function () {
    await fc.assert(
      fc.asyncProperty(argvArbitrary(folder), async (argv) => {
        last = argv;
        assertOutcome(argv, await inProcess(argv));
      }),
      fuzzParameters('cli: argv (in process)', 300),
    );
  });

  it('answers or refuses any command line as a process: exit code, stderr, no stack trace', async function () {
    await fc.assert(
      fc.asyncProperty(fc.array(argvArbitrary(folder), { minLength: 6, maxLength: 6 }), async (lines) => {
        last = lines.flat();
        const runs = await Promise.all(lines.map(asProcess));
        lines.forEach((argv, i) => assertOutcome(argv, runs[i]!));
      }),
      processParameters('cli: argv (process, 6 a case)', 3, 100),
    );
  });

  /** Whether `path` is inside the batch folder, by its name and, when it is there, as the file it really is. */
  async function staysInside(path: string): Promise<boolean> {
    const inside = (p: string) => {
      const rel = relative(realFolder, p);
      return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
    };
    if (!inside(path)) return false;
    const real = await realpath(path).catch(() => undefined);
    return real === undefined || inside(real);
  }

  it('reads any batch CSV as rows inside its folder, or refuses it as invalid input', async function () {
    await fc.assert(
      fc.asyncProperty(csvArbitrary(), async (contents) => {
        const file = join(folder, 'fuzz.csv');
        await writeFile(file, contents);
        let items;
        try {
          items = await batchItems(file);
        } catch (error) {
          assert.ok(error instanceof InvalidInputError, `not a typed refusal: ${String(error)}`);
          assert.ok(error.message.startsWith(file), error.message);
          return;
        }
        for (const item of items) {
          for (const path of [item.application, ...item.documents.map((document) => document.data as string)]) {
            assert.ok(await staysInside(path), `${path} is outside ${realFolder}`);
          }
        }
      }),
      fuzzParameters('cli: batch CSV contents', 300),
    );
  });

  it('parses a well-formed batch CSV into exactly its rows', async function () {
    await fc.assert(
      fc.asyncProperty(csvRowsArbitrary(), async (rows) => {
        const file = join(folder, 'rows.csv');
        const records = rows.map((row) => ({
          application: row.application,
          documents: row.documents.map(({ form, path }) => `${form}:${path}`).join(';'),
        }));
        await writeFile(file, stringify(records, { header: true, columns: ['application', 'documents'] }));
        const items = await batchItems(file);
        assert.deepEqual(
          items,
          rows.map((row) => ({
            application: join(realFolder, row.application),
            documents: row.documents.map(({ form, path }) => ({
              formNumber: form,
              fileName: basename(path),
              data: join(realFolder, path),
            })),
          })),
        );
      }),
      fuzzParameters('cli: batch CSV rows', 200),
    );
  });

  it('takes a --timeout exactly as documented: number, unit, positive, at most 2^31-1 ms', function () {
    fc.assert(
      fc.property(durationText(), ({ text, ms }) => {
        if (ms > 0 && ms <= MAX_TIMEOUT_MS) assert.equal(durationOption(text), Math.ceil(ms), text);
        else assert.throws(() => durationOption(text), InvalidArgumentError, text);
      }),
      fuzzParameters('cli: durations (documented forms)', 1000),
    );
    const documented = new RegExp(`^(-?\\d*\\.?\\d+) *(${UNITS.map(([unit]) => unit).join('|')})?$`, 'i');
    fc.assert(
      fc.property(
        fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: fc.constantFrom(...'0123456789.-+e sSmMhdwyx ') })),
        (text) => {
          let ms: number;
          try {
            ms = durationOption(text);
          } catch (error) {
            assert.ok(error instanceof InvalidArgumentError, String(error));
            assert.match(error.message, /^--timeout: /);
            return;
          }
          const trimmed = text.trim();
          assert.ok(trimmed.length <= 100 && documented.test(trimmed), `accepted ${JSON.stringify(text)}`);
          assert.ok(Number.isInteger(ms) && ms >= 1 && ms <= MAX_TIMEOUT_MS, `${text} → ${ms}`);
        },
      ),
      fuzzParameters('cli: durations (any text)', 1000),
    );
  });

  it('takes whole numbers and seconds exactly as documented', function () {
    const whole = integerOption(1, 10_000);
    const seconds = secondsOption(0.5, 3600);
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: fc.constantFrom(...'0123456789.-+ex_ ') }), fc.nat().map(String)),
        (text) => {
          const accepts = (parse: (value: string) => number) => {
            try {
              return parse(text);
            } catch (error) {
              assert.ok(error instanceof InvalidArgumentError, String(error));
              return undefined;
            }
          };
          const n = Number(text);
          const isWhole = /^\d+$/.test(text.trim()) && n >= 1 && n <= 10_000;
          assert.equal(accepts(whole), isWhole ? n : undefined, `--limit ${JSON.stringify(text)}`);
          const isSeconds = /^(\d+(\.\d*)?|\.\d+)$/.test(text.trim()) && n >= 0.5 && n <= 3600;
          assert.equal(accepts(seconds), isSeconds ? n : undefined, `--interval ${JSON.stringify(text)}`);
        },
      ),
      fuzzParameters('cli: numbers', 1000),
    );
  });
});

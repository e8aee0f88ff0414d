/**
 * What the CLI does with hostile or broken input, no engine needed: a batch CSV on a pipe is held to the
 * file size limit while it streams, symbolic links cannot lead a CSV's rows out of its folder, a
 * malformed CSV and an impossible `--timeout` are typed refusals, control characters in a message are
 * escaped, and a reader that closes stdout early ends the command quietly. The real `eca` executable
 * where the process boundary matters (exit codes, stderr, pipes), the functions otherwise.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidInputError } from '../../../client/errors.js';
import { batchItems } from '../../../client/cli/documents.js';
import { durationOption, secondsOption } from '../../../client/cli/options.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

/**
 * No command gets as far as Temporal: without codec keys every command that would connect stops with
 * CONFIGURATION (exit 11), so an input refused before that shows as its own exit code.
 */
const { ECA_OUTPUT: _format, ...inherited } = process.env;
const ENV: NodeJS.ProcessEnv = {
  ...inherited,
  TEMPORAL_ADDRESS: '127.0.0.1:9',
  ECA_CSID: 'CSID-TEST',
  ECA_CODEC_DISABLED: '',
  ECA_CODEC_KEYS: '',
  ECA_CODEC_KEYS_FILE: '',
  NO_COLOR: '1',
};

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function eca(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ECA, ...args], { env: ENV }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** A refusal: the exit code, one line on stderr, no stack trace. */
function assertRefused(result: Run, exitCode: number, pattern: RegExp): void {
  assert.equal(result.code, exitCode, result.stderr);
  assert.equal(result.stdout, '');
  assert.equal(result.stderr.trimEnd().split('\n').length, 1, result.stderr);
  assert.match(result.stderr, pattern);
  assert.doesNotMatch(result.stderr, /\n\s+at /);
}

describe('eca CLI input (no engine)', function () {
  this.timeout(60_000);
  let dir: string;

  before(async function () {
    dir = await mkdtemp(join(tmpdir(), 'eca-cli-input-'));
  });

  after(async function () {
    await rm(dir, { recursive: true, force: true });
  });

  describe('a batch CSV on stdin', function () {
    // 12 MiB of rows, over the 10 MiB limit; more than a pipe holds, so what is never read stays unwritten.
    const row = 'application.xml,8001:passport.pdf\n';
    const csv = Buffer.from(`application,documents\n${row.repeat(Math.ceil((12 * 1024 * 1024) / row.length))}`);

    it('is held to the file limit while it streams through a pipe, and read no further', async function () {
      const file = join(dir, 'large.csv');
      await writeFile(file, csv);
      // `cat` reports how it ended: a write refused (EPIPE) means eca stopped reading.
      const script = `cat "$1" 2>/dev/null; echo "cat $?" >&2`;
      const result = await new Promise<Run>((resolve) =>
        execFile(
          'bash',
          ['-c', `{ ${script}; } | "$2" "$3" apply-batch /dev/stdin`, 'bash', file, process.execPath, ECA],
          { env: ENV },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        ),
      );
      const lines = result.stderr.trimEnd().split('\n').sort();
      assert.equal(lines.length, 2, result.stderr);
      assert.match(lines[0]!, /^cat [1-9]/, 'cat wrote the whole file: eca read it to its end');
      assert.match(lines[1]!, /^eca: \/dev\/stdin: the input passed the 10485760-byte limit: reading stopped there$/);
    });

    it('is held to the limit from a socket too, with the invalid-input exit code', async function () {
      // Node hands a child its stdin as a socket, which /dev/stdin cannot be opened on: it is read as fd 0.
      const child = spawn(process.execPath, [ECA, 'apply-batch', '/dev/stdin'], { env: ENV });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      let writeError: NodeJS.ErrnoException | undefined;
      child.stdin.on('error', (error) => (writeError = error));
      child.stdin.end(csv);
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      assertRefused({ code: code ?? -1, stdout: '', stderr }, 3, /^eca: \/dev\/stdin: the input passed the 10485760/);
      assert.equal(writeError?.code, 'EPIPE', 'the CSV was read to its end');
    });
  });

  describe('symbolic links in a batch CSV folder', function () {
    let folder: string;
    let outside: string;

    before(async function () {
      folder = join(dir, 'batch');
      outside = join(dir, 'elsewhere');
      await mkdir(join(folder, 'sub'), { recursive: true });
      await mkdir(outside);
      await writeFile(join(outside, 'secret.xml'), '<secret/>');
      await writeFile(join(outside, 'x.pdf'), '%PDF-1.4');
      await writeFile(join(folder, 'a.xml'), '<a/>');
      await writeFile(join(folder, 'sub', '8001-scan.pdf'), '%PDF-1.4');
      await symlink(outside, join(folder, 'docs'));
      await symlink(join(outside, 'secret.xml'), join(folder, 'link.xml'));
      await symlink(join(outside, 'none.xml'), join(folder, 'dangling.xml'));
      await symlink(join(folder, 'sub'), join(folder, 'alias'));
    });

    async function csv(name: string, rows: string[]): Promise<string> {
      const file = join(folder, name);
      await writeFile(file, ['application,documents', ...rows].join('\n'));
      return file;
    }

    it('refuses a row whose file or folder is a link out of the CSV folder, naming the row and file', async function () {
      for (const [rows, pattern] of [
        [['a.xml,', 'link.xml,'], /row 3: "link\.xml" leads to .*elsewhere\/secret\.xml", outside the CSV's folder/],
        [['a.xml,8001:docs/x.pdf'], /row 2: "docs\/x\.pdf" leads to .*elsewhere\/x\.pdf", outside the CSV's folder/],
        [['docs/secret.xml,'], /row 2: "docs\/secret\.xml" leads to .*outside the CSV's folder/],
        [['dangling.xml,'], /row 2: "dangling\.xml" leads to .*a symbolic link to a missing file/],
      ] as const) {
        const file = await csv('links.csv', [...rows]);
        await assert.rejects(batchItems(file), (error: unknown) => {
          assert.ok(error instanceof InvalidInputError, String(error));
          assert.match(error.message, pattern);
          assert.ok(error.message.startsWith(`${file} row`), error.message);
          return true;
        });
      }
      const result = await eca(['apply-batch', await csv('links.csv', ['link.xml,'])]);
      assertRefused(result, 3, /^eca: .*links\.csv row 2: "link\.xml" leads to .*outside the CSV's folder/);
    });

    it('refuses a folder of applications holding a link out of it', async function () {
      await assert.rejects(batchItems(folder), (error: unknown) => {
        assert.ok(error instanceof InvalidInputError, String(error));
        assert.match(error.message, /"(dangling|link)\.xml" leads to .*(outside|missing)/);
        return true;
      });
    });

    it('names the files of a CSV on stdin from the working directory', async function () {
      const child = spawn(process.execPath, [ECA, 'apply-batch', '/dev/stdin'], { env: ENV, cwd: folder });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.stdin.end('application,documents\nlink.xml,\n');
      const code = await new Promise<number>((resolve) => child.once('exit', (exit) => resolve(exit ?? -1)));
      // Resolved from the working directory (the batch folder), link.xml is the link out of it.
      assertRefused({ code, stdout: '', stderr }, 3, /row 2: "link\.xml" leads to .*elsewhere\/secret\.xml", outside/);
    });

    it('reads the real file of a link that stays inside, and leaves a missing file to its row', async function () {
      const real = await realpath(folder);
      const items = await batchItems(await csv('inside.csv', ['a.xml,alias/8001-scan.pdf', 'missing.xml,']));
      assert.deepEqual(items, [
        {
          application: join(real, 'a.xml'),
          documents: [{ formNumber: '8001', fileName: '8001-scan.pdf', data: join(real, 'sub', '8001-scan.pdf') }],
        },
        { application: join(real, 'missing.xml'), documents: [] },
      ]);
    });
  });

  it('refuses a malformed batch CSV as invalid input, naming the file and the line', async function () {
    const file = join(dir, 'malformed.csv');
    await writeFile(file, 'application,documents\n"a.xml,\n');
    await assert.rejects(batchItems(file), InvalidInputError);
    assertRefused(await eca(['apply-batch', file]), 3, /malformed\.csv: malformed CSV: Quote Not Closed.* line 2/);
    const json = await eca(['apply-batch', file, '-o', 'json']);
    assert.equal(json.code, 3);
    assert.equal((JSON.parse(json.stderr) as { error: { code: string } }).error.code, 'INVALID_INPUT');
    await writeFile(file, 'application,documents\na.xml,,extra\n');
    assertRefused(await eca(['apply-batch', file]), 3, /malformed\.csv: malformed CSV: Invalid Record Length/);
  });

  it('refuses a --timeout longer than a timer can wait, naming the option and the maximum', async function () {
    for (const value of ['25d', '24.9d', '9999999999999d', '2147483648']) {
      assert.throws(() => durationOption(value), /--timeout: ".+" is over the maximum of 2147483647 ms/, value);
    }
    assert.equal(durationOption('24d'), 24 * 86_400_000);
    assert.equal(durationOption('2147483647'), 2_147_483_647);
    assert.equal(durationOption('1.0005s'), 1001, 'a fraction of a millisecond counts as a whole one');
    assert.equal(durationOption('0.1'), 1);
    // refused while the command line is read: before anything connects (that would be exit 11 here)
    for (const value of ['25d', '9999999999999d']) {
      const result = await eca(['status', 'client-1', '--timeout', value, '-o', 'json']);
      assert.equal(result.code, 2, result.stderr);
      const { error } = JSON.parse(result.stderr) as { error: { code: string; message: string } };
      assert.equal(error.code, 'USAGE');
      assert.match(error.message, new RegExp(`--timeout.*"${value}" is over the maximum of 2147483647 ms`));
    }
  });

  it('takes seconds in decimal digits only, as documented', async function () {
    const interval = secondsOption(0.5, 3600);
    assert.equal(interval('2'), 2);
    assert.equal(interval(' .5 '), 0.5);
    assert.equal(interval('1.25'), 1.25);
    for (const value of ['0x10', '1e1', '0b11', '+2', '2s', '']) {
      assert.throws(() => interval(value), /expected a number of seconds from 0\.5 to 3600/, value);
    }
    const result = await eca(['watch', '--interval', '0x10']);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /'--interval <seconds>' argument '0x10' is invalid/);
  });

  it('escapes control characters of an input in its one-line error', async function () {
    const result = await eca(['completion', 'ba\nsh\u001b[2J']);
    assertRefused(result, 3, /^eca: shell: "ba\\nsh\\u001b\[2J" is not one of/);
  });

  it('ends quietly when the reader of stdout goes away (EPIPE), with the exit code of the command', async function () {
    // The reader (`true`) has gone before eca starts: the writer loop ends only on EPIPE.
    const script = `{ trap '' PIPE; while printf x 2>/dev/null; do :; done; "$0" "$@"; echo "exit $?" >&2; } | true`;
    const piped = (args: string[]) =>
      new Promise<string>((resolve) =>
        execFile('bash', ['-c', script, process.execPath, ECA, ...args], { env: ENV }, (_error, _stdout, stderr) =>
          resolve(stderr),
        ),
      );
    for (const [args, exitCode] of [
      [['apply', '--help'], 0],
      [['completion', 'bash'], 0],
      [['--version'], 0],
    ] as const) {
      const stderr = await piped([...args]);
      assert.equal(stderr, `exit ${exitCode}\n`, `eca ${args.join(' ')}: ${stderr}`);
    }
  });
});

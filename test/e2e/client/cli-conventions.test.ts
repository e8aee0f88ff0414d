/**
 * The CLI's conventions that need no engine: output formats for errors, exit codes per class of error,
 * colour, examples in every help, confirmations, and shell completion (run in a real bash). The real
 * `eca` executable where a process boundary matters (exit codes, stderr), the command tree otherwise.
 */
/* eslint-disable no-control-regex -- terminal control codes are what these tests look for */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { asksForJson, buildProgram } from '../../../client/cli/index.js';
import { APPLICATION_STATES } from '../../../domain/application-states.js';
import { ACCOUNT_STATUS_LETTER_RULE } from '../../../domain/account.js';
import { completionScript } from '../../../client/cli/completion.js';
import { EXIT_CODES } from '../../../client/cli/exit-codes.js';
import { describeState } from '../../../client/cli/output.js';
import type { ApplicationStateView } from '../../../workflows/application/messages.js';

const ECA = fileURLToPath(new URL('../../../bin/eca.js', import.meta.url));

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function eca(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ECA, ...args],
      // Nothing to reach: every command that connects fails fast against a closed port.
      {
        env: {
          ...process.env,
          TEMPORAL_ADDRESS: '127.0.0.1:9',
          ECA_CSID: 'CSID-TEST',
          ECA_CODEC_DISABLED: 'true',
          NO_COLOR: '',
          ...env,
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

function everyCommand(command: Command, path: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands.flatMap((sub) => [
    { path: [...path, sub.name()], command: sub },
    ...everyCommand(sub, [...path, sub.name()]),
  ]);
}

describe('eca CLI conventions (no engine)', function () {
  this.timeout(60_000);

  it('gives every command and the program examples in its help', function () {
    const program = buildProgram();
    for (const { path, command } of [{ path: [], command: program }, ...everyCommand(program)]) {
      let help = '';
      command.configureOutput({ writeOut: (text) => (help += text) });
      command.outputHelp();
      assert.match(help, /\nExamples:\n {2}# .+\n {2}\$ eca /, `eca ${path.join(' ')} --help has no examples`);
    }
  });

  it('prints a task’s page for the account holder on a line of its own, with its expiry', function () {
    const view = {
      externalId: 'e1',
      csid: 'C1',
      lifecycleState: 'waitingOnClient',
      done: false,
      corrections: [],
      waitingDocuments: [],
      transitions: [],
      pendingTasks: [
        { formNumber: '8101', formName: 'Identity verification', action: 'to complete', url: 'https://v.test/s/1' },
        { formNumber: '3230', formName: 'Agreement', action: 'to sign', urlExpiresAt: '2026-12-01T10:00:00Z' },
      ],
    } as unknown as ApplicationStateView;
    const text = describeState(view);
    assert.match(text, /^form 8101: https:\/\/v\.test\/s\/1$/m);
    assert.doesNotMatch(text, /form 3230:/, 'no line for a task without a page');
    const expiring = { ...view, pendingTasks: [{ ...view.pendingTasks[0]!, urlExpiresAt: '2026-12-01T10:00:00Z' }] };
    assert.match(describeState(expiring), /^form 8101: https:\/\/v\.test\/s\/1 \(until 2026-12-01T10:00:00Z\)$/m);
  });

  it('has one exit code per error class, each documented once', function () {
    const codes = EXIT_CODES.map((row) => row.exitCode);
    assert.equal(new Set(codes).size, codes.length, 'an exit code used twice');
    const names = EXIT_CODES.map((row) => row.code);
    assert.equal(new Set(names).size, names.length, 'an error class listed twice');
    for (const name of ['INVALID_INPUT', 'UNKNOWN_APPLICATION', 'TEMPORAL_UNAVAILABLE', 'TIMEOUT', 'NOT_CONFIRMED']) {
      assert.ok(names.includes(name as never), name);
    }
  });

  it('reads the output format before parsing, for errors of the parse itself', function () {
    assert.equal(asksForJson(['status', 'x', '-o', 'json'], {}), true);
    assert.equal(asksForJson(['status', 'x', '--output=jsonl'], {}), true);
    assert.equal(asksForJson(['status', 'x', '-ojson'], {}), true);
    assert.equal(asksForJson(['status', 'x', '--json'], {}), true);
    assert.equal(asksForJson(['status', 'x'], { ECA_OUTPUT: 'jsonl' }), true);
    assert.equal(asksForJson(['status', 'x', '-o', 'text'], { ECA_OUTPUT: 'json' }), false);
    assert.equal(asksForJson(['status', 'x'], {}), false);
  });

  it('reports errors as JSON objects with a code under -o json, with the exit code of their class', async function () {
    const usage = await eca(['frobnicate', '-o', 'json']);
    assert.equal(usage.code, 2);
    assert.equal(usage.stdout, '');
    assert.deepEqual(JSON.parse(usage.stderr), {
      error: { code: 'USAGE', exitCode: 2, message: "unknown command 'frobnicate'" },
    });

    const unreachable = await eca(['status', 'client-1', '-o', 'jsonl']);
    assert.equal(unreachable.code, 7, unreachable.stderr);
    const { error } = JSON.parse(unreachable.stderr) as { error: { code: string; exitCode: number; message: string } };
    assert.equal(error.code, 'TEMPORAL_UNAVAILABLE');
    assert.equal(error.exitCode, 7);
    assert.match(error.message, /cannot reach Temporal at 127\.0\.0\.1:9/);

    const badOption = await eca(['list', '--limit', 'abc', '--json']);
    assert.equal(badOption.code, 2);
    assert.match((JSON.parse(badOption.stderr) as { error: { message: string } }).error.message, /--limit/);

    const noKeys = await eca(['status', 'client-1', '-o', 'json'], { ECA_CODEC_DISABLED: '', ECA_CODEC_KEYS: '' });
    assert.equal(noKeys.code, 11, noKeys.stderr);
    assert.match(noKeys.stderr, /"code":"CONFIGURATION".*ECA_CODEC_KEYS/);

    const shell = await eca(['completion', 'tcsh', '-o', 'json']);
    assert.equal(shell.code, 3, shell.stderr);
    assert.equal((JSON.parse(shell.stderr) as { error: { code: string } }).error.code, 'INVALID_INPUT');
  });

  it('refuses a --state that does not exist, naming the known ones, or a --status no brokerage sends, before connecting', async function () {
    const state = await eca(['list', '--state', 'needsDocs']);
    assert.equal(state.code, 2, state.stderr);
    assert.equal(state.stdout, '', 'never "no applications"');
    assert.match(state.stderr, /--state .*'needsDocs' is invalid/);
    for (const known of APPLICATION_STATES) assert.match(state.stderr, new RegExp(`\\b${known}\\b`));

    // A status is a letter the brokerage sends: the Web API's are open, but never lower case or a word.
    const status = await eca(['list', '--status', 'open', '-o', 'json']);
    assert.equal(status.code, 2, status.stderr);
    const { error } = JSON.parse(status.stderr) as { error: { code: string; message: string } };
    assert.equal(error.code, 'USAGE');
    assert.match(error.message, /--status .*'open' is invalid/);
    assert.ok(error.message.includes(ACCOUNT_STATUS_LETTER_RULE), error.message);
  });

  it('paints only when asked or at a terminal, never with NO_COLOR', async function () {
    // An error found before connecting: `eca:` is red when colour is on.
    const bad = ['completion', 'tcsh'];
    const always = await eca([...bad, '--color', 'always']);
    assert.match(always.stderr, /^\x1b\[31meca:\x1b\[0m shell: "tcsh" is not one of bash, zsh, fish/);
    const piped = await eca(bad);
    assert.match(piped.stderr, /^eca: shell:/, 'stderr is no terminal here: no colour');
    const forced = await eca(bad, { FORCE_COLOR: '1' });
    assert.match(forced.stderr, /^\x1b\[31meca:/);
    const noColor = await eca(bad, { FORCE_COLOR: '1', NO_COLOR: '1' });
    assert.match(noColor.stderr, /^eca: shell:/, 'NO_COLOR wins over FORCE_COLOR');
    const never = await eca([...bad, '--color', 'never'], { FORCE_COLOR: '1' });
    assert.match(never.stderr, /^eca: shell:/);
    const json = await eca([...bad, '--color', 'always', '-o', 'json']);
    assert.doesNotMatch(json.stderr, /\x1b/, 'JSON is never painted');
  });

  it('refuses a destructive action without --yes when no one can be asked, having done nothing', async function () {
    // Refused before connecting: the unreachable server is never contacted (that would be exit 7).
    for (const args of [
      ['abandon', 'client-1'],
      ['reset', 'client-1'],
      ['schedules', 'delete'],
    ]) {
      const result = await eca(args);
      assert.equal(result.code, 13, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr, /nothing was done \(give --yes to confirm\)/);
    }
    const json = await eca(['abandon', 'client-1', '-o', 'json']);
    assert.equal((JSON.parse(json.stderr) as { error: { code: string } }).error.code, 'NOT_CONFIRMED');
    const confirmed = await eca(['abandon', 'client-1', '--yes']);
    assert.equal(confirmed.code, 7, 'with --yes it goes on to connect');
  });

  it('asks at a terminal, and acts only on y (a real pseudo-terminal through util-linux script)', async function () {
    const atTerminal = (answer: string) =>
      new Promise<Run>((resolve) => {
        const command = `node ${ECA} abandon client-1`;
        const child = execFile(
          'script',
          ['-qec', command, '/dev/null'],
          { env: { ...process.env, TEMPORAL_ADDRESS: '127.0.0.1:9', ECA_CSID: 'X', ECA_CODEC_DISABLED: 'true' } },
          (error, stdout, stderr) =>
            resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
        child.stdin?.end(`${answer}\n`);
      });
    const no = await atTerminal('n');
    assert.match(no.stdout, /Abandon application client-1 at the brokerage\? \[y\/N\]/);
    assert.match(no.stdout, /not confirmed: nothing was done/);
    assert.equal(no.code, 13, no.stdout);
    const yes = await atTerminal('y');
    assert.match(yes.stdout, /cannot reach Temporal at 127\.0\.0\.1:9/, 'on y it goes on to connect');
    assert.equal(yes.code, 7, yes.stdout);
  });

  it('completes commands, subcommands and options in a real bash', async function () {
    const dir = await mkdtemp(join(tmpdir(), 'eca-completion-'));
    try {
      const script = join(dir, 'eca.bash');
      await writeFile(script, completionScript(buildProgram(), 'bash'));
      const complete = async (...words: string[]) => {
        const { stdout } = await new Promise<Run>((resolve) =>
          execFile(
            'bash',
            [
              '-c',
              `source "$1"; COMP_WORDS=(eca ${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length}; _eca; printf '%s\\n' "\${COMPREPLY[@]}"`,
              'bash',
              script,
            ],
            (error, out, err) => resolve({ code: error ? 1 : 0, stdout: out, stderr: err }),
          ),
        );
        return stdout.trim().split('\n');
      };
      assert.deepEqual(await complete('sche'), ['schedules']);
      assert.deepEqual((await complete('schedules', 'un')).sort(), ['unpause']);
      const options = await complete('apply-batch', '--con');
      assert.deepEqual(options, ['--concurrency']);
      assert.ok((await complete('bulk', 'abandon', '--')).includes('--dry-run'));
      assert.ok((await complete('status', '--')).includes('--output'), 'global options after a command');
      const fish = completionScript(buildProgram(), 'fish');
      assert.match(fish, /complete -c eca -n '__fish_use_subcommand' -a 'bulk'/);
      assert.match(completionScript(buildProgram(), 'zsh'), /^#compdef eca\n/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

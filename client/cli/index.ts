/**
 * `eca`: the command line for staff and ops. `eca --help` lists the commands; every command takes
 * `-o text|json|jsonl`, and fails with one line on stderr (a JSON object under `-o json|jsonl`) and the
 * exit code of its class of error (exit-codes.ts), never a stack trace. Each group of commands lives in
 * its own module; this one puts them together in help order.
 */
import { Command } from 'commander';
import { addApiKeyCommands } from './api-keys.js';
import { addFirmCommands } from './firms.js';
import { addApplicationCommands } from './applications.js';
import { addBulkCommands } from './bulk.js';
import { setColorChoice } from './color.js';
import type { ColorChoice } from './color.js';
import { addCompletionCommand } from './completion.js';
import { reportError } from './errors.js';
import { addKeyCommands } from './keys.js';
import { addMaintenanceCommands } from './maintenance.js';
import { addGlobalOptions, examples } from './options.js';
import { quietWhenOutputCloses } from './output.js';
import { addDailyDocumentsCommands } from './daily-documents.js';
import { addEventCommands } from './events.js';
import { addWebhookCommands } from './webhooks.js';
import { addDeadlineCommands } from './deadlines.js';
import { addScheduleCommands } from './schedules.js';
import { addSetupCommands } from './setup.js';
import { addStaffCommands } from './staff.js';
import { addUserCommands } from './users.js';
import { startTracing } from '../../runtime/tracing.js';
import { packageManifest } from '../../runtime/package-info.js';
import type { Tracing } from '../../runtime/tracing.js';

/** The program; `writeErr` takes what commander writes to stderr (its usage errors), when given. */
export function buildProgram({ writeErr }: { writeErr?: (text: string) => void } = {}): Command {
  const program = addGlobalOptions(
    new Command('eca').description('Account applications at the brokerage, driven by Temporal workflows'),
  )
    .version(packageManifest().version, '-V, --version', 'print the version of the engine')
    .showHelpAfterError('(eca --help lists the commands)')
    .exitOverride()
    .configureOutput(writeErr ? { writeErr } : {})
    .configureHelp({ showGlobalOptions: true })
    .hook('preAction', (_program, action) => {
      setColorChoice(action.optsWithGlobals<{ color: ColorChoice }>().color);
    });
  // Commands inherit the settings above (help after errors, exit override): add them after those.
  addApplicationCommands(program);
  addStaffCommands(program);
  addBulkCommands(program);
  addMaintenanceCommands(program);
  addDailyDocumentsCommands(program);
  addSetupCommands(program);
  addScheduleCommands(program);
  addUserCommands(program);
  addKeyCommands(program);
  addApiKeyCommands(program);
  addFirmCommands(program);
  addEventCommands(program);
  addWebhookCommands(program);
  addDeadlineCommands(program);
  addCompletionCommand(program);
  return examples(program, [
    ['apply client-42.xml', 'start an application'],
    ['status client-42', 'where it stands'],
    ['list --state needsDocuments -o jsonl', 'who waits for documents, one JSON line each'],
    ['abandon client-42 --reason "client withdrew"', 'staff actions ask first (or --yes)'],
    ['<command> --help', 'options and examples of one command'],
  ]);
}

/** Whether the command line asks for JSON output: read before parsing, for errors of the parse itself. */
export function asksForJson(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): boolean {
  let format = env.ECA_OUTPUT ?? 'text';
  argv.forEach((arg, i) => {
    if (arg === '--json') format = 'json';
    else if (arg === '-o' || arg === '--output') format = argv[i + 1] ?? format;
    else if (arg.startsWith('--output=')) format = arg.slice('--output='.length);
    else if (/^-o./.test(arg)) format = arg.slice(2);
  });
  return format === 'json' || format === 'jsonl';
}

export async function main(argv: string[]): Promise<number> {
  quietWhenOutputCloses();
  const json = asksForJson(argv.slice(2));
  let usage = '';
  // Under -o json, commander's own complaint becomes part of the JSON error, not a line of text.
  const program = buildProgram(json ? { writeErr: (text) => (usage += text) } : {});
  let tracing: Tracing | undefined;
  try {
    // OTEL_* variables turn tracing on: the command's calls start the trace its workflow continues.
    tracing = await startTracing('eca-cli');
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    return reportError(error, { json, usage: usage.split('\n')[0] });
  } finally {
    await tracing?.shutdown();
  }
}

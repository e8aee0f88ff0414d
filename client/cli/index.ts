/**
 * `eca`: the command line for staff and ops. `eca --help` lists the commands; every command takes
 * `--json` for scripts. Bad input gets one line on stderr and a non-zero exit, never a stack trace.
 * Each group of commands lives in its own module; this one puts them together in help order.
 */
import { existsSync, readFileSync } from 'node:fs';
import { Command } from 'commander';
import { addApplicationCommands } from './applications.js';
import { reportError } from './errors.js';
import { addMaintenanceCommands } from './maintenance.js';
import { addGlobalOptions } from './options.js';
import { addScheduleCommands } from './schedules.js';
import { addSetupCommands } from './setup.js';
import { addStaffCommands } from './staff.js';
import { addUserCommands } from './users.js';

/** The package's version: its package.json is the first one above this module, from the sources or dist/. */
function packageVersion(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (existsSync(file)) return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? 'unknown';
  }
  return 'unknown';
}

export function buildProgram(): Command {
  const program = addGlobalOptions(
    new Command('eca').description('Account applications at the brokerage, driven by Temporal workflows'),
  )
    .version(packageVersion(), '-V, --version', 'print the version of the engine')
    .showHelpAfterError('(eca --help lists the commands)')
    .exitOverride();
  // Commands inherit the settings above (help after errors, exit override): add them after those.
  addApplicationCommands(program);
  addStaffCommands(program);
  addMaintenanceCommands(program);
  addSetupCommands(program);
  addScheduleCommands(program);
  addUserCommands(program);
  return program;
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    return reportError(error);
  }
}

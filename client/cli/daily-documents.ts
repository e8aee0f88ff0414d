/** `documents list|status`: the firm's daily document submissions (the schedule itself: `schedules`). */
import type { Command } from 'commander';
import { examples } from './options.js';
import { addRunSubcommands } from './runs.js';

export function addDailyDocumentsCommands(program: Command): void {
  const group = program.command('documents').description("the firm's daily document submissions: list, status");
  addRunSubcommands(group, 'documents');
  examples(group, [
    ['documents list', 'one row per day'],
    ['documents status documents-CSID-2026-11-24', 'one day'],
  ]);
}

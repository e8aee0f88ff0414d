/** `schedules`: the firm's daily document submission as a Temporal Schedule. */
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../domain/workflow-ids.js';
import { deferred, withEngine } from './options.js';
import { out } from './output.js';

const upsertDailyDocumentsSchedule = deferred(() => import('../schedules.js'), 'upsertDailyDocumentsSchedule');

interface ScheduleCommandOptions {
  time: string;
  timeZone: string;
  formsDir: string;
  paused?: boolean;
}

export function addScheduleCommands(program: Command): void {
  program
    .command('schedules')
    .description("create or update the firm's daily document submission schedule")
    .requiredOption('--time <HH:MM>', "time of day of the submission, before the day's applications")
    .option('--time-zone <zone>', 'IANA time zone of the firm', 'UTC')
    .requiredOption('--forms-dir <dir>', 'directory with forms.json and the PDFs, as the workers see it')
    .option('--paused', 'create it paused')
    .action(async (options: ScheduleCommandOptions, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const schedule = await upsertDailyDocumentsSchedule(engine.client, {
          csid: engine.csid,
          time: options.time,
          timeZone: options.timeZone,
          formsDir: options.formsDir,
          taskQueue: engine.taskQueue ?? DEFAULT_TASK_QUEUE,
          paused: options.paused,
        });
        out(json, schedule, () =>
          [
            `${schedule.created ? 'created' : 'updated'} schedule ${schedule.scheduleId}`,
            ...schedule.nextRuns.slice(0, 3).map((run) => `  next run ${run.toISOString()}`),
          ].join('\n'),
        );
      });
    });
}

/** `schedules`: the firm's daily document submission as a Temporal Schedule: set, list, describe, pause, unpause, trigger, delete. */
import type { Command } from 'commander';
import { DEFAULT_TASK_QUEUE } from '../../domain/workflow-ids.js';
import type { ScheduleAction, ScheduleView } from '../schedules.js';
import { confirm, deferred, examples, timeoutOption, withEngine, yesOption } from './options.js';
import { out, time } from './output.js';

const api = () => import('../schedules.js');
const upsertDailyDocumentsSchedule = deferred(api, 'upsertDailyDocumentsSchedule');
const listSchedules = deferred(api, 'listSchedules');
const describeSchedule = deferred(api, 'describeSchedule');
const changeSchedule = deferred(api, 'changeSchedule');

interface SetOptions {
  time: string;
  timeZone: string;
  formsDir: string;
  paused?: boolean;
}

function viewText(view: ScheduleView): string {
  return [
    `schedule  ${view.scheduleId}${view.paused ? '  (paused)' : ''}`,
    `when      ${view.spec ?? '-'}`,
    ...(view.note ? [`note      ${view.note}`] : []),
    ...view.nextRuns.slice(0, 3).map((run) => `next      ${time(run)}`),
    ...view.recentRuns.slice(-3).map((run) => `ran       ${time(run.scheduledAt)}  ${run.workflowId ?? ''}`),
  ].join('\n');
}

function addSet(group: Command): void {
  const set = group
    .command('set')
    .description("create or update the firm's daily document submission schedule (idempotent)")
    .requiredOption('--time <HH:MM>', "time of day of the submission, before the day's applications")
    .option('--time-zone <zone>', 'IANA time zone of the firm', 'UTC')
    .requiredOption('--forms-dir <dir>', 'directory with forms.json and the PDFs, as the workers see it')
    .option('--paused', 'create it paused')
    .action(async (options: SetOptions, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const schedule = await upsertDailyDocumentsSchedule(engine.client, {
          csid: engine.csid,
          time: options.time,
          timeZone: options.timeZone,
          formsDir: options.formsDir,
          taskQueue: engine.taskQueue ?? DEFAULT_TASK_QUEUE,
          paused: options.paused,
        });
        out(format, schedule, () =>
          [
            `${schedule.created ? 'created' : 'updated'} schedule ${schedule.scheduleId}`,
            ...schedule.nextRuns.slice(0, 3).map((run) => `  next run ${run.toISOString()}`),
          ].join('\n'),
        );
      });
    });
  timeoutOption(set, '1m');
  examples(set, [['schedules set --time 07:30 --time-zone Europe/Zurich --forms-dir /forms', 'again to change it']]);
}

function addReads(group: Command): void {
  const list = group
    .command('list')
    .description("the firm's schedules")
    .action(async (_options: unknown, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const views = await listSchedules(engine.client, engine.csid);
        out(format, views, () => (views.length === 0 ? 'no schedules' : views.map(viewText).join('\n\n')));
      });
    });
  timeoutOption(list, '1m');
  examples(list, [['schedules list -o json', 'every schedule of the firm']]);

  const describe = group
    .command('describe')
    .description('one schedule: its time, state, next and recent runs')
    .argument('[scheduleId]', "default: the firm's daily-documents:<CSID>")
    .action(async (scheduleId: string | undefined, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const view = await describeSchedule(engine.client, engine.csid, scheduleId);
        out(format, view, () => viewText(view));
      });
    });
  timeoutOption(describe, '1m');
  examples(describe, [['schedules describe', "the firm's daily documents schedule"]]);
}

const CHANGES: ReadonlyArray<[ScheduleAction, string, string]> = [
  ['pause', 'stop firing until unpaused (a note says why)', 'schedules pause --note "forms being replaced"'],
  ['unpause', 'fire again at the scheduled times', 'schedules unpause'],
  ['trigger', "fire now (the day's workflow runs at most once a day)", 'schedules trigger'],
  ['delete', 'delete the schedule (asks first; the submissions it started stay)', 'schedules delete --yes'],
];

function addChanges(group: Command): void {
  for (const [action, description, example] of CHANGES) {
    const command = group
      .command(action)
      .description(description)
      .argument('[scheduleId]', "default: the firm's daily-documents:<CSID>")
      .action(async (scheduleId: string | undefined, options: { note?: string }, self: Command) => {
        if (action === 'delete') await confirm(self, `Delete the schedule ${scheduleId ?? 'of the firm'}?`);
        await withEngine(self, async (engine, format) => {
          const changed = await changeSchedule(engine.client, engine.csid, action, { scheduleId, note: options.note });
          const done = { scheduleId: changed, action };
          out(format, done, () => `${action}: schedule ${done.scheduleId}`);
        });
      });
    if (action === 'pause' || action === 'unpause') command.option('--note <text>', 'why, shown with the schedule');
    if (action === 'delete') yesOption(command);
    timeoutOption(command, '1m');
    examples(command, [[example, description.split(' (')[0]!]]);
  }
}

export function addScheduleCommands(program: Command): void {
  const group = program
    .command('schedules')
    .description("the firm's daily document submission schedule: set, list, describe, pause, unpause, trigger, delete");
  addSet(group);
  addReads(group);
  addChanges(group);
  examples(group, [
    ['schedules set --time 07:30 --time-zone Europe/Zurich --forms-dir /forms', 'create or update'],
    ['schedules describe', 'next and recent runs'],
  ]);
}

/**
 * The firm's daily document submission as a Temporal Schedule: created or updated idempotently (run
 * it again after changing the time, the time zone or the forms directory). The schedule starts
 * `dailyDocumentsTrigger`, which runs the day's `dailyDocuments` (id `documents:<CSID>:<yyyy-mm-dd>`)
 * at most once per day. Self-contained: a CLI command only needs to pass its options through. The
 * schedule is `daily-documents:<CSID>`.
 */
import { ScheduleAlreadyRunning, ScheduleNotFoundError, ScheduleOverlapPolicy } from '@temporalio/client';
import type {
  Client,
  ScheduleHandle,
  ScheduleOptions,
  ScheduleOptionsStartWorkflowAction,
  ScheduleUpdateOptions,
} from '@temporalio/client';
import type { dailyDocumentsTrigger } from '../workflows/documents/workflow.js';
import { type DailyDocumentsInput } from '../workflows/documents/messages.js';
import { DAILY_DOCUMENTS_TRIGGER_WORKFLOW, dailyDocumentsScheduleId } from '../domain/workflow-ids.js';
import { EcaCsid } from '../domain/search-attributes.js';
import { EngineError, InvalidScheduleOptions } from './errors.js';

export interface DailyDocumentsScheduleOptions {
  csid: string;
  /** Time of day of the submission, `HH:MM` (24 h), before the day's applications are created. */
  time: string;
  /** IANA time zone of `time` and of the firm's day (`America/New_York`, `UTC`...). */
  timeZone: string;
  /** Directory with `forms.json` and the PDFs, as the workers see it. */
  formsDir: string;
  /** Task queue of the engine's workers. */
  taskQueue: string;
  /** How late a missed firing (server or workers down) may still run, e.g. `6 hours` (the default); later the day is missed. */
  catchupWindow?: string;
  paused?: boolean;
  /** A note for ops, shown with the schedule. */
  note?: string;
}

export interface DailyDocumentsSchedule {
  scheduleId: string;
  /** False when an existing schedule was updated. */
  created: boolean;
  /** The next firings the server computed. */
  nextRuns: Date[];
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

function check(options: DailyDocumentsScheduleOptions): { hour: number; minute: number } {
  const problems: string[] = [];
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(options.time ?? '');
  if (!match) problems.push(`time must be HH:MM (00:00 to 23:59), got "${options.time}"`);
  if (!options.timeZone || !isTimeZone(options.timeZone)) problems.push(`unknown time zone "${options.timeZone}"`);
  for (const field of ['csid', 'formsDir', 'taskQueue'] as const) {
    if (typeof options[field] !== 'string' || options[field].trim() === '') problems.push(`${field} is required`);
  }
  if (problems.length > 0 || !match) throw new InvalidScheduleOptions(problems.join('; '));
  return { hour: Number(match[1]), minute: Number(match[2]) };
}

/** Creates the firm's schedule, or brings an existing one to these options. */
export async function upsertDailyDocumentsSchedule(
  client: Client,
  options: DailyDocumentsScheduleOptions,
): Promise<DailyDocumentsSchedule> {
  const { hour, minute } = check(options);
  const scheduleId = dailyDocumentsScheduleId(options.csid);
  const input: DailyDocumentsInput = { csid: options.csid, formsDir: options.formsDir, timeZone: options.timeZone };
  const action: ScheduleOptionsStartWorkflowAction<typeof dailyDocumentsTrigger> = {
    type: 'startWorkflow',
    workflowType: DAILY_DOCUMENTS_TRIGGER_WORKFLOW,
    // The server appends the firing time; the day's own workflow gets `documents-<CSID>-<day>`.
    workflowId: `documents-trigger-${options.csid}`,
    taskQueue: options.taskQueue,
    args: [input],
    typedSearchAttributes: [{ key: EcaCsid, value: options.csid }],
    staticSummary: `daily documents of ${options.csid}`,
  };
  const spec = {
    calendars: [{ hour, minute, comment: `daily documents at ${options.time} ${options.timeZone}` }],
    timezone: options.timeZone,
  };
  const policies: ScheduleOptions['policies'] = {
    overlap: ScheduleOverlapPolicy.SKIP,
    catchupWindow: options.catchupWindow ?? '6 hours',
  };
  const state = { paused: options.paused ?? false, ...(options.note !== undefined && { note: options.note }) };

  let created = true;
  try {
    await client.schedule.create({ scheduleId, spec, action, policies, state });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    created = false;
    await client.schedule
      .getHandle(scheduleId)
      .update((previous): ScheduleUpdateOptions<ScheduleOptionsStartWorkflowAction<typeof dailyDocumentsTrigger>> => ({
        ...previous,
        spec,
        action,
        policies,
        state,
      }));
  }
  const description = await client.schedule.getHandle(scheduleId).describe();
  return { scheduleId, created, nextRuns: description.info.nextActionTimes };
}

/** A schedule of the firm as `schedules list` and `describe` show it. */
export interface ScheduleView {
  scheduleId: string;
  paused: boolean;
  note?: string;
  /** The calendar, as its comment says (e.g. `daily documents at 07:30 Europe/Zurich`). */
  spec?: string;
  nextRuns: Date[];
  /** The latest firings and the workflows they started. */
  recentRuns: Array<{ scheduledAt: Date; workflowId?: string }>;
}

export type ScheduleAction = 'pause' | 'unpause' | 'trigger' | 'delete';

/** The firm's schedule (`daily-documents:<CSID>`), or refused: only this firm's schedule is ever read or changed here. */
function firmSchedule(client: Client, csid: string, scheduleId?: string): ScheduleHandle {
  const current = dailyDocumentsScheduleId(csid);
  if (scheduleId !== undefined && scheduleId !== current) {
    throw new InvalidScheduleOptions(`schedule "${scheduleId}" is not firm ${csid}'s (${current})`);
  }
  return client.schedule.getHandle(current);
}

/** `action` on a schedule; a schedule that does not exist is an UNKNOWN_APPLICATION EngineError naming it. */
async function onSchedule<T>(scheduleId: string, action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    throw new EngineError('UNKNOWN_APPLICATION', `no schedule "${scheduleId}" (\`eca schedules set\` creates it)`);
  }
}

/** The firm's schedule as it stands. */
export async function describeSchedule(client: Client, csid: string, scheduleId?: string): Promise<ScheduleView> {
  const handle = firmSchedule(client, csid, scheduleId);
  const description = await onSchedule(handle.scheduleId, () => handle.describe());
  const calendar = description.spec.calendars?.[0];
  return {
    scheduleId: handle.scheduleId,
    paused: description.state.paused,
    note: description.state.note,
    spec: calendar?.comment,
    nextRuns: description.info.nextActionTimes,
    recentRuns: description.info.recentActions.map((action) => ({
      scheduledAt: action.scheduledAt,
      workflowId: action.action.type === 'startWorkflow' ? action.action.workflow.workflowId : undefined,
    })),
  };
}

/** The schedules of the firm: the daily documents one, when it exists. */
export async function listSchedules(client: Client, csid: string): Promise<ScheduleView[]> {
  try {
    return [await describeSchedule(client, csid)];
  } catch (error) {
    if (error instanceof EngineError && error.code === 'UNKNOWN_APPLICATION') return [];
    throw error;
  }
}

/**
 * Pauses, unpauses, fires now, or deletes the firm's schedule; `note` is kept with a pause or unpause.
 * Answers the id of the schedule it changed.
 */
export async function changeSchedule(
  client: Client,
  csid: string,
  action: ScheduleAction,
  options: { scheduleId?: string; note?: string } = {},
): Promise<string> {
  const handle = firmSchedule(client, csid, options.scheduleId);
  await onSchedule(handle.scheduleId, async () => {
    if (action === 'pause') await handle.pause(options.note ?? 'paused with eca schedules pause');
    else if (action === 'unpause') await handle.unpause(options.note ?? 'unpaused with eca schedules unpause');
    else if (action === 'trigger') await handle.trigger(ScheduleOverlapPolicy.SKIP);
    else await handle.delete();
  });
  return handle.scheduleId;
}

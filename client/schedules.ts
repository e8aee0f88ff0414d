/**
 * The firm's daily document submission as a Temporal Schedule: created or updated idempotently (run
 * it again after changing the time, the time zone or the forms directory). The schedule starts
 * `dailyDocumentsTrigger`, which runs the day's `dailyDocuments` (id `documents:<CSID>:<yyyy-mm-dd>`)
 * at most once per day. Self-contained: a CLI command only needs to pass its options through. The
 * schedule is `daily-documents:<CSID>`; 1.0.0's `daily-documents-<CSID>` of the firm is still read, and
 * deleted when today's is set, so that the firm submits once a day.
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
import {
  DAILY_DOCUMENTS_TRIGGER_WORKFLOW,
  dailyDocumentsScheduleId,
  legacyDailyDocumentsScheduleId,
} from '../domain/workflow-ids.js';
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
  /** The firm's schedule under 1.0.0's id, deleted now that this one is set. */
  replaced?: string;
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
  // Both would fire: the firm's schedule of 1.0.0 goes once this one is there.
  const replaced = await legacySchedule(client, options.csid);
  if (replaced) await onSchedule(replaced.scheduleId, () => replaced.delete()).catch(ignoreUnknown);
  return {
    scheduleId,
    created,
    nextRuns: description.info.nextActionTimes,
    ...(replaced && { replaced: replaced.scheduleId }),
  };
}

/** Deleted meanwhile: nothing left to delete. */
function ignoreUnknown(error: unknown): void {
  if (!(error instanceof EngineError && error.code === 'UNKNOWN_APPLICATION')) throw error;
}

/**
 * The firm's schedule under 1.0.0's id (`daily-documents-<CSID>`), if there is one. CSIDs may prefix one
 * another in 1.0.0's ids: it is the firm's when its action starts the trigger with the firm's CSID.
 */
async function legacySchedule(client: Client, csid: string): Promise<ScheduleHandle | undefined> {
  const handle = client.schedule.getHandle(legacyDailyDocumentsScheduleId(csid));
  try {
    const { action } = await handle.describe();
    const input = action.args?.[0] as Partial<DailyDocumentsInput> | undefined;
    return action.workflowType === DAILY_DOCUMENTS_TRIGGER_WORKFLOW && input?.csid === csid ? handle : undefined;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return undefined;
    throw error;
  }
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

/**
 * The firm's schedule, or refused as unknown: only this firm's schedule is ever read or changed here.
 * Without an id, today's (`daily-documents:<CSID>`), or 1.0.0's while the firm has only that one.
 */
async function firmSchedule(client: Client, csid: string, scheduleId?: string): Promise<ScheduleHandle> {
  const current = dailyDocumentsScheduleId(csid);
  const legacyId = legacyDailyDocumentsScheduleId(csid);
  if (scheduleId !== undefined && scheduleId !== current && scheduleId !== legacyId) {
    throw new InvalidScheduleOptions(`schedule "${scheduleId}" is not firm ${csid}'s (${current})`);
  }
  if (scheduleId === current) return client.schedule.getHandle(current);
  const legacy = await legacySchedule(client, csid);
  if (scheduleId === legacyId) {
    if (legacy) return legacy;
    throw new EngineError('UNKNOWN_APPLICATION', `no schedule "${scheduleId}" of firm ${csid}`);
  }
  if (legacy && !(await exists(client.schedule.getHandle(current)))) return legacy;
  return client.schedule.getHandle(current);
}

async function exists(handle: ScheduleHandle): Promise<boolean> {
  try {
    await handle.describe();
    return true;
  } catch (error) {
    if (error instanceof ScheduleNotFoundError) return false;
    throw error;
  }
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
  const handle = await firmSchedule(client, csid, scheduleId);
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

/** The schedules of the firm (the daily documents one, when it exists; 1.0.0's until today's replaces it). */
export async function listSchedules(client: Client, csid: string): Promise<ScheduleView[]> {
  const views: ScheduleView[] = [];
  const ids = [dailyDocumentsScheduleId(csid), legacyDailyDocumentsScheduleId(csid)];
  for await (const summary of client.schedule.list()) {
    if (!ids.includes(summary.scheduleId)) continue;
    try {
      views.push(await describeSchedule(client, csid, summary.scheduleId));
    } catch (error) {
      // 1.0.0's id of another firm (CSIDs may prefix one another), or deleted meanwhile.
      if (!(error instanceof EngineError && error.code === 'UNKNOWN_APPLICATION')) throw error;
    }
  }
  return views;
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
  const handle = await firmSchedule(client, csid, options.scheduleId);
  await onSchedule(handle.scheduleId, async () => {
    if (action === 'pause') await handle.pause(options.note ?? 'paused with eca schedules pause');
    else if (action === 'unpause') await handle.unpause(options.note ?? 'unpaused with eca schedules unpause');
    else if (action === 'trigger') await handle.trigger(ScheduleOverlapPolicy.SKIP);
    else await handle.delete();
  });
  return handle.scheduleId;
}

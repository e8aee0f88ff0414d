/**
 * Replays the histories a live run made against the workflow code, as a worker that lost its cache
 * does: a history recorded by a live worker must replay without nondeterminism, whatever faults it ran
 * through. A history that does not is written (binary protobuf, the replay fixtures' format) for a
 * replay under a debugger or a fixture, and its shape printed (ids and types, never a payload).
 *
 * Seen, not yet explained: CI runs on two starved cores (workflow tasks of 8 s against a 10-s timeout)
 * have twice kept a history that did not replay, a timer where the replay made a search-attribute upsert
 * or the reverse. Each time the application was one the fault fleet asked by query every round
 * (docs-required), and no run here reproduced it. The failure now carries the events up to the one that
 * did not replay, with the worker of each workflow task and the seconds since the start, so that a CI
 * log alone shows where the live run and the replay parted.
 */
import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import proto from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { codecDataConverter, parseCodecKeys } from '../../codec/index.js';
import { workflowBundle } from '../../workers/engine-worker.js';

type History = Awaited<ReturnType<WorkflowHandle['fetchHistory']>>;

/** Where the histories that did not replay are written, one directory per run (`label`). */
export function replayFailuresDir(label: string): string {
  return join(tmpdir(), 'eca-replay-failures', label.replace(/[^A-Za-z0-9_-]+/g, '-'));
}

/** Asserts that every workflow's history replays; `label` names the run in the directory of failures. */
export async function assertHistoriesReplay(
  client: Client,
  codecKeys: string,
  workflowIds: readonly string[],
  label: string,
): Promise<void> {
  const histories: Array<{ workflowId: string; history: History }> = [];
  for (const workflowId of workflowIds) {
    histories.push({ workflowId, history: await client.workflow.getHandle(workflowId).fetchHistory() });
  }
  const results = Worker.runReplayHistories(
    {
      workflowBundle: await workflowBundle(true),
      // As the workers decode (strict mode): a plaintext message becomes the refusal they answered with.
      dataConverter: codecDataConverter(parseCodecKeys(codecKeys, 'test'), { plaintext: 'refuse' }),
    },
    histories,
  );
  const failed: string[] = [];
  const dir = replayFailuresDir(label);
  for await (const result of results) {
    if (result.error === undefined) continue;
    const { history } = histories.find((entry) => entry.workflowId === result.workflowId)!;
    await mkdir(dir, { recursive: true });
    const file = join(dir, `${result.workflowId}.history.pb`);
    await writeFile(file, proto.temporal.api.history.v1.History.encode(history).finish());
    console.log(`      ${result.workflowId}: ${String(result.error)} (history in ${file}):\n${historyShape(history)}`);
    // The run's log may keep only its tail: the events up to the one that did not replay go in the failure.
    failed.push(`${result.workflowId}: ${String(result.error)}\n${eventsBefore(history, String(result.error))}`);
  }
  assert.deepEqual(failed, [], `${label}: every history replays`);
}

/** One line per history event: its id, type, and the activity, signal or timer it names; never a payload. */
export function historyShape(history: History): string {
  const scheduled = new Map<string, string>();
  return (history.events ?? [])
    .map((event) => {
      const [key, attributes] =
        Object.entries(event).find(([name, value]) => name.endsWith('EventAttributes') && value) ?? [];
      const a = (attributes ?? {}) as Record<string, { name?: string } | string | undefined> & {
        activityType?: { name?: string };
        scheduledEventId?: { toString(): string } | number;
      };
      const id = String(event.eventId);
      let detail = '';
      if (a.activityType?.name) {
        scheduled.set(id, a.activityType.name);
        detail = a.activityType.name;
      } else if (a.scheduledEventId !== undefined) detail = scheduled.get(String(a.scheduledEventId)) ?? '';
      else if (typeof a.signalName === 'string') detail = a.signalName;
      else if (typeof a.timerId === 'string') detail = `timer ${a.timerId}`;
      return `        ${id} ${String(key ?? '?').replace('EventAttributes', '')} ${detail}`;
    })
    .join('\n');
}

/**
 * The events up to (and a few after) the one a replay error names, one short line each: id, type, the
 * activity, signal or timer, the worker that took a workflow task, and the seconds since the first event.
 */
export function eventsBefore(history: History, error: string): string {
  const events = history.events ?? [];
  const named = Number(/HistoryEvent\(id: (\d+)/.exec(error)?.[1] ?? events.length);
  const shape = historyShape(history).split('\n');
  const first = eventSeconds(events[0]);
  return events
    .map((event, index) => {
      const started = event.workflowTaskStartedEventAttributes;
      const worker = started?.identity ? ` by ${started.identity}` : '';
      const at = (eventSeconds(event) - first).toFixed(1);
      return `${shape[index]!.trim()}${worker} +${at}s`;
    })
    .slice(Math.max(0, named - 40), named + 5)
    .join('\n');
}

function eventSeconds(event: History['events'] extends (infer E)[] | null | undefined ? E | undefined : never): number {
  const time = event?.eventTime;
  return time ? Number(time.seconds ?? 0) + (time.nanos ?? 0) / 1e9 : 0;
}

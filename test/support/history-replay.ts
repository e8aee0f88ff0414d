/**
 * Replays the histories a live run made against the workflow code, as a worker that lost its cache
 * does: a history recorded by a live worker must replay without nondeterminism, whatever faults it ran
 * through. A history that does not is written (binary protobuf, the replay fixtures' format) for a
 * replay under a debugger or a fixture, and its shape printed (ids and types, never a payload).
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
    failed.push(`${result.workflowId}: ${String(result.error)}`);
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

/**
 * Recorded workflow histories, kept as binary protobuf (`temporal.api.history.v1.History`): the
 * encoding the server itself uses, read back without any JSON conversion.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import proto from '@temporalio/proto';
import type { History } from '@temporalio/common/lib/proto-utils.js';

export const REPLAY_FIXTURES_DIR = fileURLToPath(new URL('../fixtures/histories', import.meta.url));

const HistoryType = proto.temporal.api.history.v1.History;

export async function saveHistory(name: string, history: History): Promise<void> {
  await mkdir(REPLAY_FIXTURES_DIR, { recursive: true });
  await writeFile(`${REPLAY_FIXTURES_DIR}/${name}.history.pb`, HistoryType.encode(history).finish());
}

/**
 * With `UPDATE_REPLAY_FIXTURES=1`, keeps the history `read` answers as the replay fixture `name`
 * (`[webapi-]<workflow>-<scenario>`); otherwise reads nothing.
 */
export async function recordFixture(name: string, read: () => Promise<History>): Promise<void> {
  if (process.env.UPDATE_REPLAY_FIXTURES) await saveHistory(name, await read());
}

export async function loadHistories(): Promise<Array<{ workflowId: string; history: History }>> {
  const files = (await readdir(REPLAY_FIXTURES_DIR)).filter((name) => name.endsWith('.history.pb')).sort();
  return Promise.all(
    files.map(async (name) => ({
      workflowId: name.replace(/\.history\.pb$/, ''),
      history: HistoryType.decode(await readFile(`${REPLAY_FIXTURES_DIR}/${name}`)),
    })),
  );
}

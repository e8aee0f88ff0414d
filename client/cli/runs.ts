/** `maintenance list|status` and `documents list|status`: the firm's maintenance requests and daily submissions. */
import type { Command } from 'commander';
import type { RunKind, RunListEntry, RunStatus } from '../runs.js';
import { paintState } from './color.js';
import { deferred, examples, integerOption, timeoutOption, withEngine } from './options.js';
import { out, table, time } from './output.js';

const api = () => import('../runs.js');
const listRuns = deferred(api, 'listRuns');
const runStatus = deferred(api, 'runStatus');

function listText(kind: RunKind, entries: RunListEntry[]): string {
  if (entries.length === 0) return `no ${kind} runs`;
  if (kind === 'maintenance') {
    return table(
      ['WORKFLOW', 'ACCOUNT', 'FUNCTION', 'REQUEST', 'STATUS', 'STARTED'],
      entries.map((e) => [
        e.workflowId,
        e.accountId ?? '-',
        e.functionName ?? '-',
        paintState(e.requestStatus ?? '-'),
        paintState(e.status),
        time(e.startTime),
      ]),
    );
  }
  return table(
    ['WORKFLOW', 'ALERT', 'STATUS', 'STARTED', 'CLOSED'],
    entries.map((e) => [e.workflowId, e.alert ?? '-', paintState(e.status), time(e.startTime), time(e.closeTime)]),
  );
}

function statusText(run: RunStatus): string {
  return [
    `workflow  ${run.workflowId}`,
    `status    ${paintState(run.status)}  started ${time(run.startTime)}  closed ${time(run.closeTime)}`,
    ...(run.note ? [`note      ${run.note}`] : []),
    ...(run.detail === undefined ? [] : ['', JSON.stringify(run.detail, null, 2)]),
  ].join('\n');
}

/** `<kind> list` and `<kind> status <workflowId>` under `group`. */
export function addRunSubcommands(group: Command, kind: RunKind): void {
  const list = group
    .command('list')
    .description(`the firm's ${kind} runs, newest first`)
    .option('--running', 'only runs in progress')
    .option('--limit <n>', 'at most this many (1 to 10000)', integerOption(1, 10_000), 200);
  if (kind === 'maintenance') list.option('--account <accountId>', 'only requests of this account');
  list.action(async (options: { running?: boolean; limit: number; account?: string }, command: Command) => {
    await withEngine(command, async (engine, format) => {
      const entries = await listRuns(engine, kind, {
        running: options.running,
        limit: options.limit,
        accountId: options.account,
      });
      out(format, entries, () => listText(kind, entries));
    });
  });
  timeoutOption(list, '1m');

  const status = group
    .command('status')
    .description(`one ${kind} run: its state while running, its result once done`)
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const run = await runStatus(engine, kind, workflowId);
        out(format, run, () => statusText(run));
      });
    });
  timeoutOption(status, '1m');

  if (kind === 'maintenance') {
    examples(list, [
      ['maintenance list --running', 'requests still waiting for a decision'],
      ['maintenance list --account U1234567 -o jsonl', "one account's requests"],
    ]);
    examples(status, [['maintenance status maintenance:CSID:U1234567:k1', 'PENDING, PROCESSED or REJECTED, and why']]);
  } else {
    examples(list, [['documents list --limit 7', 'the last week of submissions']]);
    examples(status, [['documents status documents-CSID-2026-11-24', "the day's forms, alert and report"]]);
  }
}

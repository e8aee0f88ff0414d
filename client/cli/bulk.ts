/** `bulk abandon|poll-now --query`: one staff action on every matching application, as a Temporal batch job. */
import type { Command } from 'commander';
import type { BulkAction, BulkJob, BulkJobState, BulkPlan } from '../bulk.js';
import { failLater } from './errors.js';
import { confirm, deferred, examples, integerOption, timeoutOption, withEngine, yesOption } from './options.js';
import { out } from './output.js';
import { spinner } from './progress.js';

const api = () => import('../bulk.js');
const planBulk = deferred(api, 'planBulk');
const startBulk = deferred(api, 'startBulk');
const awaitBulkJob = deferred(api, 'awaitBulkJob');
const bulkJobState = deferred(api, 'bulkJobState');

interface BulkOptions {
  query: string;
  reason?: string;
  dryRun?: boolean;
  wait: boolean;
  rate?: number;
}

function planText(plan: BulkPlan): string {
  return [
    `query     ${plan.query}`,
    `matching  ${plan.matching} running application(s)`,
    ...plan.sample.map((workflowId) => `  ${workflowId}`),
    ...(plan.matching > plan.sample.length ? [`  … and ${plan.matching - plan.sample.length} more`] : []),
  ].join('\n');
}

function jobText(state: BulkJobState): string {
  return `job ${state.jobId}: ${state.state}, ${state.completed}/${state.total} signalled, ${state.failed} failed`;
}

async function bulk(action: BulkAction, options: BulkOptions, command: Command): Promise<void> {
  let jobId: string | undefined;
  await withEngine(
    command,
    async (engine, format) => {
      const plan = await planBulk(engine, { query: options.query });
      if (options.dryRun || plan.matching === 0) {
        out(format, { dryRun: options.dryRun ?? false, ...plan }, () =>
          [planText(plan), options.dryRun ? '(dry run: nothing sent)' : 'nothing to do'].join('\n'),
        );
        return;
      }
      if (format === 'text') process.stderr.write(`${planText(plan)}\n`);
      if (action === 'abandon')
        await confirm(command, `Abandon these ${plan.matching} application(s) at the brokerage?`);
      const job = (await startBulk(engine, {
        action,
        query: options.query,
        reason: options.reason,
        rate: options.rate,
      })) as BulkJob;
      jobId = job.jobId;
      if (!options.wait) {
        out(
          format,
          job,
          () => `started job ${job.jobId} for ${job.matching} application(s); eca bulk status ${job.jobId}`,
        );
        return;
      }
      let last: BulkJobState | undefined;
      const spin = spinner(format, () => (last ? jobText(last) : `job ${job.jobId} starting`));
      const state = await awaitBulkJob(engine, job.jobId, (seen) => (last = seen)).finally(() => spin.stop());
      out(format, { ...job, ...state }, () =>
        [jobText(state), `each application records what it did in \`eca status\` (staff notices)`].join('\n'),
      );
      if (state.failed > 0 || state.state !== 'COMPLETED') failLater();
    },
    {
      onTimeout: () =>
        jobId ? `the batch job goes on on the server: \`eca bulk status ${jobId}\`` : 'no batch job was started',
    },
  );
}

function bulkCommand(parent: Command, action: BulkAction, description: string): Command {
  const command = parent
    .command(action)
    .description(description)
    .requiredOption('--query <visibility query>', 'which applications, e.g. "EcaLifecycleState = \'needsDocuments\'"')
    .option('--dry-run', 'show what matches; send nothing')
    .option('--no-wait', 'start the job and return its id')
    .option('--rate <n>', 'signals per second (1 to 1000; default: the server limit)', integerOption(1, 1000))
    .action((options: BulkOptions, self: Command) => bulk(action, options, self));
  return timeoutOption(command, '10m', 'how long to follow the job');
}

export function addBulkCommands(program: Command): void {
  const group = program
    .command('bulk')
    .description(
      'a staff action on every running application of the firm a visibility query matches (Temporal batch operation)',
    );

  const abandon = bulkCommand(group, 'abandon', 'abandon every matching application (the abandon signal)').option(
    '--reason <text>',
    'why, for the record',
  );
  yesOption(abandon);
  examples(abandon, [
    [
      "bulk abandon --query \"EcaLifecycleState = 'needsDocuments' AND StartTime < '2026-10-01'\" --dry-run",
      'who would be abandoned',
    ],
    ['bulk abandon --query "EcaExternalId STARTS_WITH \'test-\'" --reason cleanup --yes', 'without asking'],
  ]);

  const poll = bulkCommand(group, 'poll-now', 'make every matching application read its status now');
  examples(poll, [
    ['bulk poll-now --query "EcaLifecycleState = \'awaitingApproval\'"', 'after the brokerage says it caught up'],
  ]);

  const status = group
    .command('status')
    .description('where a bulk job stands')
    .argument('<jobId>')
    .action(async (jobId: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const state = await bulkJobState(engine, jobId);
        out(format, state, () => jobText(state));
      });
    });
  timeoutOption(status, '1m');
  examples(status, [['bulk status eca-bulk-abandon-0b1c…', 'signalled, failed, state']]);
  examples(group, [
    ['bulk poll-now --query "EcaLifecycleState = \'awaitingApproval\'"', 'every match of the firm, now'],
    ['bulk abandon --query "EcaLifecycleState = \'needsCorrection\'" --dry-run', 'count and sample, nothing sent'],
  ]);
}

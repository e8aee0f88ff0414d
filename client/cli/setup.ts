/** `setup`: the namespace and search attributes a Temporal server needs before the engine runs on it. */
import type { Command } from 'commander';
import { DEFAULT_RETENTION, parseRetention } from '../retention.js';
import { deferred, examples, globalOptions } from './options.js';
import { out } from './output.js';

const connectTemporal = deferred(() => import('../connection.js'), 'connectTemporal');
const setupNamespace = deferred(() => import('../setup.js'), 'setupNamespace');

async function setup(options: { retention?: string }, command: Command): Promise<void> {
  const global = globalOptions(command);
  // Bad input is refused before anything connects.
  if (options.retention !== undefined) parseRetention(options.retention);
  const { connection, namespace: configured } = await connectTemporal(global);
  const namespace = global.namespace || configured;
  try {
    const result = await setupNamespace(connection, {
      namespace,
      retention: options.retention,
      log: global.output !== 'text' ? undefined : (line) => process.stderr.write(`${line}\n`),
    });
    out(
      global.output,
      result,
      () =>
        `namespace ${result.namespace} ready: retention ${result.retentionMs / 86_400_000} day(s), ` +
        `${result.searchAttributes.length} search attributes (${result.searchAttributesCreated.length} new)`,
    );
  } finally {
    await connection.close();
  }
}

export function addSetupCommands(program: Command): void {
  const command = program
    .command('setup')
    .description(
      'register the namespace (with its retention) and the search attributes the engine needs; idempotent, verified',
    )
    .option(
      '--retention <duration>',
      `how long closed workflows stay in history (30d, 720h); without it an existing namespace keeps its own, a new one gets ${DEFAULT_RETENTION}`,
    )
    .action(setup);
  examples(command, [
    ['setup', 'a new namespace gets 30 days of retention; an existing one keeps its own'],
    ['setup --namespace onboarding --retention 90d', 'another namespace, another retention'],
  ]);
}

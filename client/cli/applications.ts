/** Starting applications and following them: apply, apply-batch, status, list, watch. */
import { basename } from 'node:path';
import type { Command } from 'commander';
import { EcaError } from '../../eca/errors.js';
import type { ConnectedEngine } from '../connection.js';
import { EngineError } from '../errors.js';
import { batchItems, documentArguments } from './documents.js';
import type { BatchItem } from './documents.js';
import { failLater } from './errors.js';
import { applicationCommand, deferred, integerOption, secondsOption, withEngine } from './options.js';
import { describeState, listTable, out, table } from './output.js';

const api = () => import('../applications.js');
const getState = deferred(api, 'getState');
const listApplications = deferred(api, 'listApplications');
const startApplication = deferred(api, 'startApplication');

interface BatchResult {
  application: string;
  outcome: 'started' | 'existed' | 'failed';
  detail: string;
}

/** Starts every item; an application the engine or the brokerage's rules refuse is a failed row, not the end. */
async function applyAll(engine: ConnectedEngine, items: BatchItem[], json: boolean): Promise<BatchResult[]> {
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = json
    ? undefined
    : new SingleBar({ format: 'applying [{bar}] {value}/{total} {file}' }, Presets.shades_classic);
  bar?.start(items.length, 0, { file: '' });
  const results: BatchResult[] = [];
  for (const item of items) {
    bar?.update({ file: basename(item.application) });
    try {
      const started = await startApplication(engine, { applicationXml: item.application, documents: item.documents });
      results.push({
        application: item.application,
        outcome: started.existed ? 'existed' : 'started',
        detail: started.workflowId,
      });
    } catch (error) {
      if (!(error instanceof EngineError || error instanceof EcaError)) throw error;
      results.push({ application: item.application, outcome: 'failed', detail: error.message });
    }
    bar?.increment();
  }
  bar?.stop();
  return results;
}

function printBatch(json: boolean, results: BatchResult[]): void {
  const count = (outcome: BatchResult['outcome']) => results.filter((result) => result.outcome === outcome).length;
  out(json, results, () =>
    [
      table(
        ['APPLICATION', 'OUTCOME', 'WORKFLOW OR ERROR'],
        results.map((r) => [basename(r.application), r.outcome, r.detail]),
      ),
      '',
      `${count('started')} started, ${count('existed')} already existed, ${count('failed')} failed`,
    ].join('\n'),
  );
  if (count('failed') > 0) failLater();
}

interface ListOptions {
  state?: string;
  status?: string;
  running?: boolean;
  allFirms?: boolean;
  limit: number;
}

async function watch(engine: ConnectedEngine, intervalSeconds: number): Promise<void> {
  let stop = false;
  process.once('SIGINT', () => (stop = true));
  while (!stop) {
    const entries = await listApplications(engine, { csid: engine.csid, running: true });
    process.stdout.write(`\x1b[2J\x1b[H${new Date().toISOString()}  ${entries.length} running\n\n`);
    process.stdout.write(`${listTable(entries)}\n`);
    await new Promise((done) => setTimeout(done, intervalSeconds * 1000));
  }
}

function addApply(program: Command): void {
  program
    .command('apply')
    .description('start the workflow of an application (idempotent)')
    .argument('<application.xml>', 'the application XML')
    .option('--external-id <id>', 'check that the XML carries this external id')
    .option('--docs <pdf...>', 'PDFs sent with create, as FORM:path.pdf')
    .action(async (file: string, options: { externalId?: string; docs?: string[] }, command: Command) => {
      const documents = documentArguments(options.docs);
      await withEngine(command, async (engine, json) => {
        const started = await startApplication(engine, {
          applicationXml: file,
          externalId: options.externalId,
          documents,
        });
        out(json, { workflowId: started.workflowId, externalId: started.externalId, existed: started.existed }, () =>
          started.existed
            ? `application ${started.externalId} already exists: workflow ${started.workflowId}`
            : `started application ${started.externalId}: workflow ${started.workflowId}`,
        );
      });
    });

  program
    .command('apply-batch')
    .description('start many applications: a directory of .xml files, or a CSV with columns application,documents')
    .argument('<dir|csv>')
    .action(async (source: string, _options: unknown, command: Command) => {
      const items = await batchItems(source);
      await withEngine(command, async (engine, json) => printBatch(json, await applyAll(engine, items, json)));
    });
}

function addFollow(program: Command): void {
  applicationCommand(program, {
    name: 'status',
    description: 'where an application stands (the workflow state query)',
    ask: getState,
    text: describeState,
  });

  program
    .command('list')
    .description('applications as a table, filtered by search attributes')
    .option('--state <lifecycleState>', 'e.g. needsDocuments, awaitingApproval, open')
    .option('--status <code>', 'account status code: A N O C P R')
    .option('--running', 'only applications still in progress')
    .option('--all-firms', 'every CSID, not only --csid')
    .option('--limit <n>', 'at most this many (1 to 10000)', integerOption(1, 10_000), 200)
    .action(async (options: ListOptions, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const entries = await listApplications(engine, {
          lifecycleState: options.state,
          accountStatus: options.status,
          csid: options.allFirms ? undefined : engine.csid,
          running: options.running,
          limit: options.limit,
        });
        out(json, entries, () => (entries.length === 0 ? 'no applications' : listTable(entries)));
      });
    });

  program
    .command('watch')
    .description('a live table of the running applications (Ctrl-C to stop)')
    .option('--interval <seconds>', 'refresh interval (0.5 to 3600)', secondsOption(0.5, 3600), 2)
    .action(async (options: { interval: number }, command: Command) => {
      await withEngine(command, (engine) => watch(engine, options.interval));
    });
}

export function addApplicationCommands(program: Command): void {
  addApply(program);
  addFollow(program);
}

/** Starting applications and following them: apply, apply-batch, status, list, watch. */
import { basename } from 'node:path';
import { InvalidArgumentError, Option } from 'commander';
import type { Command } from 'commander';
import { APPLICATION_STATES } from '../../domain/application-states.js';
import { ACCOUNT_STATUS_LETTER, ACCOUNT_STATUS_LETTER_RULE } from '../../domain/account.js';
import { BrokerageError } from '../../domain/brokerage-errors.js';
import type { ConnectedEngine } from '../connection.js';
import { EngineError } from '../errors.js';
import { paintState } from './color.js';
import { batchItems, documentArguments } from './documents.js';
import type { BatchItem } from './documents.js';
import { errorCode, failLater } from './errors.js';
import { applicationCommand, deferred, examples, integerOption, secondsOption, withEngine } from './options.js';
import { describeState, formatted, isJson, listTable, out, outputClosed, table } from './output.js';
import type { OutputFormat } from './output.js';
import { progressBar } from './progress.js';

const api = () => import('../applications.js');
const getState = deferred(api, 'getState');
const listApplications = deferred(() => import('../listing.js'), 'listApplications');
const startApplication = deferred(api, 'startApplication');

interface BatchResult {
  application: string;
  outcome: 'started' | 'existed' | 'failed';
  detail: string;
  /** The class of error of a failed row (exit-codes.ts). */
  code?: string;
}

/** Starts one item; an application the engine or the brokerage's rules refuse is a failed row, not the end. */
async function applyOne(engine: ConnectedEngine, item: BatchItem): Promise<BatchResult> {
  try {
    const started = await startApplication(engine, { applicationXml: item.application, documents: item.documents });
    return {
      application: item.application,
      outcome: started.existed ? 'existed' : 'started',
      detail: started.workflowId,
    };
  } catch (error) {
    if (!(error instanceof EngineError || error instanceof BrokerageError)) throw error;
    return { application: item.application, outcome: 'failed', detail: error.message, code: errorCode(error) };
  }
}

/** Starts every item, `concurrency` at a time; the results in the items' order. */
async function applyAll(
  engine: ConnectedEngine,
  items: BatchItem[],
  concurrency: number,
  format: OutputFormat,
): Promise<BatchResult[]> {
  const bar = await progressBar(format, 'applying', items.length);
  const results = new Array<BatchResult>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) {
        results[i] = await applyOne(engine, items[i]!);
        bar.tick(basename(items[i]!.application), results[i]!.outcome === 'failed');
      }
    }),
  );
  bar.stop();
  return results;
}

function printBatch(format: OutputFormat, results: BatchResult[], seconds: number): void {
  const count = (outcome: BatchResult['outcome']) => results.filter((result) => result.outcome === outcome).length;
  out(format, results, () =>
    [
      table(
        ['APPLICATION', 'OUTCOME', 'WORKFLOW OR ERROR'],
        results.map((r) => [basename(r.application), paintState(r.outcome), r.detail]),
      ),
      '',
      `${count('started')} started, ${count('existed')} already existed, ${count('failed')} failed (${seconds.toFixed(1)} s)`,
    ].join('\n'),
  );
  if (count('failed') > 0) failLater();
}

function statusLetter(value: string): string {
  if (!ACCOUNT_STATUS_LETTER.test(value))
    throw new InvalidArgumentError(`"${value}" is not ${ACCOUNT_STATUS_LETTER_RULE}.`);
  return value;
}

interface ListOptions {
  state?: string;
  status?: string;
  running?: boolean;
  allFirms?: boolean;
  limit: number;
}

/**
 * Refreshes the running applications every `intervalSeconds`, `count` times or until Ctrl-C. At a
 * terminal the table is redrawn in place; elsewhere (a pipe, a file) each refresh is appended, as text
 * under a time line or, with `-o json|jsonl`, as one JSON line `{ at, running, applications }`.
 */
async function watch(engine: ConnectedEngine, format: OutputFormat, intervalSeconds: number, count?: number) {
  let stop = false;
  const interrupt = () => (stop = true);
  process.once('SIGINT', interrupt);
  const redraw = process.stdout.isTTY && format === 'text';
  try {
    for (let refresh = 1; !stop; refresh++) {
      const entries = await listApplications(engine, { running: true });
      const at = new Date().toISOString();
      if (isJson(format)) {
        process.stdout.write(formatted('jsonl', { at, running: entries.length, applications: entries }, () => ''));
      } else {
        if (redraw) process.stdout.write('\x1b[2J\x1b[H');
        process.stdout.write(`${at}  ${entries.length} running\n\n${listTable(entries)}\n${redraw ? '' : '\n'}`);
      }
      // A reader that went away (`eca watch -o jsonl | head -1`) ends the watch.
      if ((count !== undefined && refresh >= count) || outputClosed()) break;
      await new Promise((done) => setTimeout(done, intervalSeconds * 1000));
    }
  } finally {
    process.off('SIGINT', interrupt);
  }
}

function addApply(program: Command): void {
  const apply = program
    .command('apply')
    .description('start the workflow of an application (idempotent)')
    .argument('<application.xml>', 'the application XML')
    .option('--external-id <id>', 'check that the XML carries this external id')
    .option('--docs <pdf...>', 'PDFs sent with create, as FORM:path.pdf')
    .action(async (file: string, options: { externalId?: string; docs?: string[] }, command: Command) => {
      const documents = documentArguments(options.docs);
      await withEngine(command, async (engine, format) => {
        const started = await startApplication(engine, {
          applicationXml: file,
          externalId: options.externalId,
          documents,
        });
        out(format, { workflowId: started.workflowId, externalId: started.externalId, existed: started.existed }, () =>
          started.existed
            ? `application ${started.externalId} already exists: workflow ${started.workflowId}`
            : `started application ${started.externalId}: workflow ${started.workflowId}`,
        );
      });
    });
  examples(apply, [
    ['apply client-42.xml', 'start it (again: reports the one that exists)'],
    ['apply client-42.xml --docs 8001:passport.pdf', 'with a PDF sent at create'],
    ['apply client-42.xml -o json', '{ workflowId, externalId, existed }'],
  ]);

  const batch = program
    .command('apply-batch')
    .description('start many applications: a directory of .xml files, or a CSV with columns application,documents')
    .argument('<dir|csv>')
    .option('--concurrency <n>', 'applications started at once (1 to 64)', integerOption(1, 64), 4)
    .action(async (source: string, options: { concurrency: number }, command: Command) => {
      const items = await batchItems(source);
      await withEngine(command, async (engine, format) => {
        const began = Date.now();
        const results = await applyAll(engine, items, options.concurrency, format);
        printBatch(format, results, (Date.now() - began) / 1000);
      });
    });
  examples(batch, [
    ['apply-batch ./applications/', 'every .xml file of the folder'],
    ['apply-batch batch.csv --concurrency 16', 'rows application,documents; 16 at once'],
    ['apply-batch ./applications/ -o jsonl', 'one result per line; exit 1 when any failed'],
  ]);
}

function addFollow(program: Command): void {
  applicationCommand(program, {
    name: 'status',
    description: 'where an application stands (the workflow state query)',
    ask: getState,
    text: describeState,
    examples: [
      ['status client-42', 'by external id'],
      ['status U1234567 -o json', 'by account id, as JSON'],
    ],
  });

  const list = program
    .command('list')
    .description('applications as a table, filtered by search attributes')
    // A state or status no application can have is a usage error naming what is taken, never an empty list.
    .addOption(new Option('--state <lifecycleState>', 'the lifecycle state').choices(APPLICATION_STATES))
    .option('--status <letter>', `the account's status: ${ACCOUNT_STATUS_LETTER_RULE}`, statusLetter)
    .option('--running', 'only applications still in progress')
    .option('--all-firms', 'every CSID, not only --csid')
    .option('--limit <n>', 'at most this many (1 to 10000)', integerOption(1, 10_000), 200)
    .action(async (options: ListOptions, command: Command) => {
      await withEngine(command, async (engine, format) => {
        const entries = await listApplications(engine, {
          lifecycleState: options.state,
          accountStatus: options.status,
          allFirms: options.allFirms === true,
          running: options.running,
          limit: options.limit,
        });
        out(format, entries, () => (entries.length === 0 ? 'no applications' : listTable(entries)));
      });
    });
  examples(list, [
    ['list --state needsDocuments', 'who waits for documents'],
    ['list --running -o jsonl', 'one application per line'],
  ]);

  const watching = program
    .command('watch')
    .description('a live table of the running applications (Ctrl-C to stop)')
    .option('--interval <seconds>', 'refresh interval (0.5 to 3600)', secondsOption(0.5, 3600), 2)
    .option('--count <n>', 'stop after this many refreshes', integerOption(1, 1_000_000))
    .action(async (options: { interval: number; count?: number }, command: Command) => {
      await withEngine(command, (engine, format) => watch(engine, format, options.interval, options.count));
    });
  examples(watching, [
    ['watch', 'redrawn in place at a terminal'],
    ['watch --interval 10 -o jsonl > running.jsonl', 'a JSON line per refresh'],
  ]);
}

export function addApplicationCommands(program: Command): void {
  addApply(program);
  addFollow(program);
}

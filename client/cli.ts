/**
 * `eca`: the command line for staff and ops. `eca --help` lists the commands; every command takes
 * `--json` for scripts. Bad input gets one line on stderr and a non-zero exit, never a stack trace.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { basename, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { SingleBar, Presets } from 'cli-progress';
import { parse as parseCsv } from 'csv-parse/sync';
import { EcaError, findLandingPage, LANDING_PAGES } from '../eca/index.js';
import type { ApplicationStateView } from '../workflows/application/messages.js';
import {
  abandon,
  DEFAULT_TASK_QUEUE,
  getState,
  listApplications,
  pollNow,
  provideDocuments,
  reset,
  retry,
  resubmit,
  startApplication,
} from './applications.js';
import type { ApplicationListEntry } from './applications.js';
import { connectEngine, connectTemporal } from './connection.js';
import type { ConnectedEngine, ConnectOptions } from './connection.js';
import type { DocumentInput } from './documents.js';
import { EngineError, InvalidInputError } from './errors.js';
import { createSsoUrl, setLanguages } from './brokerage.js';
import { takeCredentials } from './credentials.js';
import { FIRM_TYPES, startMaintenance } from './maintenance.js';
import { InvalidScheduleOptions, upsertDailyDocumentsSchedule } from './schedules.js';
import { DEFAULT_RETENTION, parseRetention, setupNamespace } from './setup.js';

interface GlobalOptions extends ConnectOptions {
  json?: boolean;
}

function out(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : `${text()}\n`);
}

function time(ms: number | undefined): string {
  return ms === undefined ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A plain text table: columns padded to their widest cell. */
export function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}

function describeState(view: ApplicationStateView): string {
  const lines = [
    `application  ${view.externalId} (CSID ${view.csid})`,
    `state        ${view.lifecycleState}${view.done ? ' (final)' : ''}`,
    `account      ${view.accountId ?? '-'}  status ${view.status ?? '-'}${view.stateText ? `  ${view.stateText}` : ''}`,
    `polls        last ${time(view.lastPollAt)}  next ${time(view.nextPollAt)}`,
  ];
  if (view.corrections.length > 0) lines.push(`correct      ${view.corrections.join('\n             ')}`);
  if (view.lastRefusal) lines.push(`refused      ${view.lastRefusal}`);
  if (view.unconfirmed) lines.push(`unconfirmed  ${view.unconfirmed.step}: ${view.unconfirmed.reason}`);
  if (view.blocked) {
    const { step, errorType, reason, since } = view.blocked;
    lines.push(
      `blocked      ${step} since ${time(since)}: ${errorType}: ${reason}`,
      `             eca retry / resubmit / abandon`,
    );
  }
  if (view.waitingDocuments.length > 0) lines.push(`to send      forms ${view.waitingDocuments.join(', ')}`);
  if (view.pendingTasks.length > 0) {
    lines.push(
      '',
      table(
        ['FORM', 'TASK', 'ACTION', 'STATE'],
        view.pendingTasks.map((task) => [
          task.formNumber,
          task.formName,
          task.action,
          task.reason ? `${task.state ?? ''}: ${task.reason}` : (task.state ?? ''),
        ]),
      ),
    );
  }
  lines.push(
    '',
    table(
      ['AT', 'STATE', 'EVENT'],
      view.transitions.map((transition) => [time(transition.at), transition.state, transition.event]),
    ),
  );
  return lines.join('\n');
}

function listTable(entries: ApplicationListEntry[]): string {
  return table(
    ['EXTERNAL ID', 'ACCOUNT', 'STATE', 'STATUS', 'WORKFLOW', 'STARTED'],
    entries.map((entry) => [
      entry.externalId ?? '-',
      entry.accountId ?? '-',
      entry.lifecycleState ?? '-',
      entry.accountStatus ?? '-',
      entry.status,
      entry.startTime.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ]),
  );
}

/** An option's whole number within bounds; commander reports anything else as an invalid argument. */
export function integerOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/** An option's number of seconds within bounds (decimals allowed). */
export function secondsOption(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
      throw new InvalidArgumentError(`expected a number of seconds from ${min} to ${max}, got "${value}"`);
    }
    return n;
  };
}

/** `FORM:path.pdf`, or a path whose file name starts with the form number (`8001-passport.pdf`). */
export function parseDocumentArgument(argument: string): DocumentInput {
  const explicit = /^(\d+):(.+)$/.exec(argument);
  if (explicit) return { formNumber: explicit[1]!, data: explicit[2]! };
  const inferred = /^(\d+)[-_ ]/.exec(basename(argument));
  if (inferred) return { formNumber: inferred[1]!, data: argument };
  throw new InvalidInputError(argument, 'give the form number as FORM:path.pdf (or name the file <form>-....pdf)');
}

async function withEngine<T>(command: Command, run: (engine: ConnectedEngine, json: boolean) => Promise<T>) {
  const options = command.optsWithGlobals<GlobalOptions>();
  const engine = await connectEngine(options);
  try {
    return await run(engine, options.json ?? false);
  } finally {
    await engine.close();
  }
}

interface BatchItem {
  application: string;
  documents: DocumentInput[];
}

/** A path named in a batch CSV, resolved against the CSV's folder and refused when it leads out of it. */
export function insideFolder(base: string, path: string, where: string): string {
  const full = resolve(base, path);
  const inside = relative(base, full);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside)) {
    throw new InvalidInputError(where, `"${path}" is outside the CSV's folder ${base}`);
  }
  return full;
}

/** CSV files larger than this are refused before they are read. */
const MAX_BATCH_CSV_BYTES = 10 * 1024 * 1024;

async function batchItems(source: string): Promise<BatchItem[]> {
  let info;
  try {
    info = await stat(source);
  } catch {
    throw new InvalidInputError(source, 'no such file or directory');
  }
  if (info.isDirectory()) {
    const names = (await readdir(source)).filter((name) => extname(name).toLowerCase() === '.xml').sort();
    if (names.length === 0) throw new InvalidInputError(source, 'holds no .xml application files');
    return names.map((name) => ({ application: join(source, name), documents: [] }));
  }
  if (info.size > MAX_BATCH_CSV_BYTES) {
    throw new InvalidInputError(source, `${info.size} bytes is over the ${MAX_BATCH_CSV_BYTES}-byte limit`);
  }
  const rows = parseCsv<Record<string, string | undefined>>(await readFile(source), {
    columns: true,
    skip_empty_lines: true,
    trim: true,
  });
  const base = resolve(source, '..');
  return rows.map((row, index) => {
    const where = `${source} row ${index + 2}`;
    if (!row.application) throw new InvalidInputError(where, 'the application column is empty');
    const documents = (row.documents ?? '')
      .split(';')
      .map((part) => part.trim())
      .filter(Boolean)
      .map((part) => {
        const document = parseDocumentArgument(part);
        return { ...document, data: insideFolder(base, document.data as string, where) };
      });
    return { application: insideFolder(base, row.application, where), documents };
  });
}

export function buildProgram(): Command {
  const program = new Command('eca')
    .description('Account applications at the brokerage, driven by Temporal workflows')
    .addOption(new Option('--address <host:port>', 'Temporal frontend').env('TEMPORAL_ADDRESS'))
    .addOption(new Option('--namespace <name>', 'Temporal namespace').env('TEMPORAL_NAMESPACE'))
    .addOption(new Option('--task-queue <name>', 'task queue of the workers').env('ECA_TASK_QUEUE'))
    .addOption(new Option('--csid <id>', "the firm's client service id").env('ECA_CSID'))
    .addOption(new Option('--document-store <dir>', 'document store directory').env('ECA_DOCUMENT_STORE'))
    .option('--json', 'print JSON for scripts')
    .showHelpAfterError('(eca --help lists the commands)')
    .exitOverride();

  program
    .command('apply')
    .description('start the workflow of an application (idempotent)')
    .argument('<application.xml>', 'the application XML')
    .option('--external-id <id>', 'check that the XML carries this external id')
    .option('--docs <pdf...>', 'PDFs sent with create, as FORM:path.pdf')
    .action(async (file: string, options: { externalId?: string; docs?: string[] }, command: Command) => {
      const documents = (options.docs ?? []).map(parseDocumentArgument);
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
      await withEngine(command, async (engine, json) => {
        const bar = json
          ? undefined
          : new SingleBar({ format: 'applying [{bar}] {value}/{total} {file}' }, Presets.shades_classic);
        bar?.start(items.length, 0, { file: '' });
        const results: Array<{ application: string; outcome: 'started' | 'existed' | 'failed'; detail: string }> = [];
        for (const item of items) {
          bar?.update({ file: basename(item.application) });
          try {
            const started = await startApplication(engine, {
              applicationXml: item.application,
              documents: item.documents,
            });
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
        const count = (outcome: string) => results.filter((result) => result.outcome === outcome).length;
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
        if (count('failed') > 0) process.exitCode = 1;
      });
    });

  program
    .command('status')
    .description('where an application stands (the workflow state query)')
    .argument('<externalId|accountId>')
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const view = await getState(engine, reference);
        out(json, view, () => describeState(view));
      });
    });

  program
    .command('list')
    .description('applications as a table, filtered by search attributes')
    .option('--state <lifecycleState>', 'e.g. needsDocuments, awaitingApproval, open')
    .option('--status <code>', 'account status code: A N O C P R')
    .option('--running', 'only applications still in progress')
    .option('--all-firms', 'every CSID, not only --csid')
    .option('--limit <n>', 'at most this many (1 to 10000)', integerOption(1, 10_000), 200)
    .action(
      async (
        options: { state?: string; status?: string; running?: boolean; allFirms?: boolean; limit: number },
        command: Command,
      ) => {
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
      },
    );

  program
    .command('watch')
    .description('a live table of the running applications (Ctrl-C to stop)')
    .option('--interval <seconds>', 'refresh interval (0.5 to 3600)', secondsOption(0.5, 3600), 2)
    .action(async (options: { interval: number }, command: Command) => {
      await withEngine(command, async (engine) => {
        let stop = false;
        process.once('SIGINT', () => (stop = true));
        while (!stop) {
          const entries = await listApplications(engine, { csid: engine.csid, running: true });
          process.stdout.write(`\x1b[2J\x1b[H${new Date().toISOString()}  ${entries.length} running\n\n`);
          process.stdout.write(`${listTable(entries)}\n`);
          await new Promise((done) => setTimeout(done, options.interval * 1000));
        }
      });
    });

  program
    .command('abandon')
    .description('abandon a pending application (update AbandonAccount)')
    .argument('<externalId|accountId>')
    .option('--reason <text>', 'why, for the record')
    .action(async (reference: string, options: { reason?: string }, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const view = await abandon(engine, reference, options.reason);
        out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
      });
    });

  program
    .command('resubmit')
    .description('send a corrected application XML to an application that needs correction')
    .argument('<externalId|accountId>')
    .argument('<application.xml>')
    .action(async (reference: string, file: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const view = await resubmit(engine, reference, file);
        out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
      });
    });

  program
    .command('provide-docs')
    .description('provide the PDFs an application waits for')
    .argument('<externalId|accountId>')
    .argument('<pdf...>', 'FORM:path.pdf (or <form>-name.pdf)')
    .action(async (reference: string, files: string[], _options: unknown, command: Command) => {
      const documents = files.map(parseDocumentArgument);
      await withEngine(command, async (engine, json) => {
        const view = await provideDocuments(engine, reference, documents);
        out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
      });
    });

  program
    .command('reset')
    .description('reset an abandoned application (update ResetAbandonedAccount)')
    .argument('<externalId|accountId>')
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const view = await reset(engine, reference);
        out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
      });
    });

  program
    .command('retry')
    .description(
      'look again at an unconfirmed create or update, or run a blocked step again (follows the same request; sends nothing twice)',
    )
    .argument('<externalId|accountId>')
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const view = await retry(engine, reference);
        out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
      });
    });

  program
    .command('poll-now')
    .description('make a waiting application read its status now')
    .argument('<externalId|accountId>')
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        await pollNow(engine, reference);
        out(json, { signalled: true }, () => `asked ${reference} to poll now`);
      });
    });

  program
    .command('maintain')
    .description('send one update function for an account and follow it to PROCESSED or REJECTED')
    .argument('<accountId>')
    .argument('<function>', 'e.g. ChangeBaseCurrency, UpdateCredentials, AddAdditionalAcct')
    .argument('[body.xml]', "the function element's content (an XML fragment)")
    .addOption(
      new Option('--firm-type <type>', "the firm's type")
        .choices([...FIRM_TYPES])
        .env('ECA_FIRM_TYPE')
        .makeOptionMandatory(),
    )
    .option('--request-key <key>', 'the same key never sends the function twice (random by default)')
    .option('--attach <pdf...>', 'attachments, as FORM:path.pdf')
    .option('--wait', 'wait for the decision and print it')
    .action(
      async (
        accountId: string,
        functionName: string,
        body: string | undefined,
        options: { firmType: string; requestKey?: string; attach?: string[]; wait?: boolean },
        command: Command,
      ) => {
        const attachments = (options.attach ?? []).map(parseDocumentArgument);
        await withEngine(command, async (engine, json) => {
          const started = await startMaintenance(engine, {
            accountId,
            functionName,
            firmType: options.firmType,
            body,
            attachments,
            requestKey: options.requestKey,
          });
          if (!options.wait) {
            out(json, { workflowId: started.workflowId, existed: started.existed }, () =>
              started.existed
                ? `already sent: workflow ${started.workflowId}`
                : `sending ${functionName} for ${accountId}: workflow ${started.workflowId}`,
            );
            return;
          }
          const result = await started.handle.result();
          out(
            json,
            result,
            () =>
              `${functionName} for ${accountId}: ${result.status}${result.error ? ` (${result.error})` : ''}` +
              `${result.responseFile ? `, response file ${result.responseFile}` : ''}`,
          );
          if (result.status === 'REJECTED') process.exitCode = 1;
        });
      },
    );

  program
    .command('setup')
    .description(
      'register the namespace (with its retention) and the search attributes the engine needs; idempotent, verified',
    )
    .option(
      '--retention <duration>',
      `how long closed workflows stay in history (30d, 720h); without it an existing namespace keeps its own, a new one gets ${DEFAULT_RETENTION}`,
    )
    .action(async (options: { retention?: string }, command: Command) => {
      const global = command.optsWithGlobals<GlobalOptions>();
      // Bad input is refused before anything connects.
      if (options.retention !== undefined) parseRetention(options.retention);
      const { connection, namespace: configured } = await connectTemporal(global);
      const namespace = global.namespace ?? configured;
      try {
        const result = await setupNamespace(connection, {
          namespace,
          retention: options.retention,
          log: global.json ? undefined : (line) => process.stderr.write(`${line}\n`),
        });
        out(
          global.json,
          result,
          () =>
            `namespace ${result.namespace} ready: retention ${result.retentionMs / 86_400_000} day(s), ` +
            `${result.searchAttributes.length} search attributes (${result.searchAttributesCreated.length} new)`,
        );
      } finally {
        await connection.close();
      }
    });

  program
    .command('schedules')
    .description("create or update the firm's daily document submission schedule")
    .requiredOption('--time <HH:MM>', "time of day of the submission, before the day's applications")
    .option('--time-zone <zone>', 'IANA time zone of the firm', 'UTC')
    .requiredOption('--forms-dir <dir>', 'directory with forms.json and the PDFs, as the workers see it')
    .option('--paused', 'create it paused')
    .action(
      async (options: { time: string; timeZone: string; formsDir: string; paused?: boolean }, command: Command) => {
        await withEngine(command, async (engine, json) => {
          const schedule = await upsertDailyDocumentsSchedule(engine.client, {
            csid: engine.csid,
            time: options.time,
            timeZone: options.timeZone,
            formsDir: options.formsDir,
            taskQueue: engine.taskQueue ?? DEFAULT_TASK_QUEUE,
            paused: options.paused,
          });
          out(json, schedule, () =>
            [
              `${schedule.created ? 'created' : 'updated'} schedule ${schedule.scheduleId}`,
              ...schedule.nextRuns.slice(0, 3).map((run) => `  next run ${run.toISOString()}`),
            ].join('\n'),
          );
        });
      },
    );

  program
    .command('password')
    .description('hand out, once, the temporary passwords issued at creation (then deleted from the store)')
    .argument('<externalId|accountId>')
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        const taken = await takeCredentials(engine, reference);
        out(json, taken, () =>
          [
            ...taken.users.map((user) => `${user.userName}  ${user.temporaryPassword ?? '(no password issued)'}`),
            ...(taken.responseXml !== undefined ? ['the response file as sent:', taken.responseXml] : []),
            `(deleted from the document store: this was the only copy)`,
          ].join('\n'),
        );
      });
    });

  program
    .command('sso')
    .description('a single-sign-on URL into the hosted portal for an account holder (brokerage settings from ECA_*)')
    .argument('<userName>')
    .requiredOption('--ip <address>', "the end user's own IP address (exactly one)")
    .option(
      '--landing <id>',
      `a landing page id (e.g. ${LANDING_PAGES[0]?.id ?? 'statements'}); \`eca sso --list-landings x --ip 0.0.0.0\` lists them`,
    )
    .option('--list-landings', 'print the landing page catalogue and exit')
    .action(
      async (userName: string, options: { ip: string; landing?: string; listLandings?: boolean }, command: Command) => {
        const { json } = command.optsWithGlobals<GlobalOptions>();
        if (options.listLandings) {
          out(json, LANDING_PAGES, () =>
            table(
              ['ID', 'NAME'],
              LANDING_PAGES.map((page) => [page.id, page.name]),
            ),
          );
          return;
        }
        if (options.landing !== undefined && !findLandingPage(options.landing)) {
          throw new InvalidInputError('--landing', `unknown landing page "${options.landing}" (see --list-landings)`);
        }
        const url = await createSsoUrl({ userName, ip: options.ip, landing: options.landing });
        out(json, url, () => `${url.url}\nvalid until ${url.expiresAt.toISOString()} from ${options.ip} only`);
      },
    );

  program
    .command('languages')
    .description("set a user's preferred languages (preference/set)")
    .argument('<userName>')
    .argument('<lang1>')
    .argument('[lang2]')
    .action(async (userName: string, lang1: string, lang2: string | undefined, _options: unknown, command: Command) => {
      const { json } = command.optsWithGlobals<GlobalOptions>();
      const result = await setLanguages({ userName, lang1, lang2 });
      out(
        json,
        result,
        () => `languages of ${userName}: ${[lang1, lang2].filter(Boolean).join(', ')} (HTTP ${result.status})`,
      );
    });

  return program;
}

/** One line for the person at the terminal; the stack only with ECA_DEBUG=1. */
export function describeError(error: unknown): string {
  if (error instanceof EngineError || error instanceof EcaError || error instanceof InvalidScheduleOptions) {
    return error.message;
  }
  if (error instanceof Error && ['EcaConfigurationError', 'EcaCodecConfigurationError'].includes(error.name)) {
    return error.message;
  }
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    process.stderr.write(`eca: ${describeError(error)}\n`);
    if (process.env.ECA_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    return 1;
  }
}

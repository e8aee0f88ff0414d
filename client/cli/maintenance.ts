/**
 * `maintain`: one update function for an open account, followed to its decision when asked;
 * `maintenance list|status`: the firm's requests.
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { FIRM_TYPES } from '../../workflows/maintenance/functions.js';
import { PROTOCOLS } from '../../domain/protocols.js';
import type { Protocol } from '../../domain/protocols.js';
import { documentArguments } from './documents.js';
import { failLater } from './errors.js';
import { deferred, examples, timeoutOption, withEngine } from './options.js';
import { out } from './output.js';
import { spinner } from './progress.js';
import { addRunSubcommands } from './runs.js';

const startMaintenance = deferred(() => import('../maintenance.js'), 'startMaintenance');

interface MaintainOptions {
  firmType: string;
  protocol?: Protocol;
  requestKey?: string;
  attach?: string[];
  wait?: boolean;
}

async function maintain(
  accountId: string,
  functionName: string,
  body: string | undefined,
  options: MaintainOptions,
  command: Command,
): Promise<void> {
  const attachments = documentArguments(options.attach);
  let workflowId = '<workflowId>';
  await withEngine(
    command,
    async (engine, format) => {
      const started = await startMaintenance(engine, {
        accountId,
        functionName,
        firmType: options.firmType,
        protocol: options.protocol ?? protocolOfBody(body),
        body,
        attachments,
        requestKey: options.requestKey,
      });
      workflowId = started.workflowId;
      if (!options.wait) {
        out(format, { workflowId: started.workflowId, existed: started.existed }, () =>
          started.existed
            ? `already sent: workflow ${started.workflowId}`
            : `sending ${functionName} for ${accountId}: workflow ${started.workflowId}`,
        );
        return;
      }
      const spin = spinner(format, () => `waiting for the brokerage's decision on ${functionName} for ${accountId}`);
      const result = await started.handle.result().finally(() => spin.stop());
      out(
        format,
        result,
        () =>
          `${functionName} for ${accountId}: ${result.status}${result.error ? ` (${result.error})` : ''}` +
          `${result.responseFile ? `, response file ${result.responseFile}` : ''}`,
      );
      if (result.status === 'REJECTED') failLater();
    },
    { onTimeout: () => `the request goes on; \`eca maintenance status ${workflowId}\` shows where it stands` },
  );
}

/** The protocol a body was written for, when the firm's protocol is not given: a JSON body is the Web API's. */
function protocolOfBody(body: string | undefined): Protocol {
  if (body === undefined) return 'xml';
  return /^\s*\{/.test(body) || /\.json$/i.test(body.trim()) ? 'webapi' : 'xml';
}

export function addMaintenanceCommands(program: Command): void {
  const maintainCommand = program
    .command('maintain')
    .description('send one update function for an account and follow it to PROCESSED or REJECTED')
    .argument('<accountId>')
    .argument('<function>', 'e.g. ChangeBaseCurrency, UpdateCredentials, AddAdditionalAcct')
    .argument('[body]', "the function element's content (an XML fragment), or on the Web API its member's JSON")
    .addOption(
      new Option('--firm-type <type>', "the firm's type")
        .choices([...FIRM_TYPES])
        .env('ECA_FIRM_TYPE')
        .makeOptionMandatory(),
    )
    .addOption(
      new Option(
        '--protocol <name>',
        "the firm's protocol, the one the request is sent on (default: webapi for a JSON body, else xml)",
      )
        .choices([...PROTOCOLS])
        .env('ECA_PROTOCOL'),
    )
    .option('--request-key <key>', 'the same key never sends the function twice (random by default)')
    .option('--attach <pdf...>', 'attachments, as FORM:path.pdf')
    .option('--wait', 'wait for the decision and print it')
    .action(maintain);
  timeoutOption(maintainCommand, '10m', 'with --wait, how long to wait for the decision');
  examples(maintainCommand, [
    ['maintain U1234567 ChangeBaseCurrency currency.xml --firm-type advisor --wait', 'send, then wait'],
    ['maintain U1234567 UpdateCredentials body.xml --request-key crm-991', 'the same key never sends twice'],
    [
      'maintain U1234567 ChangeBaseCurrency currency.json --firm-type advisor',
      'a firm on the Web API: the body is the JSON of its member ({"newBaseCurrency": "EUR"})',
    ],
  ]);

  const group = program.command('maintenance').description("the firm's maintenance requests: list, status");
  addRunSubcommands(group, 'maintenance');
  examples(group, [['maintenance list --running', 'requests waiting for a decision']]);
}

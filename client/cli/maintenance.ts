/** `maintain`: one update function for an open account, followed to its decision when asked. */
import { Option } from 'commander';
import type { Command } from 'commander';
import { FIRM_TYPES } from '../../workflows/maintenance/functions.js';
import { documentArguments } from './documents.js';
import { failLater } from './errors.js';
import { deferred, withEngine } from './options.js';
import { out } from './output.js';

const startMaintenance = deferred(() => import('../maintenance.js'), 'startMaintenance');

interface MaintainOptions {
  firmType: string;
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
    if (result.status === 'REJECTED') failLater();
  });
}

export function addMaintenanceCommands(program: Command): void {
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
    .action(maintain);
}

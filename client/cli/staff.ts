/** What staff do to one application: abandon, resubmit, provide-docs, reset, retry, poll-now. */
import type { Command } from 'commander';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import { abandon, pollNow, provideDocuments, reset, retry, resubmit } from '../applications.js';
import type { ConnectedEngine } from '../connection.js';
import { APPLICATION_REFERENCE } from './applications.js';
import { parseDocumentArgument } from './documents.js';
import { withEngine } from './options.js';
import { out } from './output.js';

/** Sends one message to an application and prints the state it answered with. */
async function act(command: Command, send: (engine: ConnectedEngine) => Promise<ApplicationStateView>) {
  await withEngine(command, async (engine, json) => {
    const view = await send(engine);
    out(json, view, () => `application ${view.externalId}: ${view.lifecycleState}`);
  });
}

/** A command on one application named by its reference, with nothing else to give. */
function onApplication(
  program: Command,
  name: string,
  description: string,
  send: (engine: ConnectedEngine, reference: string) => Promise<ApplicationStateView>,
): void {
  program
    .command(name)
    .description(description)
    .argument(APPLICATION_REFERENCE)
    .action(async (reference: string, _options: unknown, command: Command) => {
      await act(command, (engine) => send(engine, reference));
    });
}

export function addStaffCommands(program: Command): void {
  program
    .command('abandon')
    .description('abandon a pending application (update AbandonAccount)')
    .argument(APPLICATION_REFERENCE)
    .option('--reason <text>', 'why, for the record')
    .action(async (reference: string, options: { reason?: string }, command: Command) => {
      await act(command, (engine) => abandon(engine, reference, options.reason));
    });

  program
    .command('resubmit')
    .description('send a corrected application XML to an application that needs correction')
    .argument(APPLICATION_REFERENCE)
    .argument('<application.xml>')
    .action(async (reference: string, file: string, _options: unknown, command: Command) => {
      await act(command, (engine) => resubmit(engine, reference, file));
    });

  program
    .command('provide-docs')
    .description('provide the PDFs an application waits for')
    .argument(APPLICATION_REFERENCE)
    .argument('<pdf...>', 'FORM:path.pdf (or <form>-name.pdf)')
    .action(async (reference: string, files: string[], _options: unknown, command: Command) => {
      const documents = files.map(parseDocumentArgument);
      await act(command, (engine) => provideDocuments(engine, reference, documents));
    });

  onApplication(program, 'reset', 'reset an abandoned application (update ResetAbandonedAccount)', reset);
  onApplication(
    program,
    'retry',
    'look again at an unconfirmed create or update, or run a blocked step again (follows the same request; sends nothing twice)',
    retry,
  );

  program
    .command('poll-now')
    .description('make a waiting application read its status now')
    .argument(APPLICATION_REFERENCE)
    .action(async (reference: string, _options: unknown, command: Command) => {
      await withEngine(command, async (engine, json) => {
        await pollNow(engine, reference);
        out(json, { signalled: true }, () => `asked ${reference} to poll now`);
      });
    });
}

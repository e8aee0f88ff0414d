/** What staff do to one application: abandon, resubmit, provide-docs, reset, retry, poll-now. */
import type { Command } from 'commander';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import type { ConnectedEngine } from '../connection.js';
import { parseDocumentArgument } from './documents.js';
import { APPLICATION_REFERENCE, applicationCommand, deferred, withEngine } from './options.js';
import { out } from './output.js';

const api = () => import('../applications.js');
const abandon = deferred(api, 'abandon');
const pollNow = deferred(api, 'pollNow');
const provideDocuments = deferred(api, 'provideDocuments');
const reset = deferred(api, 'reset');
const retry = deferred(api, 'retry');
const resubmit = deferred(api, 'resubmit');

/** The state an application answered a message with. */
function stateLine(view: ApplicationStateView): string {
  return `application ${view.externalId}: ${view.lifecycleState}`;
}

/** Sends one message to an application and prints the state it answered with. */
async function act(command: Command, send: (engine: ConnectedEngine) => Promise<ApplicationStateView>) {
  await withEngine(command, async (engine, json) => {
    const view = await send(engine);
    out(json, view, () => stateLine(view));
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

  applicationCommand(program, {
    name: 'reset',
    description: 'reset an abandoned application (update ResetAbandonedAccount)',
    ask: reset,
    text: stateLine,
  });

  applicationCommand(program, {
    name: 'retry',
    description:
      'look again at an unconfirmed create or update, or run a blocked step again (follows the same request; sends nothing twice)',
    ask: retry,
    text: stateLine,
  });

  applicationCommand(program, {
    name: 'poll-now',
    description: 'make a waiting application read its status now',
    ask: async (engine, reference) => {
      await pollNow(engine, reference);
      return { signalled: true };
    },
    text: (_answer, reference) => `asked ${reference} to poll now`,
  });
}

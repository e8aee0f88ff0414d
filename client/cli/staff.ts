/** What staff do to one application: abandon, resubmit, provide-docs, reset, retry, poll-now. */
import type { Command } from 'commander';
import type { ApplicationStateView } from '../../workflows/application/messages.js';
import type { ConnectedEngine } from '../connection.js';
import { paintState } from './color.js';
import { parseDocumentArgument } from './documents.js';
import {
  APPLICATION_REFERENCE,
  applicationCommand,
  confirm,
  deferred,
  examples,
  timeoutOption,
  withEngine,
  yesOption,
} from './options.js';
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
  return `application ${view.externalId}: ${paintState(view.lifecycleState)}`;
}

/** Sends one message to an application and prints the state it answered with. */
async function act(command: Command, send: (engine: ConnectedEngine) => Promise<ApplicationStateView>) {
  await withEngine(command, async (engine, format) => {
    const view = await send(engine);
    out(format, view, () => stateLine(view));
  });
}

function addAbandon(program: Command): void {
  const command = program
    .command('abandon')
    .description('abandon a pending application (update AbandonAccount)')
    .argument(APPLICATION_REFERENCE)
    .option('--reason <text>', 'why, for the record')
    .action(async (reference: string, options: { reason?: string }, self: Command) => {
      await confirm(self, `Abandon application ${reference} at the brokerage?`);
      await act(self, (engine) => abandon(engine, reference, options.reason));
    });
  yesOption(command);
  timeoutOption(command, '1m');
  examples(command, [
    ['abandon client-42 --reason "client withdrew"', 'asks first at a terminal'],
    ['abandon client-42 --yes -o json', 'from a script: the state it answered with'],
    ['bulk abandon --query "EcaLifecycleState = \'needsDocuments\'" --dry-run', 'many at once'],
  ]);
}

function addCorrections(program: Command): void {
  const resubmitCommand = program
    .command('resubmit')
    .description('send a corrected application XML to an application that needs correction')
    .argument(APPLICATION_REFERENCE)
    .argument('<application.xml>')
    .action(async (reference: string, file: string, _options: unknown, command: Command) => {
      await act(command, (engine) => resubmit(engine, reference, file));
    });
  timeoutOption(resubmitCommand, '1m');
  examples(resubmitCommand, [['resubmit client-42 client-42-corrected.xml', 'the same external id, corrected']]);

  const provide = program
    .command('provide-docs')
    .description('provide the PDFs an application waits for')
    .argument(APPLICATION_REFERENCE)
    .argument('<pdf...>', 'FORM:path.pdf (or <form>-name.pdf)')
    .action(async (reference: string, files: string[], _options: unknown, command: Command) => {
      const documents = files.map(parseDocumentArgument);
      await act(command, (engine) => provideDocuments(engine, reference, documents));
    });
  timeoutOption(provide, '1m');
  examples(provide, [
    ['provide-docs client-42 8001:passport.pdf', 'the form number, then the file'],
    ['provide-docs client-42 8001-passport.pdf 5002-w8.pdf', 'form numbers from the file names'],
  ]);
}

export function addStaffCommands(program: Command): void {
  addAbandon(program);
  addCorrections(program);

  applicationCommand(program, {
    name: 'reset',
    description: 'reset an abandoned application (update ResetAbandonedAccount)',
    ask: reset,
    text: stateLine,
    confirm: (reference) => `Reset abandoned application ${reference} at the brokerage?`,
    examples: [['reset client-42 --yes', 'the brokerage reopens it; the workflow follows it again']],
  });

  applicationCommand(program, {
    name: 'retry',
    description:
      'look again at an unconfirmed create or update, or run a blocked step again (follows the same request; sends nothing twice)',
    ask: retry,
    text: stateLine,
    examples: [['retry client-42', 'after fixing what `eca status` names under blocked']],
  });

  applicationCommand(program, {
    name: 'poll-now',
    description: 'make a waiting application read its status now',
    ask: async (engine, reference) => {
      await pollNow(engine, reference);
      return { signalled: true };
    },
    text: (_answer, reference) => `asked ${reference} to poll now`,
    examples: [
      ['poll-now client-42', 'one application'],
      ['bulk poll-now --query "EcaLifecycleState = \'awaitingApproval\'"', 'many at once'],
    ],
  });
}

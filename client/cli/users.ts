/** The account holders' users at the brokerage: password, sso, languages. */
import type { Command } from 'commander';
import { findLandingPage, LANDING_PAGES } from '../../eca/landing-pages.js';
import type { TakenCredentials } from '../credentials.js';
import { InvalidInputError } from '../errors.js';
import { applicationCommand, deferred, examples, globalOptions } from './options.js';
import { out, table } from './output.js';

const brokerage = () => import('../brokerage.js');
const createSsoUrl = deferred(brokerage, 'createSsoUrl');
const setLanguages = deferred(brokerage, 'setLanguages');
const takeCredentials = deferred(() => import('../credentials.js'), 'takeCredentials');

function credentialsText(taken: TakenCredentials): string {
  return [
    ...taken.users.map((user) => `${user.userName}  ${user.temporaryPassword ?? '(no password issued)'}`),
    ...(taken.responseXml !== undefined ? ['the response file as sent:', taken.responseXml] : []),
    `(deleted from the document store: this was the only copy)`,
  ].join('\n');
}

async function ssoUrl(
  userName: string,
  options: { ip: string; landing?: string; listLandings?: boolean },
  command: Command,
): Promise<void> {
  const { output } = globalOptions(command);
  if (options.listLandings) {
    out(output, LANDING_PAGES, () =>
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
  out(output, url, () => `${url.url}\nvalid until ${url.expiresAt.toISOString()} from ${options.ip} only`);
}

export function addUserCommands(program: Command): void {
  applicationCommand(program, {
    name: 'password',
    description: 'hand out, once, the temporary passwords issued at creation (then deleted from the store)',
    ask: takeCredentials,
    text: credentialsText,
    examples: [['password client-42 -o json', 'once only: the store keeps no copy after']],
  });

  const sso = program
    .command('sso')
    .description('a single-sign-on URL into the hosted portal for an account holder (brokerage settings from ECA_*)')
    .argument('<userName>')
    .requiredOption('--ip <address>', "the end user's own IP address (exactly one)")
    .option(
      '--landing <id>',
      `a landing page id (e.g. ${LANDING_PAGES[0]?.id ?? 'statements'}); \`eca sso --list-landings x --ip 0.0.0.0\` lists them`,
    )
    .option('--list-landings', 'print the landing page catalogue and exit')
    .action(ssoUrl);
  examples(sso, [
    ['sso jdoe123 --ip 203.0.113.7 --landing statements', 'valid a minute, from that address only'],
    ['sso x --ip 0.0.0.0 --list-landings', 'the landing pages'],
  ]);

  const languages = program
    .command('languages')
    .description("set a user's preferred languages (preference/set)")
    .argument('<userName>')
    .argument('<lang1>')
    .argument('[lang2]')
    .action(async (userName: string, lang1: string, lang2: string | undefined, _options: unknown, command: Command) => {
      const { output } = globalOptions(command);
      const result = await setLanguages({ userName, lang1, lang2 });
      out(
        output,
        result,
        () => `languages of ${userName}: ${[lang1, lang2].filter(Boolean).join(', ')} (HTTP ${result.status})`,
      );
    });
  examples(languages, [['languages jdoe123 en de', 'first and second language']]);
}

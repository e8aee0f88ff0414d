/**
 * `webhooks`: the firm's webhook endpoints, through the onboarding API (`/v1/webhooks`) with an API key
 * of the firm: create (the secret is printed once), list, show, rotate-secret, pause, resume, replay,
 * delete. Reads take any key; changes an onboarding or staff key.
 */
import type { Command } from 'commander';
import { addApiOptions, apiCallOf } from './api-options.js';
import { confirm, examples, globalOptions, yesOption } from './options.js';
import { out, table, time } from './output.js';

/** An endpoint as the API shows it (api/webhooks.ts). */
export interface WebhookEndpointView {
  id: string;
  csid: string;
  url: string;
  description: string;
  state: 'active' | 'paused' | 'deleted';
  cursor: string;
  backlog: number;
  delivered: number;
  failures: number;
  lastError?: string;
  lastErrorAt?: string;
  lastDeliveredAt?: string;
  createdAt: string;
}

interface WithSecret {
  endpoint: WebhookEndpointView;
  secret: string;
}

const path = (id: string, action = '') => `/v1/webhooks/${encodeURIComponent(id)}${action && `/${action}`}`;

const at = (iso: string | undefined) => time(iso === undefined ? undefined : new Date(iso));

const cut = (text: string, length: number) => (text.length > length ? `${text.slice(0, length - 1)}…` : text);

export function endpointsTable(endpoints: WebhookEndpointView[]): string {
  return table(
    ['ID', 'URL', 'STATE', 'BACKLOG', 'DELIVERED', 'FAILURES', 'LAST ERROR'],
    endpoints.map((endpoint) => [
      endpoint.id,
      endpoint.url,
      endpoint.state,
      String(endpoint.backlog),
      String(endpoint.delivered),
      String(endpoint.failures),
      endpoint.lastError ? `${at(endpoint.lastErrorAt)} ${cut(endpoint.lastError, 60)}` : '-',
    ]),
  );
}

export function describeEndpoint(endpoint: WebhookEndpointView): string {
  return [
    `endpoint     ${endpoint.id} (CSID ${endpoint.csid})`,
    `url          ${endpoint.url}`,
    ...(endpoint.description ? [`description  ${endpoint.description}`] : []),
    `state        ${endpoint.state}`,
    `cursor       ${endpoint.cursor}  backlog ${endpoint.backlog}`,
    `delivered    ${endpoint.delivered}  last ${at(endpoint.lastDeliveredAt)}`,
    `failures     ${endpoint.failures}${endpoint.lastError ? `  last ${at(endpoint.lastErrorAt)}: ${endpoint.lastError}` : ''}`,
    `created      ${at(endpoint.createdAt)}`,
  ].join('\n');
}

/** An endpoint and its new secret, which is printed this once. */
function withSecretText({ endpoint, secret }: WithSecret, what: string): string {
  return [
    describeEndpoint(endpoint),
    '',
    `${what}:`,
    secret,
    'It is shown this once: verify deliveries with it (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature).',
  ].join('\n');
}

async function create(url: string, options: { description?: string; after?: string }, command: Command): Promise<void> {
  const answer = await apiCallOf(command)<WithSecret>('POST', '/v1/webhooks', {
    url,
    ...(options.description !== undefined && { description: options.description }),
    ...(options.after !== undefined && { after: options.after }),
  });
  out(globalOptions(command).output, answer, () => withSecretText(answer, 'Its signing secret'));
}

async function list(_options: unknown, command: Command): Promise<void> {
  const { endpoints } = await apiCallOf(command)<{ endpoints: WebhookEndpointView[] }>('GET', '/v1/webhooks');
  out(globalOptions(command).output, endpoints, () =>
    endpoints.length === 0 ? 'no webhook endpoints (eca webhooks create <url>)' : endpointsTable(endpoints),
  );
}

async function show(id: string, _options: unknown, command: Command): Promise<void> {
  const endpoint = await apiCallOf(command)<WebhookEndpointView>('GET', path(id));
  out(globalOptions(command).output, endpoint, () => describeEndpoint(endpoint));
}

async function rotateSecret(id: string, options: { keepPreviousFor: string }, command: Command): Promise<void> {
  const answer = await apiCallOf(command)<WithSecret>('POST', path(id, 'rotate-secret'), {
    keepPreviousFor: options.keepPreviousFor,
  });
  out(globalOptions(command).output, answer, () =>
    withSecretText(answer, `The new signing secret (the previous ones sign beside it for ${options.keepPreviousFor})`),
  );
}

/** pause, resume, replay: a change that answers the endpoint. */
function change(action: string, body: (options: { after?: string }) => unknown, done: string) {
  return async (id: string, options: { after?: string }, command: Command): Promise<void> => {
    const endpoint = await apiCallOf(command)<WebhookEndpointView>('POST', path(id, action), body(options));
    out(
      globalOptions(command).output,
      endpoint,
      () => `${done} ${endpoint.id}: ${endpoint.state}, backlog ${endpoint.backlog}`,
    );
  };
}

async function remove(id: string, _options: unknown, command: Command): Promise<void> {
  await confirm(command, `Delete webhook endpoint ${id}? Its deliveries end and its secrets are wiped.`);
  await apiCallOf(command)<undefined>('DELETE', path(id));
  out(globalOptions(command).output, { id, deleted: true }, () => `deleted webhook endpoint ${id}`);
}

export function addWebhookCommands(program: Command): void {
  const group = addApiOptions(
    program
      .command('webhooks')
      .description(
        "the firm's webhook endpoints, through the onboarding API: create, list, show, rotate-secret, pause, resume, replay, delete",
      ),
    'any role reads; changes take an onboarding or staff key',
  );
  const creation = group
    .command('create')
    .description('register an endpoint for the firm’s lifecycle events; prints its signing secret, once')
    .argument('<url>', 'where deliveries go: an absolute http or https URL')
    .option('--description <text>', 'what the endpoint is, for the list')
    .option('--after <cursor>', 'deliver the events after: now (the default), start, or a cursor')
    .action(create);
  examples(creation, [
    [
      'webhooks create https://onboarding.example.com/eca-events',
      'new events from now on, signed with the secret it prints',
    ],
    [
      'webhooks create https://example.com/hooks --after start -o json',
      'every event the log holds; the answer as JSON',
    ],
  ]);
  examples(group.command('list').description('the endpoints, their backlog and last error').action(list), [
    ['webhooks list', 'a table: state, backlog, deliveries, failures, last error'],
    ['webhooks list -o json', 'as JSON'],
  ]);
  examples(group.command('show').description('one endpoint').argument('<id>', 'the endpoint id (wh_…)').action(show), [
    ['webhooks show wh_abcdefghijklmnop', 'its state, cursor, backlog and last error'],
  ]);
  addChangeCommands(group);
  examples(group, [
    ['webhooks create https://example.com/hooks --api-key "$ECA_API_KEY"', 'register (an onboarding or staff key)'],
    ['webhooks list', 'how each endpoint is doing'],
  ]);
}

/** The commands that change an endpoint: rotate-secret, pause, resume, replay, delete. */
function addChangeCommands(group: Command): void {
  const rotation = group
    .command('rotate-secret')
    .description('a new signing secret, printed once; the previous ones keep signing for a while')
    .argument('<id>', 'the endpoint id')
    .option('--keep-previous-for <duration>', 'how long the previous secrets keep signing (0 ends them now)', '24h')
    .action(rotateSecret);
  examples(rotation, [
    ['webhooks rotate-secret wh_abcdefghijklmnop', 'both secrets sign for 24 hours: switch the receiver meanwhile'],
    ['webhooks rotate-secret wh_abcdefghijklmnop --keep-previous-for 0', 'the old secret stops at once'],
  ]);
  examples(
    group
      .command('pause')
      .description('stop delivering; the endpoint keeps its cursor, nothing is dropped')
      .argument('<id>', 'the endpoint id')
      .action(change('pause', () => ({}), 'paused')),
    [['webhooks pause wh_abcdefghijklmnop', 'its backlog grows until it is resumed']],
  );
  examples(
    group
      .command('resume')
      .description('deliver again, from the cursor on (also an endpoint its failures paused)')
      .argument('<id>', 'the endpoint id')
      .action(change('resume', () => ({}), 'resumed')),
    [['webhooks resume wh_abcdefghijklmnop', 'its backlog first']],
  );
  examples(
    group
      .command('replay')
      .description('send the events after a cursor again, with their same webhook-id')
      .argument('<id>', 'the endpoint id')
      .requiredOption('--after <cursor>', 'start, or a cursor (an event id from `eca events tail -o jsonl`)')
      .action(change('replay', (options) => ({ after: options.after }), 'replaying to')),
    [
      ['webhooks replay wh_abcdefghijklmnop --after start', 'every event the log holds, again'],
      ['webhooks replay wh_abcdefghijklmnop --after 7421-3', 'the events after that one'],
    ],
  );
  const deletion = group
    .command('delete')
    .description('delete the endpoint: deliveries end, its secrets are wiped (asks first)')
    .argument('<id>', 'the endpoint id');
  yesOption(deletion).action(remove);
  examples(deletion, [['webhooks delete wh_abcdefghijklmnop --yes', 'without asking']]);
}

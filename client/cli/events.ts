/**
 * `events tail`: the firm's lifecycle events as the onboarding API streams them (`GET /v1/events`),
 * one line each (or one JSON object per line with `-o jsonl`), followed across restarts of the API.
 * It reads the API with an API key of the firm (--api-url, --api-key or ECA_API_URL, ECA_API_KEY).
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import type { FollowedEvent } from '../event-stream.js';
import { apiCallOf } from './api-options.js';
import { CliError } from './errors.js';
import { examples, integerOption } from './options.js';
import type { GlobalOptions } from './options.js';
import { out } from './output.js';

const eventStream = () => import('../event-stream.js');

interface TailOptions {
  apiUrl?: string;
  apiKey?: string;
  after: string;
  application?: string;
  count?: number;
}

/** One event on one line: when, which application, what, and what the brokerage or the engine said. */
export function eventLine({ event }: FollowedEvent): string {
  const { data } = event;
  const details = [
    event.accountId && `account ${event.accountId}`,
    event.from !== event.to && `${event.from} → ${event.to}`,
    data.tasks?.length && `tasks ${data.tasks.join(', ')}`,
    data.formNumber && `form ${data.formNumber}`,
    data.action && `action ${data.action}`,
    data.status && `status ${data.status}`,
    data.deadline && `${data.deadline.state} due ${data.deadline.due}`,
    data.reason && `"${data.reason}"`,
    data.errors?.length && data.errors.join('; '),
  ].filter(Boolean);
  return `${event.at}  ${event.externalId}  ${event.type.replace(/^application\./, '')}  ${details.join('  ')}`;
}

async function tail(_options: TailOptions, command: Command): Promise<void> {
  const options = command.optsWithGlobals<GlobalOptions & TailOptions & { apiUrl: string; apiKey: string }>();
  const { output } = options;
  // Checks the API, the key and the cursor once, as the other commands through the API do: a refusal or
  // an API that cannot be reached ends the command at once. Once it streams, it follows across restarts.
  await apiCallOf(command)('GET', `/v1/events?limit=1&after=${encodeURIComponent(options.after)}`);
  const { followEvents, EventStreamRefused } = await eventStream();
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  let seen = 0;
  try {
    for await (const followed of followEvents({
      url: options.apiUrl,
      apiKey: options.apiKey,
      after: options.after,
      externalId: options.application,
      signal: stop.signal,
      onReconnect: (reason, attempt) => {
        if (output === 'text') process.stderr.write(`(reconnecting after: ${reason}; attempt ${attempt})\n`);
      },
    })) {
      out(output === 'json' ? 'jsonl' : output, followed, () => eventLine(followed));
      if (options.count !== undefined && ++seen >= options.count) break;
    }
  } catch (error) {
    // A key refused is configuration, as for the other commands that call the API (client/cli/api-options.ts).
    if (error instanceof EventStreamRefused) {
      throw new CliError(error.status === 400 ? 'FAILED' : 'CONFIGURATION', error.message);
    }
    throw error;
  }
}

export function addEventCommands(program: Command): void {
  const group = program
    .command('events')
    .description("the firm's lifecycle events, from the onboarding API: tail")
    .addOption(new Option('--api-url <url>', 'the onboarding API, e.g. http://127.0.0.1:8080').env('ECA_API_URL'))
    .addOption(new Option('--api-key <key>', 'an API key of the firm (any role)').env('ECA_API_KEY'));
  const tailing = group
    .command('tail')
    .description('print events as they happen, resuming after the last one across restarts (Ctrl-C ends)')
    .option('--after <cursor>', 'start after a cursor (an event id printed with -o jsonl), or: start, now', 'now')
    .option('--application <external-id>', "one application's events only")
    .option('--count <n>', 'stop after n events', integerOption(1, 1_000_000_000))
    .action(tail);
  examples(tailing, [
    ['events tail', 'what happens from now on'],
    ['events tail --after start -o jsonl', 'every event the log holds, one JSON object per line with its cursor'],
    ['events tail --application client-42', 'one application'],
  ]);
  examples(group, [['events tail --api-url http://127.0.0.1:8080 --api-key "$KEY"', "follow the firm's events"]]);
}

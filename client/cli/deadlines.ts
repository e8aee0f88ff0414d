/**
 * `deadlines`: the firm's deadline policy, through the onboarding API (`/v1/deadlines`) with an API key
 * of the firm: show it, set it from a JSON file, clear it (back to the defaults). Waiting applications
 * read the policy again at their next reminder and at least daily.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { DeadlinePolicy, DeadlineState, StateDeadline } from '../../domain/deadlines.js';
import { InvalidInputError } from '../errors.js';
import { addApiOptions, apiCallOf } from './api-options.js';
import { examples, globalOptions } from './options.js';
import { out, table } from './output.js';

/** What the API answers (api/deadlines.ts). */
export interface DeadlinePolicyView {
  policy: DeadlinePolicy;
  effective: Record<DeadlineState, StateDeadline | null>;
  defaults: Record<DeadlineState, StateDeadline | null>;
}

export function policyTable(view: DeadlinePolicyView): string {
  const rows = (Object.entries(view.effective) as Array<[DeadlineState, StateDeadline | null]>).map(
    ([state, deadline]) => [
      state,
      deadline?.deadline ?? 'none',
      deadline?.reminders.join(', ') || '-',
      deadline?.businessDays ? 'yes' : '-',
      deadline?.escalation ?? '-',
      state in view.policy ? 'firm' : 'default',
    ],
  );
  return [
    table(['STATE', 'DEADLINE', 'REMINDERS', 'BUSINESS DAYS', 'ESCALATION', 'SET BY'], rows),
    '',
    'Waiting applications read the policy again at their next reminder and at least daily.',
  ].join('\n');
}

/**
 * The policy in a file: a DeadlinePolicy, or what `deadlines show -o json` printed (its `policy` is
 * taken), so that a policy can be read, edited and set again.
 */
async function policyFile(file: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new InvalidInputError(
      '<file>',
      `cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new InvalidInputError('<file>', `${file} is not JSON: ${(error as Error).message}`);
  }
  const shown =
    typeof parsed === 'object' &&
    parsed !== null &&
    'policy' in parsed &&
    Object.keys(parsed).every((key) => ['policy', 'effective', 'defaults'].includes(key));
  return shown ? (parsed as { policy: unknown }).policy : parsed;
}

async function show(_options: unknown, command: Command): Promise<void> {
  const view = await apiCallOf(command)<DeadlinePolicyView>('GET', '/v1/deadlines');
  out(globalOptions(command).output, view, () => policyTable(view));
}

async function set(file: string, _options: unknown, command: Command): Promise<void> {
  const call = apiCallOf(command);
  const view = await call<DeadlinePolicyView>('PUT', '/v1/deadlines', { policy: await policyFile(file) });
  out(globalOptions(command).output, view, () => `deadline policy set from ${file}\n\n${policyTable(view)}`);
}

async function clear(_options: unknown, command: Command): Promise<void> {
  const view = await apiCallOf(command)<DeadlinePolicyView>('DELETE', '/v1/deadlines');
  out(
    globalOptions(command).output,
    view,
    () => `the firm's policy is cleared: the defaults apply\n\n${policyTable(view)}`,
  );
}

export function addDeadlineCommands(program: Command): void {
  const group = addApiOptions(
    program
      .command('deadlines')
      .description(
        "the firm's deadlines, reminders and escalations per waiting state, through the onboarding API: show, set, clear",
      ),
    'any role reads; changes take a staff key',
  );
  examples(
    group.command('show').description('the policy applications follow, and where each entry comes from').action(show),
    [
      ['deadlines show', 'a table per waiting state: firm entries and defaults'],
      ['deadlines show -o json > policy.json', 'the policy as JSON, to edit and set again'],
    ],
  );
  examples(
    group
      .command('set')
      .description('replace the firm’s policy with a JSON file: by state, a deadline or null for none')
      .argument(
        '<file>',
        'a JSON policy, e.g. {"needsDocuments": {"deadline": "20d", "reminders": ["7d", "14d"], "escalation": "alert"}}',
      )
      .action(set),
    [['deadlines set policy.json', 'states left out keep the defaults; every problem of the file is named']],
  );
  examples(group, [
    ['deadlines show --api-key "$OPS_KEY"', 'what applications follow'],
    ['deadlines set policy.json --api-key "$STAFF_KEY"', 'change it (a staff key)'],
  ]);
  examples(group.command('clear').description('remove the firm’s policy: the defaults apply again').action(clear), [
    ['deadlines clear', 'back to the defaults'],
  ]);
}

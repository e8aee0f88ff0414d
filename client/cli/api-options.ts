/**
 * Commands that go through the onboarding API (webhooks, deadlines): the API and an API key of the
 * firm (--api-url, --api-key or ECA_API_URL, ECA_API_KEY), and their calls, whose refusals become the
 * CLI's errors (client/cli/errors.ts maps the problem's code to an exit code).
 */
import { Option } from 'commander';
import type { Command } from 'commander';
import { callApi, OnboardingApiError } from '../api-http.js';
import { InvalidInputError } from '../errors.js';

/** --api-url and --api-key on a group of commands; `role` says which key its writes need. */
export function addApiOptions(group: Command, role: string): Command {
  return group
    .addOption(new Option('--api-url <url>', 'the onboarding API, e.g. http://127.0.0.1:8080').env('ECA_API_URL'))
    .addOption(new Option('--api-key <key>', `an API key of the firm (${role})`).env('ECA_API_KEY'));
}

/** Says what to do about a refused key: the API's detail alone names no option. */
function withHint(error: OnboardingApiError): OnboardingApiError {
  const hint = (text: string) => new OnboardingApiError(error.status, error.code, text, error.field);
  if (error.code === 'UNAUTHENTICATED') return hint(`${error.detail} (give a valid --api-key or ECA_API_KEY)`);
  if (error.code === 'FORBIDDEN') return hint(`${error.detail}: give a key of one of those roles`);
  return error;
}

export type ApiCall = <T>(method: string, path: string, body?: unknown) => Promise<T>;

/** The call of a command on the API its options name. */
export function apiCallOf(command: Command): ApiCall {
  const options = command.optsWithGlobals<{ apiUrl?: string; apiKey?: string }>();
  const { apiUrl: url, apiKey } = options;
  if (!url) throw new InvalidInputError('--api-url', 'give the onboarding API (--api-url or ECA_API_URL)');
  if (!apiKey) throw new InvalidInputError('--api-key', 'give an API key of the firm (--api-key or ECA_API_KEY)');
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    try {
      return await callApi<T>({ url, apiKey }, method, path, body);
    } catch (error) {
      throw error instanceof OnboardingApiError ? withHint(error) : error;
    }
  };
}

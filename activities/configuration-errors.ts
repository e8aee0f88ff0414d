/**
 * Configuration errors: the worker's keys or its document store are wrong (a wrong passphrase, a
 * missing key, a store directory the clients do not share). Retrying a step cannot fix them; fixing
 * the configuration does. So the activities fail *retryably*, with an alert on every attempt (an error
 * in the worker's log and `eca_configuration_errors{kind}`), and every application in flight goes on
 * by itself once the configuration is fixed, instead of failing for good.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { EcaCryptoError } from '../eca/index.js';
import { DocumentNotFound, DocumentUndecryptable } from './document-store.js';

export type ConfigurationErrorKind = 'keys' | 'document-store';

/** Called on every attempt that meets a configuration error (the worker counts them in a metric). */
export type ConfigurationAlert = (kind: ConfigurationErrorKind, error: Error) => void;

export function configurationErrorKind(error: unknown): ConfigurationErrorKind | undefined {
  if (error instanceof EcaCryptoError) return 'keys';
  if (error instanceof DocumentNotFound || error instanceof DocumentUndecryptable) return 'document-store';
  return undefined;
}

function logAlert(kind: ConfigurationErrorKind, error: Error): void {
  try {
    Context.current().log.error(`configuration error (${kind}): ${error.message}`, { kind });
  } catch {
    // Outside an activity (tests of the plain functions): the failure itself says it.
  }
}

/**
 * The activities with configuration errors turned into retryable failures that say what to fix, each
 * attempt alerted; every other error passes unchanged.
 */
export function withConfigurationAlerts<T extends Record<string, unknown>>(
  activities: T,
  alert?: ConfigurationAlert,
): T {
  const wrapped: Record<string, unknown> = {};
  for (const [name, activity] of Object.entries(activities)) {
    if (typeof activity !== 'function') {
      wrapped[name] = activity;
      continue;
    }
    wrapped[name] = async (...args: unknown[]): Promise<unknown> => {
      try {
        return await (activity as (...values: unknown[]) => Promise<unknown>)(...args);
      } catch (error) {
        const kind = configurationErrorKind(error);
        if (!kind) throw error;
        logAlert(kind, error as Error);
        alert?.(kind, error as Error);
        throw ApplicationFailure.create({
          type: (error as Error).name,
          message: `configuration error (${kind}): ${(error as Error).message}; fix the worker's configuration, the step is retried`,
          nonRetryable: false,
        });
      }
    };
  }
  return wrapped as T;
}

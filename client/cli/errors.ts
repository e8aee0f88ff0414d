/**
 * What a failed command tells the person at the terminal (or the script reading `-o json`), and the
 * exit code it ends with: one per class of error (exit-codes.ts).
 */
import { CommanderError } from 'commander';
import { BrokerageError } from '../../domain/brokerage-errors.js';
import { DatabaseError } from '../../runtime/database/errors.js';
import { brokerageErrorCode, EngineError, InvalidScheduleOptions, isFirmError } from '../errors.js';
import { OnboardingApiError } from '../api-http.js';
import { paint } from './color.js';
import { apiErrorCode, exitCodeOf } from './exit-codes.js';
import type { CliErrorCode, ErrorCode } from './exit-codes.js';

/** A failure only the command line knows: a wait past its timeout, an action not confirmed. */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    readonly code: CliErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const CONFIGURATION_ERRORS = ['EcaConfigurationError', 'EcaCodecConfigurationError'];

/** The class of `error`, as its exit code names it. */
export function errorCode(error: unknown): ErrorCode {
  if (error instanceof CliError) return error.code;
  if (error instanceof EngineError || isFirmError(error)) return error.code;
  if (error instanceof OnboardingApiError) return apiErrorCode(error.code);
  if (error instanceof BrokerageError) return brokerageErrorCode(error);
  if (error instanceof InvalidScheduleOptions) return 'INVALID_INPUT';
  // A database URL that names no backend is configuration; anything else is a failure to reach or migrate it.
  if (error instanceof DatabaseError) return error.problem === 'url' ? 'CONFIGURATION' : 'FAILED';
  if (error instanceof CommanderError) return 'USAGE';
  if (error instanceof Error && CONFIGURATION_ERRORS.includes(error.name)) return 'CONFIGURATION';
  return 'FAILED';
}

/** One line for the person at the terminal; the stack only with ECA_DEBUG=1. */
export function describeError(error: unknown): string {
  const code = errorCode(error);
  if (code !== 'FAILED' || !(error instanceof Error)) return error instanceof Error ? error.message : String(error);
  return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
}

/**
 * `text` as one line that is safe at a terminal: control characters (a line break, an escape sequence
 * in a file name or an argument) are written as escapes, `\n` or `\u001b`.
 */
export function oneLine(text: string): string {
  const named: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };
  // eslint-disable-next-line no-control-regex -- control characters are what is escaped
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => {
    return named[char] ?? `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;
  });
}

/** How the failure is written: a line of text, or a JSON object for `-o json|jsonl`. */
export interface ErrorReport {
  json: boolean;
  /** What commander wrote about a usage error, kept back in JSON mode to be part of the object. */
  usage?: string;
}

/** Reports `error` on stderr and gives the exit code. In text mode commander has printed its own usage errors already. */
export function reportError(error: unknown, report: ErrorReport = { json: false }): number {
  if (error instanceof CommanderError && error.exitCode === 0) return 0;
  const code = errorCode(error);
  const exitCode = exitCodeOf(code);
  if (report.json) {
    const message =
      error instanceof CommanderError
        ? (report.usage ?? error.message).trim().replace(/^error: /, '')
        : describeError(error);
    process.stderr.write(`${JSON.stringify({ error: { code, exitCode, message } })}\n`);
  } else if (!(error instanceof CommanderError)) {
    process.stderr.write(`${paint('red', 'eca:', process.stderr)} ${oneLine(describeError(error))}\n`);
  }
  if (process.env.ECA_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return exitCode;
}

/** A batch or a decision that failed in part ends the process with the FAILED code, after its output. */
export function failLater(): void {
  process.exitCode = exitCodeOf('FAILED');
}

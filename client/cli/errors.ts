/** What a failed command tells the person at the terminal, and the exit code it ends with. */
import { CommanderError } from 'commander';
import { EcaError } from '../../eca/errors.js';
import { EngineError, InvalidScheduleOptions } from '../errors.js';

/** Exit codes: 1 when the command failed, 2 when commander refused the command line itself. */
const EXIT_FAILED = 1;
const EXIT_USAGE = 2;

/** One line for the person at the terminal; the stack only with ECA_DEBUG=1. */
export function describeError(error: unknown): string {
  if (error instanceof EngineError || error instanceof EcaError || error instanceof InvalidScheduleOptions) {
    return error.message;
  }
  if (error instanceof Error && ['EcaConfigurationError', 'EcaCodecConfigurationError'].includes(error.name)) {
    return error.message;
  }
  if (error instanceof Error) return `${error.name === 'Error' ? '' : `${error.name}: `}${error.message}`;
  return String(error);
}

/** Reports `error` on stderr (commander has printed its own already) and gives the exit code. */
export function reportError(error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : EXIT_USAGE;
  process.stderr.write(`eca: ${describeError(error)}\n`);
  if (process.env.ECA_DEBUG && error instanceof Error) process.stderr.write(`${error.stack}\n`);
  return EXIT_FAILED;
}

/** A batch or a decision that failed in part ends the process with EXIT_FAILED, after its output. */
export function failLater(): void {
  process.exitCode = EXIT_FAILED;
}

/**
 * The exit code of every kind of failure, one per error class: scripts branch on the code, people read
 * the message. The table in docs/cli.md is generated from this one (`npm run docs:cli`), and a test fails
 * when the two differ.
 */
import type { EngineErrorCode } from '../errors.js';

/** Failures the command line itself knows about, besides the client API's and the eca library's. */
export type CliErrorCode = 'FAILED' | 'USAGE' | 'CONFIGURATION' | 'TIMEOUT' | 'NOT_CONFIRMED' | 'NOT_FOUND';

export type ErrorCode = CliErrorCode | EngineErrorCode;

export interface ExitCode {
  exitCode: number;
  code: ErrorCode | 'OK';
  when: string;
}

/** Every engine error code must have a row here: a code added to `EngineErrorCode` fails the typecheck. */
const ENGINE: Record<EngineErrorCode, Omit<ExitCode, 'code'>> = {
  INVALID_INPUT: { exitCode: 3, when: 'an input is wrong: a file, an XML, a PDF, an option value the engine checks' },
  UNKNOWN_APPLICATION: { exitCode: 4, when: 'no application (or workflow) by that reference' },
  NOT_ALLOWED_IN_STATE: { exitCode: 5, when: 'the application refused the action in its current state' },
  APPLICATION_FINISHED: { exitCode: 6, when: 'the application has finished and takes no more messages' },
  TEMPORAL_UNAVAILABLE: { exitCode: 7, when: 'Temporal cannot be reached' },
  BROKERAGE_REFUSED: { exitCode: 8, when: 'the brokerage refused or failed a call (the eca library, too)' },
  SETUP_FAILED: { exitCode: 9, when: '`setup` could not register the namespace or search attributes' },
  NO_CREDENTIALS: { exitCode: 10, when: 'no temporary password to hand out (none issued, or handed out already)' },
  CONFLICT: { exitCode: 14, when: 'the external id is taken by an application on another application XML' },
  FIRM_NOT_CONFIGURED: { exitCode: 16, when: 'no firm of that CSID is configured (or its keys are not held here)' },
  FIRM_DISABLED: { exitCode: 17, when: 'the firm is disabled: it takes no new work' },
  DOCUMENT_REJECTED: {
    exitCode: 18,
    when: 'a PDF is the very file the brokerage rejected for its form (send a different one)',
  },
};

export const EXIT_CODES: readonly ExitCode[] = [
  { exitCode: 0, code: 'OK', when: 'done' },
  { exitCode: 1, code: 'FAILED', when: 'part of a batch failed, a request was rejected, or an unexpected error' },
  { exitCode: 2, code: 'USAGE', when: 'the command line is wrong: unknown command or option, bad option value' },
  ...Object.entries(ENGINE).map(([code, row]) => ({ ...row, code: code as EngineErrorCode })),
  { exitCode: 11, code: 'CONFIGURATION', when: 'the configuration is wrong: keys, codec keys, environment' },
  { exitCode: 12, code: 'TIMEOUT', when: 'a wait ran past its --timeout (what was asked may still happen)' },
  { exitCode: 13, code: 'NOT_CONFIRMED', when: 'a destructive action was not confirmed (answer y, or give --yes)' },
  {
    exitCode: 15,
    code: 'NOT_FOUND',
    when: 'the onboarding API has no such resource for the firm (a webhook endpoint id)',
  },
];

/** The exit code of an error code. */
export function exitCodeOf(code: ErrorCode): number {
  return EXIT_CODES.find((row) => row.code === code)?.exitCode ?? 1;
}

/**
 * The onboarding API's problem codes (api/problems.ts): its engine codes are the client's own; a key it
 * refuses is configuration; what it cannot do now (rate limit, unavailable) is a failure to try again.
 */
export function apiErrorCode(code: string): ErrorCode {
  if (code in ENGINE) return code as EngineErrorCode;
  if (code === 'NOT_FOUND' || code === 'TIMEOUT') return code;
  if (code === 'UNAUTHENTICATED' || code === 'FORBIDDEN') return 'CONFIGURATION';
  return 'FAILED';
}

/**
 * Errors of the client API. Each says what is wrong and what to do; the CLI prints the message
 * alone on one line.
 */
import { durationMs } from '../domain/durations.js';
import type { BrokerageError } from '../domain/brokerage-errors.js';
import type { Duration } from '@temporalio/common';
import type { RejectedFile } from '../workflows/application/messages.js';

export type EngineErrorCode =
  | 'INVALID_INPUT'
  | 'UNKNOWN_APPLICATION'
  | 'NOT_ALLOWED_IN_STATE'
  | 'DOCUMENT_REJECTED'
  | 'APPLICATION_FINISHED'
  | 'TEMPORAL_UNAVAILABLE'
  | 'BROKERAGE_REFUSED'
  | 'SETUP_FAILED'
  | 'NO_CREDENTIALS'
  | 'CONFLICT'
  | 'FIRM_NOT_CONFIGURED'
  | 'FIRM_DISABLED';

export { FirmDisabledError, FirmInputError, FirmNotConfiguredError, isFirmError } from '../runtime/firm-errors.js';

/** A brokerage call's failure, on either protocol: input refused before sending, or the brokerage's (or its transport's). */
export function brokerageErrorCode(error: BrokerageError): EngineErrorCode {
  return error.kind === 'invalid-request' ? 'INVALID_INPUT' : 'BROKERAGE_REFUSED';
}

export class EngineError extends Error {
  override readonly name: string = 'EngineError';
  constructor(
    readonly code: EngineErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export class InvalidInputError extends EngineError {
  override readonly name = 'InvalidInputError';
  constructor(
    readonly input: string,
    message: string,
  ) {
    super('INVALID_INPUT', `${input}: ${message}`);
  }
}

export class UnknownApplicationError extends EngineError {
  override readonly name = 'UnknownApplicationError';
  constructor(readonly application: string) {
    super(
      'UNKNOWN_APPLICATION',
      `no application "${application}" (give its external id, account id or workflow id; \`list\` shows them)`,
    );
  }
}

export class NotAllowedInStateError extends EngineError {
  override readonly name = 'NotAllowedInStateError';
  constructor(message: string) {
    super('NOT_ALLOWED_IN_STATE', `${message} (\`status\` shows what the application waits for)`);
  }
}

/**
 * A provided PDF is the very file the brokerage rejected for its form (the one last sent for it): sent
 * again, it would be rejected again. Nothing was taken; the application still asks for the form.
 */
export class DocumentRejectedError extends EngineError {
  override readonly name = 'DocumentRejectedError';
  /**
   * `forms`: each refused form, its name and the brokerage's reason; `message`: the workflow's own words,
   * said where it named no form.
   */
  constructor(
    readonly forms: readonly RejectedFile[],
    message: string,
  ) {
    const named = forms.map(({ formNumber, formName, reason }) => {
      return `form ${formNumber} (${formName})${reason === undefined ? '' : `: "${reason}"`}`;
    });
    const one = named.length === 1;
    super(
      'DOCUMENT_REJECTED',
      named.length === 0
        ? message
        : `the brokerage rejected ${one ? 'this very PDF' : 'these very PDFs'} for ${named.join('; ')}; ` +
            `provide ${one ? 'a different one' : 'different ones'} (\`status\` shows what the application waits for)`,
    );
  }
}

export class ApplicationFinishedError extends EngineError {
  override readonly name = 'ApplicationFinishedError';
  constructor(readonly application: string) {
    super('APPLICATION_FINISHED', `application ${application} has finished: it takes no more messages`);
  }
}

/** An application runs under this external id on another application XML: the new one was not taken. */
export class ApplicationConflictError extends EngineError {
  override readonly name = 'ApplicationConflictError';
  constructor(
    readonly externalId: string,
    readonly workflowId: string,
  ) {
    super(
      'CONFLICT',
      `external id "${externalId}" is taken by an application on another XML (${workflowId}); ` +
        'send the same file to reach it, `resubmit` to replace its XML, or use another external id',
    );
  }
}

export class TemporalUnavailableError extends EngineError {
  override readonly name = 'TemporalUnavailableError';
  constructor(address: string, cause?: unknown) {
    super('TEMPORAL_UNAVAILABLE', `cannot reach Temporal at ${address} (is the server running? set TEMPORAL_ADDRESS)`, {
      cause,
    });
  }
}

/**
 * A positive duration (`2 seconds`, `30d`, `720h`, or milliseconds) as milliseconds; anything else is
 * refused with an InvalidInputError naming `input` and an example of what it takes.
 */
export function parseDurationMs(value: string | number, input: string, example: string): number {
  let ms: number;
  try {
    ms = typeof value === 'number' ? value : durationMs(value.trim() as Duration);
  } catch {
    ms = Number.NaN;
  }
  if (!Number.isFinite(ms) || ms <= 0) {
    throw new InvalidInputError(input, `"${String(value)}" is not a duration such as ${example}`);
  }
  return ms;
}

/** The options cannot make a schedule; nothing was created or changed. */
export class InvalidScheduleOptions extends Error {
  override readonly name = 'InvalidScheduleOptions';
}

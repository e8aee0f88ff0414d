/**
 * Why a firm cannot work, thrown wherever a firm is looked up (runtime/firms.ts): the API answers them as
 * problems of the same codes, the CLI exits with their codes, and an application's step stops in `blocked`
 * on FirmDisabledError (activities/configuration-errors.ts).
 */

/** The engine holds no firm of this CSID, or this process cannot open its keys. */
export class FirmNotConfiguredError extends Error {
  override readonly name = 'FirmNotConfiguredError';
  readonly code = 'FIRM_NOT_CONFIGURED';
  constructor(
    readonly csid: string,
    why = 'no firm of that CSID is configured (eca firms list shows them; eca firms add adds one)',
  ) {
    super(`firm ${csid}: ${why}`);
  }
}

/** The firm is disabled: it takes no new work, and its running applications stop in `blocked`. */
export class FirmDisabledError extends Error {
  override readonly name = 'FirmDisabledError';
  readonly code = 'FIRM_DISABLED';
  constructor(
    readonly csid: string,
    readonly reason: string,
  ) {
    super(`firm ${csid} is disabled (${reason}); eca firms enable ${csid} lets it work again`);
  }
}

/** An input that cannot make or change a firm; `field` names it (`csid`, `name`, `settings.baseUrl`, `keys`…). */
export class FirmInputError extends Error {
  override readonly name = 'FirmInputError';
  readonly code = 'INVALID_INPUT';
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`${field}: ${reason}`);
  }
}

/**
 * The firm could not be read (the engine's database did not answer): nothing was sent on its behalf, and
 * the call may be made again.
 */
export class FirmLookupError extends Error {
  override readonly name = 'FirmLookupError';
  constructor(
    readonly csid: string,
    cause: unknown,
  ) {
    super(`firm ${csid} could not be read: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

export type FirmError = FirmNotConfiguredError | FirmDisabledError | FirmInputError;

export function isFirmError(error: unknown): error is FirmError {
  return (
    error instanceof FirmNotConfiguredError || error instanceof FirmDisabledError || error instanceof FirmInputError
  );
}

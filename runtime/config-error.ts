import { CONFIGURATION_ERROR } from '../domain/error-types.js';

/** A configuration value is missing or wrong; the message names the variable or file. */
export class ConfigurationError extends Error {
  override readonly name = CONFIGURATION_ERROR;
}

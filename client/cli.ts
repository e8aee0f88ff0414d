/** The `eca` command line, kept importable here for the scripts that print its tables; it lives in cli/. */
export { buildProgram, main } from './cli/index.js';
export { describeError } from './cli/errors.js';
export { insideFolder, parseDocumentArgument } from './cli/documents.js';
export { integerOption, secondsOption } from './cli/options.js';
export { table } from './cli/output.js';

/**
 * Failure messages and stack traces can quote data (an error text naming a value): this converter
 * moves them into a payload (`encodedAttributes`) that the payload codec encrypts, leaving "Encoded
 * failure" as the plaintext message. Loaded by path (`failureConverterPath`): the workflow bundle and
 * the worker both need it. Failure types, and the details of `ApplicationFailure`s, which are payloads
 * already, are the SDK's to keep readable.
 */
import { DefaultFailureConverter } from '@temporalio/common';

export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });

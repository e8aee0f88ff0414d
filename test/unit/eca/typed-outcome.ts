/** For the eca fuzz tests: a call's outcome, within a bound, as a value or one of the library's typed errors. */
import assert from 'node:assert/strict';
import { EcaError } from '../../../eca/index.js';

/** How long a fuzzed call may take before it counts as a hang. */
export const ANSWER_WITHIN_MS = 10_000;

/** The call ended in time, and either answered or failed with one of the library's errors. */
export async function outcome<T>(call: Promise<T>): Promise<{ value: T } | { error: EcaError }> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no outcome within ${ANSWER_WITHIN_MS} ms`)), ANSWER_WITHIN_MS);
  });
  try {
    return { value: await Promise.race([call, hang]) };
  } catch (error) {
    if (error instanceof EcaError) return { error };
    assert.fail(`not a typed error of the library: ${error instanceof Error ? error.stack : String(error)}`);
  } finally {
    clearTimeout(timer);
  }
}

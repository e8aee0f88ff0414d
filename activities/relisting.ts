/**
 * An attempt whose answer was lost may still have written at the brokerage: the next attempt looks for
 * that write before writing again. The spec promises no delay after which a write is listed, so a look
 * that finds nothing is made again after short waits.
 */

/** Waits between looks for an earlier attempt's write before sending again. */
export const RELISTING_DELAYS_MS: readonly number[] = [5_000, 15_000];

/** What `look` finds at once or after one of the `delays`; undefined when every look found nothing. */
export async function lookAgain<T>(
  look: () => Promise<T | undefined>,
  delays: readonly number[],
): Promise<T | undefined> {
  for (let index = 0; ; index++) {
    const found = await look();
    if (found !== undefined) return found;
    const delay = delays[index];
    if (delay === undefined) return undefined;
    await new Promise((resolve) => setTimeout(resolve, delay));
  }
}

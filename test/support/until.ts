/** Waiting in tests for something that happens on its own: bounded, with what was awaited in the error. */

/** The first value `probe` answers that is neither undefined nor false, asked every 50 ms for `ms` at most. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  ms = 60_000,
): Promise<T> {
  const giveUpAt = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > giveUpAt) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

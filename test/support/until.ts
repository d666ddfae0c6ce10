/**
 * Waits until `probe` gives a truthy value (sync or async), polling every
 * 10 ms, and returns it; past `timeoutMs` it throws naming `what` was awaited.
 * For conditions reached by other processes or timers, where no event says so.
 */
export async function until<T>(what: string, probe: () => T | null | undefined | false | Promise<T | null | undefined | false>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

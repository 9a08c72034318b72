/**
 * Waiting in tests for a state, never for a time: polls `fn` until it returns something truthy
 * (returned) or the generous deadline passes (an error naming what was awaited). On this shared
 * 2-core machine a fixed sleep is either too short under load or wastes time when quiet.
 */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 60_000, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

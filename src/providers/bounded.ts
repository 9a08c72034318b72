/**
 * Bounds for what a vendor streams at us (issue 27): a body is read in pieces up to a byte cap,
 * and a loop that handles a stream gives the event loop back every few milliseconds, so one
 * stream sent at network speed can neither fill the memory nor stall the other calls.
 */

/** Longest stretch one stream's loop may hold the event loop before it yields (ms). */
export const YIELD_AFTER_MS = 4;

/**
 * A checkpoint for a stream's loop: `await pace()` costs nothing until `YIELD_AFTER_MS` of work
 * have passed since the last yield, then waits for one turn of the event loop (setImmediate),
 * so timers, I/O and other calls' frames run between the pieces of a flood.
 */
export function pacer(budgetMs = YIELD_AFTER_MS): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    const now = performance.now();
    if (now - since < budgetMs) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/**
 * Backpressure for a stream read faster than any vendor honestly sends: `await throttle(n)`
 * after taking `n` bytes waits until the stream's average rate is back under `bytesPerSecond`
 * (after a first `burstBytes`). While the reader waits nothing is read, so the socket's buffers
 * fill and TCP slows the sender down: a flood costs this process a bounded share of the CPU.
 */
export function throttle(bytesPerSecond: number, burstBytes = bytesPerSecond / 4): (bytes: number) => Promise<void> | undefined {
  const started = performance.now();
  let taken = 0;
  return (bytes) => {
    taken += bytes;
    if (taken <= burstBytes) return undefined;
    const dueMs = ((taken - burstBytes) / bytesPerSecond) * 1000 - (performance.now() - started);
    if (dueMs < 1) return undefined;
    return new Promise<void>((resolve) => setTimeout(resolve, dueMs));
  };
}

export class BodyTooLargeError extends Error {
  constructor(readonly what: string, readonly maxBytes: number) {
    super(`${what} exceeded ${maxBytes.toLocaleString('en-US')} bytes`);
  }
}

/**
 * The body of `res` as text, read piece by piece: more than `maxBytes` cancels the read and
 * throws BodyTooLargeError (or, with `truncate`, returns the first `maxBytes`).
 */
export async function readBodyText(res: Response, maxBytes: number, what: string, truncate = false): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const pace = pacer();
  let size = 0;
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > maxBytes) {
        if (!truncate) throw new BodyTooLargeError(what, maxBytes);
        text += decoder.decode(value.subarray(0, maxBytes - size));
        return text;
      }
      size += value.length;
      text += decoder.decode(value, { stream: true });
      await pace();
    }
    return text + decoder.decode();
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/** `readBodyText` parsed as JSON; null when it is not JSON. */
export async function readBodyJson(res: Response, maxBytes: number, what: string): Promise<unknown> {
  const text = await readBodyText(res, maxBytes, what);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/**
 * Largest WebSocket message a vendor may send (ws accepts 100 MiB by default; a bigger one
 * closes the socket with 1009 and is reported as the connection's failure). Transcripts are a
 * few KiB; an audio message is seconds of base64 PCM with its alignment (≤ 1 MiB at 48 kHz).
 */
export const WS_MAX_MESSAGE_BYTES = { transcripts: 1024 * 1024, audio: 8 * 1024 * 1024 } as const;

/**
 * The most audio a speech vendor may send for `chars` characters of text: 30 s plus 250 ms a
 * character (speech takes ~70 ms a character). Past it the stream is endless, not slow speech.
 */
export function audioBudgetMs(chars: number): number {
  return 30_000 + 250 * chars;
}

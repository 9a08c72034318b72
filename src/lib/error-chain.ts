/** Looking through an error to what caused it: drivers and ORMs wrap the socket's or server's error. */

export interface ErrorLike {
  code?: unknown;
  message?: unknown;
}

/** Whether `test` holds for `err` or anything that caused it (`cause`, an AggregateError's `errors`), ten errors at most. */
export function anyCause(err: unknown, test: (e: ErrorLike) => boolean): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 10) {
    const e = queue.shift() as (ErrorLike & { cause?: unknown; errors?: unknown }) | null | undefined;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (test(e)) return true;
    if (e.cause) queue.push(e.cause);
    // A connection refused on every address of a host name (AggregateError).
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return false;
}

/**
 * Telling "the database cannot be reached right now" (stopped, restarting, connection lost:
 * it comes back by itself) from a statement that failed. The first is answered 503 and logged
 * at warn level, throttled, by the loops that meet it; only the second is an error.
 */
import type { Logger } from 'pino';
import { anyCause } from '../lib/error-chain.js';

/**
 * Node's socket errors on the way to the server; EMFILE/ENFILE too: no descriptor for a new
 * connection right now (src/lib/descriptors.ts) passes like an outage, so loops retry.
 */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EMFILE', 'ENFILE']);
/** SQLSTATEs of a server going away or not yet there: admin/crash shutdown, cannot connect now. */
const SERVER_GONE = new Set(['57P01', '57P02', '57P03']);
/** node-postgres' own messages when its connection is gone or cannot be had. */
const DRIVER_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
  'Cannot use a pool after calling end on the pool',
];

export function isDatabaseUnavailable(err: unknown): boolean {
  return anyCause(err, (e) => {
    if (typeof e.code === 'string' && (SOCKET_CODES.has(e.code) || SERVER_GONE.has(e.code) || e.code.startsWith('08'))) return true;
    return typeof e.message === 'string' && DRIVER_MESSAGES.some((m) => (e.message as string).includes(m));
  });
}

/**
 * The pool was ended: this process is stopping, the database is not coming back for it. Still
 * "unavailable" to a request (503), but a loop that retries until the database is back must give
 * up on it rather than wait forever (and keep a stopped process or test alive).
 */
export function isPoolClosed(err: unknown): boolean {
  return anyCause(err, (e) => typeof e.message === 'string' && e.message.includes('Cannot use a pool after calling end on the pool'));
}

/** How often one loop repeats its "database unavailable" warning while the outage lasts. */
const UNAVAILABLE_WARN_EVERY_MS = 30_000;

/**
 * The failure logger of a loop that runs on its own (a sweep, a heartbeat, a queue worker):
 * an unreachable database is a warning, once per 30 s per loop (with how many were skipped),
 * not an error line per round; any other failure is an error, every time.
 */
export function loopFailureLogger(log: Logger, what: string): (err: unknown) => void {
  let lastWarn = 0;
  let skipped = 0;
  return (err) => {
    if (!isDatabaseUnavailable(err)) {
      log.error({ err }, what);
      return;
    }
    const now = Date.now();
    if (now - lastWarn < UNAVAILABLE_WARN_EVERY_MS) {
      skipped++;
      return;
    }
    lastWarn = now;
    log.warn({ reason: (err as Error)?.message, repeated: skipped }, `${what}: the database is unavailable; retrying`);
    skipped = 0;
  };
}

/**
 * Runs `fn` again (with backoff up to 5 s) while it fails because the database is unavailable,
 * for at most `maxMs` and never after the pool was ended (the process is stopping); other
 * failures, and the last one, are thrown. For writes that must not be
 * lost to a short outage — a call's final record, written once when the call ends.
 */
export async function retryWhileUnavailable<T>(fn: () => Promise<T>, opts: { log: Logger; what: string; maxMs?: number }): Promise<T> {
  const deadline = Date.now() + (opts.maxMs ?? 120_000);
  let wait = 250;
  let warned = false;
  for (;;) {
    try {
      return await fn();
    } catch (err) {
      if (!isDatabaseUnavailable(err) || isPoolClosed(err) || Date.now() + wait > deadline) throw err;
      if (!warned) opts.log.warn({ reason: (err as Error)?.message }, `${opts.what}: the database is unavailable; trying again until it is back`);
      warned = true;
      await new Promise((r) => setTimeout(r, wait).unref());
      wait = Math.min(wait * 2, 5_000);
    }
  }
}

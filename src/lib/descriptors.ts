/**
 * File descriptors: how many this process may hold, and whether an error says they ran out.
 * Every socket (clients, the database pool, carriers) and every open file is one; at the limit
 * accept(), connect() and open() fail with EMFILE (this process) or ENFILE (the whole system).
 */
import fs from 'node:fs';

/** The soft RLIMIT_NOFILE of this process (Linux: /proc/self/limits), or null when unknown or unlimited. */
export function openFileLimit(): number | null {
  try {
    const m = /^Max open files\s+(\d+|unlimited)\s/m.exec(fs.readFileSync('/proc/self/limits', 'utf8'));
    return m && m[1] !== 'unlimited' ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

const EXHAUSTED = new Set(['EMFILE', 'ENFILE']);

/** Whether `err` (or what caused it: pg and Drizzle wrap the socket's error) is EMFILE or ENFILE. */
export function isOutOfDescriptors(err: unknown): boolean {
  const seen = new Set<unknown>();
  const queue: unknown[] = [err];
  while (queue.length > 0 && seen.size < 10) {
    const e = queue.shift() as { code?: unknown; cause?: unknown; errors?: unknown } | null | undefined;
    if (!e || typeof e !== 'object' || seen.has(e)) continue;
    seen.add(e);
    if (typeof e.code === 'string' && EXHAUSTED.has(e.code)) return true;
    if (e.cause) queue.push(e.cause);
    if (Array.isArray(e.errors)) queue.push(...e.errors);
  }
  return false;
}

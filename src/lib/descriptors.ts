/**
 * File descriptors: how many this process may hold, and whether an error says they ran out.
 * Every socket (clients, the database pool, carriers) and every open file is one; at the limit
 * accept(), connect() and open() fail with EMFILE (this process) or ENFILE (the whole system).
 */
import fs from 'node:fs';
import { anyCause } from './error-chain.js';

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
  return anyCause(err, (e) => typeof e.code === 'string' && EXHAUSTED.has(e.code));
}

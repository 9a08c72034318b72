/**
 * One process per DATA_DIR: the embedded PostgreSQL's data must never be started, stopped or
 * re-initialised by a second `npm start` while the first still serves it.
 *
 * The lock is a file created exclusively (`O_EXCL`) holding the owner's pid and that process's
 * start time (from /proc, where there is one), so a pid reused by an unrelated process after a
 * crash is not mistaken for the owner. A lock whose owner is gone is taken over; a lock whose
 * owner lives is refused with a `DataDirBusyError` naming it. Node has no flock(2); this is the
 * pidfile form of the same rule, and it is only ever decided by the live-process check.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StartupError } from './startup-error.js';

export const LOCK_FILE = 'switchboard.lock';

export class DataDirBusyError extends StartupError {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(`DATA_DIR ${dataDir} is in use by another Switchboard process (pid ${pid}); stop it first or set another DATA_DIR`);
    this.name = 'DataDirBusyError';
  }
}

interface LockContent {
  pid: number;
  /** /proc/<pid>/stat field 22 (clock ticks since boot), or null where there is no /proc. */
  started: string | null;
}

/** When a process started, from /proc; null when unknown (no /proc, or the process is gone). */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): LockContent | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as Partial<LockContent>;
    return typeof parsed.pid === 'number' ? { pid: parsed.pid, started: parsed.started ?? null } : null;
  } catch {
    return null; // unreadable or half-written: no owner can be named
  }
}

/** The live owner of a lock, or null when the lock is stale. */
function liveOwner(lock: LockContent | null): number | null {
  if (!lock || lock.pid === process.pid || !processAlive(lock.pid)) return null;
  if (lock.started !== null) {
    const now = processStartTime(lock.pid);
    if (now !== null && now !== lock.started) return null; // the pid was reused
  }
  return lock.pid;
}

export interface DataDirLock {
  release(): void;
}

/** Takes the lock on `dataDir` or throws DataDirBusyError. */
export function lockDataDir(dataDir: string): DataDirLock {
  const file = path.join(dataDir, LOCK_FILE);
  const mine: LockContent = { pid: process.pid, started: processStartTime(process.pid) };
  for (let attempt = 0; attempt < 5; attempt++) {
    try {
      const fd = fs.openSync(file, 'wx', 0o644);
      fs.writeSync(fd, JSON.stringify(mine));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          // Only our own lock: never remove one a successor took over.
          if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const existing = readLock(file);
    const owner = liveOwner(existing);
    if (owner !== null) throw new DataDirBusyError(dataDir, owner);
    if (existing === null && attempt === 0) {
      // Possibly being written by a process that created it a moment ago: look again.
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
      continue;
    }
    // Stale: move it aside atomically, so of two processes taking it over only one removes it.
    const aside = `${file}.stale-${process.pid}`;
    try {
      fs.renameSync(file, aside);
      const moved = readLock(aside);
      // Another process replaced the stale lock between our read and our rename: put its back.
      if (moved && existing && moved.pid !== existing.pid) fs.linkSync(aside, file);
      fs.rmSync(aside, { force: true });
    } catch {
      /* another process took it over first; the next attempt decides */
    }
  }
  throw new Error(`could not take the lock ${file}`);
}

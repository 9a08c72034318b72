/**
 * Worker threads that do batch work for calls (VAD inference, resampling, Smart Turn) run at a
 * lower priority than the event loop. The loop paces every call's audio and answers every socket;
 * when the cores are busy and the kernel must choose, a few milliseconds' wait hurts it far more
 * than a worker whose answer is due in tens of milliseconds. At 200 calls on 2 cores the loop
 * otherwise waited behind the workers for a scheduler slice (event-loop stalls of 20-30 ms with
 * the loop itself a third idle).
 *
 * Linux only: a thread's nice value is its own there (setpriority on the thread id); elsewhere,
 * and where it is refused, nothing changes.
 */
import fs from 'node:fs';
import os from 'node:os';

/** Nice value of the workers' threads (0 is the event loop's; 19 the lowest). */
export const WORKER_NICE = 5;

/** Lowers the calling thread's priority to `nice` (never raises it); true when it did. */
export function lowerThisThread(nice = WORKER_NICE): boolean {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    if (os.getPriority(tid) >= nice) return true;
    os.setPriority(tid, nice);
    return true;
  } catch {
    return false;
  }
}

/** The same, as source for a worker that is a script of its own (`eval`; CommonJS). */
export const LOWER_THIS_THREAD_SOURCE = `
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(tid) && tid > 0 && require('node:os').getPriority(tid) < ${WORKER_NICE}) require('node:os').setPriority(tid, ${WORKER_NICE});
} catch {}
`;

/**
 * The calls' batch workers run below the event loop's priority (Linux): a worker thread that lowers
 * itself gets the nice value, the process's main thread keeps its own.
 */
import fs from 'node:fs';
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { LOWER_THIS_THREAD_SOURCE, WORKER_NICE } from '../../src/audio/thread-priority.js';

const linux = fs.existsSync('/proc/thread-self');

describe.runIf(linux)('worker thread priority', () => {
  it("lowers the worker's own thread only", async () => {
    const before = os.getPriority(process.pid);
    const worker = new Worker(`${LOWER_THIS_THREAD_SOURCE}
      const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
      require('node:worker_threads').parentPort.postMessage({ tid, nice: require('node:os').getPriority(tid) });`, { eval: true });
    const { tid, nice } = await new Promise<{ tid: number; nice: number }>((resolve) => worker.once('message', resolve));
    await worker.terminate();
    expect(tid).not.toBe(process.pid);
    expect(nice).toBe(Math.max(WORKER_NICE, before));
    expect(os.getPriority(process.pid)).toBe(before);
  });
});

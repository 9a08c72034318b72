/**
 * The start of a model worker thread (Silero VAD, Smart Turn): it posts `{ ready: true, … }` once
 * its model is loaded or `{ failed: reason }`; until one of them comes, nothing else is sent.
 */
import type { Worker } from 'node:worker_threads';

/** Resolves with the worker's ready message; on `failed` or an error, terminates the worker and rejects. */
export async function workerReady<M extends { ready?: boolean; failed?: string }>(worker: Worker, describe: (reason: string) => string = (r) => r): Promise<M> {
  try {
    return await new Promise<M>((resolve, reject) => {
      const onMessage = (m: M) => {
        if (m.ready) resolve(m);
        else if (m.failed !== undefined) reject(new Error(describe(m.failed)));
        else return;
        worker.off('message', onMessage);
        worker.off('error', reject);
      };
      worker.on('message', onMessage);
      worker.once('error', reject);
    });
  } catch (err) {
    await worker.terminate();
    throw err;
  }
}

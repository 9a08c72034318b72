/**
 * The start of a worker thread (Silero VAD, Smart Turn, resampling): it posts `{ ready: true, … }`
 * once its model is loaded or `{ failed: reason }`; until one of them comes, nothing else is sent.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * The script of a worker that is a module next to `moduleUrl` (`import.meta.url` of its starter):
 * the compiled `.js` file, or, running from source (tsx, vitest), its `.ts` through tsx's register.
 */
export function workerEntry(moduleUrl: string, workerBaseName: string): { script: string; eval: boolean } {
  const self = fileURLToPath(moduleUrl);
  const dir = path.dirname(self);
  if (self.endsWith('.ts')) {
    const tsx = createRequire(moduleUrl).resolve('tsx/cjs/api');
    const entry = path.join(dir, `${workerBaseName}.ts`);
    return { script: `require(${JSON.stringify(tsx)}).register(); require(${JSON.stringify(entry)});`, eval: true };
  }
  return { script: path.join(dir, `${workerBaseName}.js`), eval: false };
}

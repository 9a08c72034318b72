/**
 * The sample-rate conversion thread (resample-thread.ts starts it): one `Resampler` per stream,
 * each chunk converted in the order it came and answered in that order.
 *
 * In: `{ stream, from, to, samples }` (PCM16, transferred) or `{ stream, close: true }`.
 * Out: `{ stream, samples }` (transferred) for every chunk; `{ ready: true }` once started.
 */
import { parentPort } from 'node:worker_threads';
import { Resampler } from './resample.js';
import { lowerThisThread } from './thread-priority.js';

type Request = { stream: number; from: number; to: number; samples: Int16Array } | { stream: number; close: true };

lowerThisThread();
const port = parentPort!;
const streams = new Map<number, Resampler>();

port.on('message', (m: Request) => {
  if ('close' in m) {
    streams.delete(m.stream);
    return;
  }
  let resampler = streams.get(m.stream);
  if (!resampler || resampler.from !== m.from || resampler.to !== m.to) {
    resampler = new Resampler(m.from, m.to);
    streams.set(m.stream, resampler);
  }
  const samples = resampler.process(m.samples);
  port.postMessage({ stream: m.stream, samples }, [samples.buffer as ArrayBuffer]);
});
port.postMessage({ ready: true });

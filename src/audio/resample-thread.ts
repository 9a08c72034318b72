/**
 * Sample-rate conversion off the event loop: replies synthesised at another rate than the
 * caller's line (OpenAI speech is 24 kHz, a phone line 8 kHz) are resampled in one worker thread
 * per process instead of on the loop that also paces every call's audio.
 *
 * Why: at 200 talking calls the 96-tap filter of 24 → 8 kHz was the largest single cost on the
 * service's event loop (≈ 12 % of it; docs/decisions.md, "The service's event loop at 200
 * calls"). The worker does the same arithmetic (src/audio/resample.ts) with the same state per
 * stream, so the audio is sample for sample what the loop made; a chunk comes back in well under
 * a millisecond when the worker is idle.
 *
 * Until the worker has started, and if it ever fails, streams convert in this thread instead (a
 * reply is never held up or lost for want of the worker; a stream caught by a failure restarts
 * its filter, a click at most).
 */
import { Worker } from 'node:worker_threads';
import { Resampler } from './resample.js';
import { workerEntry } from './worker-ready.js';

/** One stream's conversion: chunks in order, each answered (possibly empty) in order. */
export interface RateStream {
  readonly from: number;
  readonly to: number;
  process(samples: Int16Array): Promise<Int16Array>;
  /** No more chunks (answers still due arrive). */
  close(): void;
}

/** Opens conversion streams (the voice pipeline's TTS stage takes one). */
export interface RateConversion {
  open(from: number, to: number): RateStream;
}

/** A stream converted in this thread. */
class LocalStream implements RateStream {
  readonly resampler: Resampler;
  constructor(readonly from: number, readonly to: number) {
    this.resampler = new Resampler(from, to);
  }
  process(samples: Int16Array): Promise<Int16Array> {
    return Promise.resolve(this.resampler.process(samples));
  }
  close(): void {}
}

interface Due {
  samples: Int16Array;
  resolve(samples: Int16Array): void;
}

/** A stream converted in the worker; falls back to this thread when the worker fails. */
class WorkerStream implements RateStream {
  /** Chunks sent and not yet answered, oldest first. */
  readonly due: Due[] = [];
  private local: LocalStream | null = null;
  closed = false;

  constructor(
    private readonly thread: ResampleThread,
    readonly id: number,
    readonly from: number,
    readonly to: number,
  ) {}

  process(samples: Int16Array): Promise<Int16Array> {
    if (this.local) return this.local.process(samples);
    return new Promise((resolve) => {
      // A copy is sent (the caller's array may be a view of a shared Buffer); the original stays for a fallback.
      const copy = samples.slice();
      this.due.push({ samples, resolve });
      this.thread.post({ stream: this.id, from: this.from, to: this.to, samples: copy }, [copy.buffer]);
    });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.local) this.thread.post({ stream: this.id, close: true });
    this.thread.forgetIfDone(this);
  }

  /** The worker failed: what it still owed is converted here, and so is everything after. */
  fallBack(): void {
    this.local = new LocalStream(this.from, this.to);
    for (const d of this.due.splice(0)) d.resolve(this.local.resampler.process(d.samples));
  }
}

/** The worker thread and its streams. */
export class ResampleThread implements RateConversion {
  private worker: Worker | null = null;
  private ready = false;
  private failed = false;
  private next = 1;
  private readonly streams = new Map<number, WorkerStream>();
  private markReady: (ready: boolean) => void = () => undefined;
  /** True once the worker converts, false if it failed first (streams then convert in this thread). */
  readonly started = new Promise<boolean>((resolve) => (this.markReady = resolve));

  /** Starts the worker; streams opened before it is ready convert in this thread. */
  static start(entry: () => { script: string; eval: boolean } = () => workerEntry(import.meta.url, 'resample-worker')): ResampleThread {
    const thread = new ResampleThread();
    try {
      thread.spawn(entry());
    } catch {
      // No worker (its script cannot be found or started): every stream converts in this thread.
      thread.fail();
    }
    return thread;
  }

  open(from: number, to: number): RateStream {
    if (!this.ready || this.failed) return new LocalStream(from, to);
    const stream = new WorkerStream(this, this.next++, from, to);
    this.streams.set(stream.id, stream);
    return stream;
  }

  /** @internal */
  post(message: unknown, transfer: ArrayBuffer[] = []): void {
    this.worker?.postMessage(message, transfer);
  }

  /** @internal A closed stream with nothing due is forgotten. */
  forgetIfDone(stream: WorkerStream): void {
    if (stream.closed && stream.due.length === 0) this.streams.delete(stream.id);
  }

  async close(): Promise<void> {
    this.fail();
    await this.worker?.terminate();
  }

  private spawn(entry: { script: string; eval: boolean }): void {
    const worker = new Worker(entry.script, { eval: entry.eval });
    this.worker = worker;
    worker.unref();
    worker.on('message', (m: { ready?: true; stream?: number; samples?: Int16Array }) => {
      if (m.ready) {
        this.ready = true;
        this.markReady(true);
        return;
      }
      const stream = this.streams.get(m.stream!);
      const due = stream?.due.shift();
      if (!stream || !due) return;
      due.resolve(m.samples!);
      this.forgetIfDone(stream);
    });
    worker.on('error', () => this.fail());
    worker.on('exit', () => this.fail());
  }

  /** @internal */
  fail(): void {
    if (this.failed) return;
    this.failed = true;
    this.markReady(false);
    for (const stream of this.streams.values()) stream.fallBack();
    this.streams.clear();
  }
}

let shared: ResampleThread | null = null;

/** The process's conversion thread, started on first use. */
export function sharedResampleThread(): ResampleThread {
  shared ??= ResampleThread.start();
  return shared;
}

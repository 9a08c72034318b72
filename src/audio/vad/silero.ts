/**
 * Silero VAD v5 on onnxruntime-node, batched across calls, inferred on a worker thread.
 *
 * The model (models/silero_vad.onnx, vendored, MIT — see NOTICE) scores one window of audio
 * (512 samples at 16 kHz or 256 at 8 kHz, both 32 ms) given the previous window's last 64/32
 * samples as context and a recurrent state [2, batch, 128] carried from window to window. Its
 * inputs have a batch dimension, so the runner scores the next window of MANY calls in one
 * inference: per-window cost drops several-fold (fixed per-run overhead). Each call's windows
 * are scored strictly in order (its state depends on the previous result), at most one window
 * per call per batch.
 *
 * onnxruntime-node's `session.run` returns a promise but runs the inference synchronously in a
 * `setImmediate` on the calling thread (its backend.js), so on the main thread a batch of 200
 * windows blocks the event loop for the whole inference (a CPU profile of `npm run bench voice`
 * at 200 calls: 3.3 s of 8 s of main-thread work was that callback). The runner therefore runs
 * the session in a worker thread (`thread: 'worker'`, the default): the main thread only packs
 * windows and states into one transferable array per batch and unpacks the answer.
 * `thread: 'main'` keeps the old in-thread session, for comparison (bench/vad.ts).
 *
 * Batches start at most every `minBatchIntervalMs` (default 5 ms): a window that comes sooner after
 * the last batch waits for the rest of the interval, so windows of many calls share a batch instead
 * of each event-loop turn sending its few. With 200 calls (6,250 windows a second) batches started
 * whenever a window was pending ran ≈ 630 a second of ≈ 10 windows, a message to the worker and back
 * each (≈ 4 % of the event loop); a lone call's windows, 32 ms apart, still go at once.
 *
 * `SileroVad` is one call's detector state and implements the voice core's `VadModel`
 * (`probability(window)`), so the VAD stage (src/voice/vad.ts) uses it directly.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MainThreadInference, STATE, WorkerInference, type Inference } from './inference.js';

/** models/silero_vad.onnx at the repository root (from src/audio/vad or dist/audio/vad). */
export const SILERO_MODEL_PATH = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../models/silero_vad.onnx');

export type VadRate = 8000 | 16_000;

const SHAPES: Record<VadRate, { window: number; context: number }> = {
  8000: { window: 256, context: 32 },
  16_000: { window: 512, context: 64 },
};

export interface VadRunnerOptions {
  /** Shortest time between the starts of two batches (default 5 ms; 0: a batch whenever windows wait). */
  minBatchIntervalMs?: number;
  /** Windows scored per inference at most (default 256). 1 = no batching (for comparison). */
  maxBatch?: number;
  modelPath?: string;
  /** Where inference runs (default `worker`: off the event loop; `main`: in this thread, for comparison). */
  thread?: 'worker' | 'main';
}

interface Request {
  vad: SileroVad;
  /** context + window, float −1..1 */
  input: Float32Array;
  resolve(probability: number): void;
  reject(err: Error): void;
}

/** One process's Silero session and the queue that batches windows of all calls. */
export class SileroVadRunner {
  private readonly pending: Record<VadRate, Request[]> = { 8000: [], 16_000: [] };
  private running = false;
  private scheduled = false;
  private closed = false;
  private readonly maxBatch: number;
  private readonly minBatchIntervalMs: number;
  /** performance.now() when the last batch started. */
  private lastBatchAt = -Infinity;
  /** Inferences run and windows scored (benchmarks). */
  readonly stats = { inferences: 0, windows: 0 };

  private constructor(private readonly inference: Inference, options: VadRunnerOptions) {
    this.maxBatch = Math.max(1, options.maxBatch ?? 256);
    this.minBatchIntervalMs = Math.max(0, options.minBatchIntervalMs ?? 5);
  }

  /** Loads the model (≈ 50 ms, plus ≈ 100 ms to start the worker); throws when onnxruntime-node or the model file is missing. */
  static async load(options: VadRunnerOptions = {}): Promise<SileroVadRunner> {
    const modelPath = options.modelPath ?? SILERO_MODEL_PATH;
    const inference = options.thread === 'main' ? await MainThreadInference.load(modelPath) : await WorkerInference.load(modelPath);
    return new SileroVadRunner(inference, options);
  }

  /** A detector for one call's audio at `sampleRate` (8 kHz phone audio needs no resampling). */
  open(sampleRate: VadRate): SileroVad {
    if (!(sampleRate in SHAPES)) throw new Error(`Silero VAD scores 8000 or 16000 Hz audio, not ${sampleRate}`);
    return new SileroVad(this, sampleRate);
  }

  /** @internal SileroVad's queue entry. */
  enqueue(vad: SileroVad, input: Float32Array): Promise<number> {
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new Error('the VAD runner is closed'));
      this.pending[vad.sampleRate].push({ vad, input, resolve, reject });
      this.schedule();
    });
  }

  close(): void {
    this.closed = true;
    for (const rate of [8000, 16_000] as const) for (const r of this.pending[rate].splice(0)) r.reject(new Error('the VAD runner is closed'));
    this.inference.close();
  }

  /**
   * Windows that arrive in the same turn of the event loop share an inference, and so do those of
   * the rest of `minBatchIntervalMs` after the last batch started.
   */
  private schedule(): void {
    if (this.scheduled || this.running || this.closed) return;
    this.scheduled = true;
    const go = () => {
      this.scheduled = false;
      void this.flush();
    };
    const wait = this.lastBatchAt + this.minBatchIntervalMs - performance.now();
    if (wait > 0.5) setTimeout(go, wait);
    else setImmediate(go);
  }

  /**
   * Batches of what waits. A call's later windows (audio that came faster than real time, or after a
   * stall) go in the next batch at once; windows that only arrived meanwhile wait for the interval.
   */
  private async flush(): Promise<void> {
    if (this.running || this.closed) return;
    this.running = true;
    try {
      let backlog = true;
      while (backlog && !this.closed) {
        backlog = false;
        this.lastBatchAt = performance.now();
        for (const rate of [8000, 16_000] as const) {
          if (this.pending[rate].length === 0 || this.closed) continue;
          const batch = this.takeBatch(rate);
          backlog ||= batch.backlog;
          await this.runBatch(rate, batch.taken);
        }
      }
    } finally {
      this.running = false;
    }
    if (this.pending[8000].length + this.pending[16_000].length > 0) this.schedule();
  }

  /** The oldest window of each call, up to maxBatch; later windows of a call wait (`backlog`). */
  private takeBatch(rate: VadRate): { taken: Request[]; backlog: boolean } {
    const queue = this.pending[rate];
    const taken: Request[] = [];
    const seen = new Set<SileroVad>();
    const rest: Request[] = [];
    for (const r of queue) {
      if (taken.length < this.maxBatch && !seen.has(r.vad)) {
        seen.add(r.vad);
        taken.push(r);
      } else rest.push(r);
    }
    this.pending[rate] = rest;
    return { taken, backlog: rest.length > 0 };
  }

  private async runBatch(rate: VadRate, batch: Request[]): Promise<void> {
    const { window, context } = SHAPES[rate];
    const width = window + context;
    const n = batch.length;
    const input = new Float32Array(n * width);
    // state is [2, n, 128]: layer-major.
    const state = new Float32Array(2 * n * STATE);
    batch.forEach((r, b) => {
      input.set(r.input, b * width);
      state.set(r.vad.state.subarray(0, STATE), b * STATE);
      state.set(r.vad.state.subarray(STATE), (n + b) * STATE);
    });
    try {
      const out = await this.inference.run(rate, n, width, input, state);
      const probabilities = out.output;
      const next = out.state;
      this.stats.inferences++;
      this.stats.windows += n;
      batch.forEach((r, b) => {
        r.vad.state.set(next.subarray(b * STATE, (b + 1) * STATE), 0);
        r.vad.state.set(next.subarray((n + b) * STATE, (n + b + 1) * STATE), STATE);
        r.resolve(probabilities[b]);
      });
    } catch (err) {
      for (const r of batch) r.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/**
 * One call's Silero state: the recurrent state and the audio context carried from window to
 * window. `probability()` takes windows in order (the voice core's VadModel contract).
 */
export class SileroVad {
  readonly windowSamples: number;
  /** @internal [layer 0 | layer 1], 128 each. */
  readonly state = new Float32Array(2 * STATE);
  private readonly context: Float32Array;

  constructor(private readonly runner: SileroVadRunner, readonly sampleRate: VadRate) {
    const shape = SHAPES[sampleRate];
    this.windowSamples = shape.window;
    this.context = new Float32Array(shape.context);
  }

  /** Speech probability 0–1 of the next window of `windowSamples` PCM16 samples. */
  probability(window: Int16Array): Promise<number> {
    if (window.length !== this.windowSamples) {
      return Promise.reject(new Error(`a Silero window at ${this.sampleRate} Hz is ${this.windowSamples} samples, not ${window.length}`));
    }
    const input = new Float32Array(this.context.length + window.length);
    input.set(this.context);
    for (let i = 0; i < window.length; i++) input[this.context.length + i] = window[i] / 32768;
    this.context.set(input.subarray(input.length - this.context.length));
    return this.runner.enqueue(this, input);
  }

  /** Forget the past (a new utterance stream on the same call). */
  reset(): void {
    this.state.fill(0);
    this.context.fill(0);
  }

  close(): void {
    // Nothing held outside this object; the runner is shared.
  }
}

let shared: Promise<SileroVadRunner> | undefined;

/** The process's runner (one session, one batch queue for every call), loaded on first use. */
export function sharedVadRunner(): Promise<SileroVadRunner> {
  shared ??= SileroVadRunner.load();
  shared.catch(() => (shared = undefined)); // a failed load may be retried
  return shared;
}

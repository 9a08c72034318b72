/**
 * Smart Turn v3 (pipecat-ai/smart-turn, BSD-2-Clause): an audio model that says whether the
 * caller's turn sounds finished (intonation, a trailing "and…"), used as one signal of the
 * end-of-turn policy (policy.ts, `audio-model`). Optional: loaded only when the operator sets
 * `TURN_MODEL_PATH` to the ONNX file (docs/voice-settings.md says where it comes from; nothing
 * is downloaded at run time).
 *
 * Model I/O (the Smart Turn v3 export and Pipecat's analyzer): input `input_features`, float32
 * [batch, 80, 800] — Whisper log-mel features of the last 8 s of 16 kHz mono audio
 * (whisper-features.ts); output `logits`, float32 [batch, 1], which already holds the sigmoid
 * probability that the turn is complete; complete iff > 0.5.
 *
 * Off the event loop: features and inference run in one worker thread (smart-turn-worker.ts),
 * one request at a time, FIFO. A queue longer than `maxQueue` drops its oldest request (its
 * caller's policy has moved on by then; it gets `SmartTurnBusyError`).
 */
import { Worker } from 'node:worker_threads';
import { workerEntry, workerReady } from '../../audio/worker-ready.js';
import { SAMPLE_RATE } from './whisper-features.js';
import { disableOnnxTelemetry } from '../../audio/onnx-runtime.js';

export { SAMPLE_RATE as TURN_MODEL_SAMPLE_RATE };

export interface SmartTurnResult {
  /** Probability that the turn is complete. */
  probability: number;
  /** probability > threshold (0.5, as Pipecat and the reference inference). */
  complete: boolean;
  /** Time in the worker for the features and for the model (ms). */
  featuresMs: number;
  inferenceMs: number;
}

export interface SmartTurnOptions {
  /** Complete above this probability (default 0.5). */
  threshold?: number;
  /** Requests waiting at most (default 64); beyond that the oldest is dropped. */
  maxQueue?: number;
}

/** Where the doctor and the start-up error send an operator whose TURN_MODEL_PATH does not load. */
export const TURN_MODEL_FIX = 'point TURN_MODEL_PATH at smart-turn-v3.2-cpu.onnx from https://huggingface.co/pipecat-ai/smart-turn-v3 (BSD-2-Clause), or unset it';

export class SmartTurnBusyError extends Error {}

const SESSION_OPTIONS = {
  // One thread: the worker runs one request at a time and the service keeps the other core.
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

interface Answer {
  id?: number;
  probability?: number;
  featuresMs?: number;
  inferenceMs?: number;
  error?: string;
  ready?: boolean;
  failed?: string;
}

interface Request {
  id: number;
  audio: Float32Array;
  resolve(result: SmartTurnResult): void;
  reject(err: Error): void;
}

export class SmartTurn {
  private next = 1;
  private readonly queue: Request[] = [];
  private inFlight: Request | null = null;
  private failure: Error | null = null;
  private readonly threshold: number;
  private readonly maxQueue: number;
  /** Predictions answered, and requests dropped for a full queue. */
  readonly stats = { predictions: 0, dropped: 0 };

  private constructor(private readonly worker: Worker, readonly inputs: readonly string[], readonly outputs: readonly string[], options: SmartTurnOptions) {
    this.threshold = options.threshold ?? 0.5;
    this.maxQueue = Math.max(1, options.maxQueue ?? 64);
    worker.on('message', (m: Answer) => this.answer(m));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the Smart Turn worker exited (code ${code})`)));
    worker.unref();
  }

  /** Starts the worker and loads the model; throws when the file is missing or is not a Smart Turn model. */
  static async load(modelPath: string, options: SmartTurnOptions = {}): Promise<SmartTurn> {
    disableOnnxTelemetry();
    const entry = workerEntry(import.meta.url, 'smart-turn-worker');
    const worker = new Worker(entry.script, { eval: entry.eval, workerData: { modelPath, sessionOptions: SESSION_OPTIONS } });
    const ready = await workerReady<Answer & { inputs?: string[]; outputs?: string[] }>(worker, (reason) => `Smart Turn model ${modelPath}: ${reason}`);
    return new SmartTurn(worker, ready.inputs ?? [], ready.outputs ?? [], options);
  }

  /** The probability that the turn in `audio` (16 kHz mono floats in [-1, 1]; the last 8 s count) is complete. */
  predict(audio: Float32Array): Promise<SmartTurnResult> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.next++, audio: audio.slice(), resolve, reject });
      while (this.queue.length > this.maxQueue) {
        this.stats.dropped++;
        this.queue.shift()!.reject(new SmartTurnBusyError('the Smart Turn queue is full: the oldest request was dropped'));
      }
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.fail(new Error('the Smart Turn model is closed'));
    await this.worker.terminate();
  }

  private pump(): void {
    if (this.inFlight || this.failure) return;
    const request = this.queue.shift();
    if (!request) {
      this.worker.unref();
      return;
    }
    this.inFlight = request;
    this.worker.ref();
    this.worker.postMessage({ id: request.id, audio: request.audio }, [request.audio.buffer as ArrayBuffer]);
  }

  private answer(m: Answer): void {
    const request = this.inFlight;
    if (!request || m.id !== request.id) return;
    this.inFlight = null;
    if (m.error !== undefined) request.reject(new Error(`Smart Turn: ${m.error}`));
    else {
      this.stats.predictions++;
      const probability = m.probability!;
      request.resolve({ probability, complete: probability > this.threshold, featuresMs: m.featuresMs!, inferenceMs: m.inferenceMs! });
    }
    this.pump();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const r of [...(this.inFlight ? [this.inFlight] : []), ...this.queue.splice(0)]) r.reject(this.failure);
    this.inFlight = null;
    this.worker.unref();
  }
}

/**
 * Where Silero's inference runs (src/audio/vad/silero.ts batches the windows): a worker thread
 * (the default) or this thread. onnxruntime-node's `session.run` is synchronous under its
 * promise (backend.js runs it inside a `setImmediate`), so only the worker keeps the event loop
 * free while a batch is scored.
 */
import { LOWER_THIS_THREAD_SOURCE } from '../thread-priority.js';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { disableOnnxTelemetry } from '../onnx-runtime.js';
import { workerReady } from '../worker-ready.js';
import type { VadRate } from './silero.js';

/** Floats of recurrent state per layer and call. */
export const STATE = 128;
interface OrtTensor {
  data: Float32Array;
}
interface OrtSession {
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
  release?(): Promise<void>;
}
interface Ort {
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: Float32Array | BigInt64Array, dims: number[]) => unknown;
}

/** Runs one batch: input [n, width], state [2, n, 128] → probabilities [n] and next state. */
export interface Inference {
  run(rate: VadRate, n: number, width: number, input: Float32Array, state: Float32Array): Promise<{ output: Float32Array; state: Float32Array }>;
  close(): void;
}

const SESSION_OPTIONS = {
  // One thread per inference: batching, not intra-op threads, is what scales to many calls,
  // and the service's other work keeps the remaining core.
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

/** The session in this thread: `run` blocks the event loop for the whole inference. */
export class MainThreadInference implements Inference {
  private readonly srTensors: Record<VadRate, unknown>;

  private constructor(private readonly ort: Ort, private readonly session: OrtSession) {
    this.srTensors = {
      8000: new ort.Tensor('int64', BigInt64Array.from([8000n]), []),
      16_000: new ort.Tensor('int64', BigInt64Array.from([16_000n]), []),
    };
  }

  static async load(modelPath: string): Promise<MainThreadInference> {
    disableOnnxTelemetry();
    const ort = (await import('onnxruntime-node')) as unknown as Ort & { default?: Ort };
    const api: Ort = ort.InferenceSession ? ort : ort.default!;
    return new MainThreadInference(api, await api.InferenceSession.create(modelPath, SESSION_OPTIONS));
  }

  async run(rate: VadRate, n: number, width: number, input: Float32Array, state: Float32Array): Promise<{ output: Float32Array; state: Float32Array }> {
    const out = await this.session.run({
      input: new this.ort.Tensor('float32', input, [n, width]),
      state: new this.ort.Tensor('float32', state, [2, n, STATE]),
      sr: this.srTensors[rate],
    });
    return { output: out.output.data, state: out.stateN.data };
  }

  close(): void {
    void this.session.release?.();
  }
}

/**
 * The worker's source, run as a CommonJS script (`eval`): no file of its own, so it runs the
 * same from src/ under tsx or vitest and from dist/, and needs no build step. It gets the
 * resolved path of onnxruntime-node and the model, and answers each batch with the
 * probabilities and next states (transferred, not copied).
 */
const WORKER_SOURCE = `${LOWER_THIS_THREAD_SOURCE}
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ortPath);
const sr = { 8000: new ort.Tensor('int64', BigInt64Array.from([8000n]), []), 16000: new ort.Tensor('int64', BigInt64Array.from([16000n]), []) };
ort.InferenceSession.create(workerData.modelPath, workerData.sessionOptions).then((session) => {
  parentPort.on('message', async (m) => {
    try {
      const out = await session.run({
        input: new ort.Tensor('float32', m.input, [m.n, m.width]),
        state: new ort.Tensor('float32', m.state, [2, m.n, ${STATE}]),
        sr: sr[m.rate],
      });
      const output = Float32Array.from(out.output.data);
      const state = Float32Array.from(out.stateN.data);
      parentPort.postMessage({ id: m.id, output, state }, [output.buffer, state.buffer]);
    } catch (err) {
      parentPort.postMessage({ id: m.id, error: String((err && err.message) || err) });
    }
  });
  parentPort.postMessage({ ready: true });
}, (err) => parentPort.postMessage({ failed: String((err && err.message) || err) }));
`;

interface WorkerAnswer {
  id?: number;
  output?: Float32Array;
  state?: Float32Array;
  error?: string;
  ready?: boolean;
  failed?: string;
}

/** The session in a worker thread; the worker holds the event loop open only while a batch is out. */
export class WorkerInference implements Inference {
  private next = 1;
  private readonly waiting = new Map<number, { resolve(out: { output: Float32Array; state: Float32Array }): void; reject(err: Error): void }>();
  private failure: Error | null = null;

  private constructor(private readonly worker: Worker) {
    worker.on('message', (m: WorkerAnswer) => this.answer(m));
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the VAD worker exited (code ${code})`)));
    worker.unref();
  }

  static async load(modelPath: string): Promise<WorkerInference> {
    disableOnnxTelemetry();
    const ortPath = createRequire(import.meta.url).resolve('onnxruntime-node');
    const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { ortPath, modelPath, sessionOptions: SESSION_OPTIONS } });
    await workerReady<WorkerAnswer>(worker);
    return new WorkerInference(worker);
  }

  run(rate: VadRate, n: number, width: number, input: Float32Array, state: Float32Array): Promise<{ output: Float32Array; state: Float32Array }> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      if (this.waiting.size === 1) this.worker.ref();
      this.worker.postMessage({ id, rate, n, width, input, state }, [input.buffer as ArrayBuffer, state.buffer as ArrayBuffer]);
    });
  }

  close(): void {
    this.fail(new Error('the VAD runner is closed'));
    void this.worker.terminate();
  }

  private answer(m: WorkerAnswer): void {
    const waiter = m.id === undefined ? undefined : this.waiting.get(m.id);
    if (!waiter) return;
    this.waiting.delete(m.id!);
    if (this.waiting.size === 0) this.worker.unref();
    if (m.error !== undefined) waiter.reject(new Error(m.error));
    else waiter.resolve({ output: m.output!, state: m.state! });
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(this.failure);
    this.waiting.clear();
    this.worker.unref();
  }
}

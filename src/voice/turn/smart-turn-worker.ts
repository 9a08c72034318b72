/**
 * The Smart Turn worker thread (smart-turn.ts starts it): loads the ONNX model once, then for each
 * request computes the Whisper features of the audio and runs the model, so neither the ~10 ms of
 * features nor the inference ever runs on the service's event loop. One request at a time.
 *
 * In: `{ id, audio }` (16 kHz mono Float32Array, transferred). Out: `{ id, probability,
 * featuresMs, inferenceMs }` or `{ id, error }`; `{ ready: true, inputs, outputs }` once loaded,
 * `{ failed }` when the model cannot be used.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../../audio/thread-priority.js';
import { N_FRAMES, N_MELS, whisperFeatures } from './whisper-features.js';

interface OrtTensor {
  data: Float32Array;
  dims: readonly number[];
}
interface OrtSession {
  inputNames: readonly string[];
  outputNames: readonly string[];
  run(feeds: Record<string, unknown>): Promise<Record<string, OrtTensor>>;
}
interface Ort {
  InferenceSession: { create(path: string, options: Record<string, unknown>): Promise<OrtSession> };
  Tensor: new (type: string, data: Float32Array, dims: number[]) => unknown;
}

const INPUT = 'input_features';
const OUTPUT = 'logits';
lowerThisThread();
const port = parentPort!;
const { modelPath, sessionOptions } = workerData as { modelPath: string; sessionOptions: Record<string, unknown> };

async function main(): Promise<void> {
  const loaded = (await import('onnxruntime-node')) as unknown as Ort & { default?: Ort };
  const ort: Ort = loaded.InferenceSession ? loaded : loaded.default!;
  const session = await ort.InferenceSession.create(modelPath, sessionOptions);
  if (!session.inputNames.includes(INPUT)) throw new Error(`not a Smart Turn model: its inputs are ${session.inputNames.join(', ')} (expected ${INPUT})`);
  const output = session.outputNames.includes(OUTPUT) ? OUTPUT : session.outputNames[0];
  // Warm the JIT on the feature code: the first caller's turn should not pay for compiling it (≈ 0.2 s cold).
  for (let i = 0; i < 3; i++) whisperFeatures(new Float32Array(N_FRAMES * 160));
  port.on('message', async (m: { id: number; audio: Float32Array }) => {
    try {
      const t0 = performance.now();
      const features = whisperFeatures(m.audio);
      const t1 = performance.now();
      const out = await session.run({ [INPUT]: new ort.Tensor('float32', features, [1, N_MELS, N_FRAMES]) });
      const probability = Number(out[output].data[0]);
      port.postMessage({ id: m.id, probability, featuresMs: t1 - t0, inferenceMs: performance.now() - t1 });
    } catch (err) {
      port.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) });
    }
  });
  port.postMessage({ ready: true, inputs: session.inputNames, outputs: session.outputNames });
}

main().catch((err: unknown) => port.postMessage({ failed: err instanceof Error ? err.message : String(err) }));

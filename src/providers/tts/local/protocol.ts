/**
 * Messages between the local voice's pool (this process) and its eSpeak NG child processes,
 * over the child's IPC pipe with Node's structured-clone serialization (typed arrays travel as
 * they are). One request at a time per child: the pool keeps the queue, so a cancelled reply's
 * queued sentences never reach a child.
 */
export interface SpeakRequest {
  type: 'speak';
  id: number;
  text: string;
  voice: string;
  wordsPerMinute: number;
  pitch?: number;
  /** The rate the audio is delivered at (the child resamples from eSpeak's 22 050 Hz). */
  sampleRate: number;
}

export type WorkerMessage =
  /** The child loaded eSpeak NG; `reusesInstance` false means the slow fallback (see espeak.ts). */
  | { type: 'ready'; reusesInstance: boolean }
  /** eSpeak NG could not be loaded (the optional package is missing or broken). */
  | { type: 'unavailable'; message: string }
  | { type: 'spoken'; id: number; samples: Int16Array; sampleRate: number }
  | { type: 'failed'; id: number; message: string };

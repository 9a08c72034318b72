/**
 * Speech-to-text as the voice core sees it: a stream per call that takes the caller's audio
 * (PCM16 mono) and reports transcripts. Adapters (src/providers/stt/<vendor>/) speak one
 * vendor's wire protocol and know nothing of calls or the database.
 *
 * - A streaming provider (Deepgram live) endpoints by itself: `transcript` with `speechFinal`
 *   and/or `utterance-end` tell the core the caller has finished (endpoint_type `ai`).
 * - A batch provider (OpenAI-compatible /v1/audio/transcriptions) transcribes the audio
 *   written since the last `finalize()` when the core calls it (after VAD end of speech),
 *   then reports one final transcript with `speechFinal: true` and an `utterance-end`.
 */
export interface SttStreamOptions {
  /** Sample rate of the PCM16 the stream receives (8000 for telephony, 16000 for browsers). */
  sampleRate: number;
  /** ISO 639-1 language of the caller, e.g. `en`, `de`. */
  language: string;
  /** Silence (ms) after which a streaming provider sets `speechFinal` (Deepgram `endpointing`). */
  endpointingMs?: number;
  /** Word gap (ms) after which a streaming provider sends `utterance-end` (Deepgram `utterance_end_ms`). */
  utteranceEndMs?: number;
  /** Words to boost (names, products), when the provider supports it. */
  keywords?: string[];
}

export type SttEvent =
  /** The provider's own voice activity detection heard speech begin. */
  | { type: 'speech-started' }
  /** Interim (`isFinal` false, will be replaced) or final text of the current segment. */
  | { type: 'transcript'; text: string; isFinal: boolean; speechFinal: boolean }
  /** The provider's end-of-utterance signal (Deepgram `UtteranceEnd`). */
  | { type: 'utterance-end' }
  /** `fatal`: the stream is gone; the core may open a new one. */
  | { type: 'error'; message: string; fatal: boolean };

export interface SttStream {
  /** Caller audio, PCM16 mono at `options.sampleRate`, in order. */
  write(samples: Int16Array): void;
  /** Forces out what was heard so far (Deepgram Finalize; batch: transcribe the buffered utterance). */
  finalize(): void;
  /** Ends the stream (Deepgram CloseStream); resolves when the connection is closed. */
  close(): Promise<void>;
}

export interface SttProvider {
  /** e.g. `deepgram`, `openai`. */
  readonly name: string;
  /** True when the provider endpoints by itself (speech_final / UtteranceEnd); false for batch. */
  readonly endpointing: boolean;
  open(options: SttStreamOptions, onEvent: (event: SttEvent) => void): Promise<SttStream>;
}

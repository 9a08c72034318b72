/**
 * Speech-to-text as the voice core sees it: a stream per call that takes the caller's audio
 * (PCM16 mono) and reports transcripts. Adapters (src/providers/stt/<vendor>/) speak one
 * vendor's wire protocol and know nothing of calls or the database.
 *
 * - A streaming provider (Deepgram live) endpoints by itself: `transcript` with `speechFinal`
 *   and/or `utterance-end` tell the core the caller has finished (endpoint_type `ai`).
 * - A turn-detecting provider (Deepgram Flux on /v2/listen) also reports `turn` events
 *   (start, update, eager end, resumed, end); its end of turn is a final `transcript` with
 *   `speechFinal`, so a core that reads only the plain events works unchanged.
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
  /** Turn-detecting providers (Deepgram Flux): their end-of-turn thresholds; unset keeps the provider's defaults. */
  turn?: SttTurnSettings;
}

export interface SttTurnSettings {
  /** Confidence at which the provider ends the turn (Flux `eot_threshold`, 0.5–1.0; 1.0: never by itself). */
  eotThreshold?: number;
  /** Confidence for a speculative end (Flux `eager_eot_threshold`, 0.3–0.9); unset: no eager ends. */
  eagerEotThreshold?: number;
  /** Silence after which the turn ends whatever the confidence (Flux `eot_timeout_ms`). */
  eotTimeoutMs?: number;
}

/** A turn-detecting provider's turn events (Deepgram Flux `TurnInfo`). */
export type SttTurnEvent = 'start' | 'update' | 'eager-end' | 'resumed' | 'end';

export type SttEvent =
  /** The provider's own voice activity detection heard speech begin. */
  | { type: 'speech-started' }
  /** Interim (`isFinal` false, will be replaced) or final text of the current segment. */
  | { type: 'transcript'; text: string; isFinal: boolean; speechFinal: boolean }
  /** The provider's end-of-utterance signal (Deepgram `UtteranceEnd`). */
  | { type: 'utterance-end' }
  /**
   * The provider's own view of the caller's turn (Flux): `transcript` is the whole turn's text so
   * far, `confidence` its end-of-turn confidence, `trigger` why an `end` came (`model`, `manual`
   * after finalize(), `timeout`). Sent beside the plain events above, which keep their meaning.
   */
  | { type: 'turn'; event: SttTurnEvent; transcript: string; confidence: number; turnIndex: number; trigger?: string }
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

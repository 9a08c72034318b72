/**
 * Text-to-speech as the voice core sees it: one stream per assistant reply. The core pushes
 * the reply's text as the LLM produces it, at sentence (or clause) boundaries, and ends it
 * when the reply is complete; the adapter reports audio as soon as it has any. Adapters
 * (src/providers/tts/<vendor>/) speak one vendor's protocol and know nothing of calls.
 *
 * What the caller heard: every `audio` event may carry the vendor's character alignment
 * (ElevenLabs); every adapter reports `spoken` once all audio for a pushed piece of text has
 * been delivered, so the core can map played audio back to text (proportionally within a
 * piece when there is no alignment).
 */
export interface TtsStreamOptions {
  /** The provider's own voice id (the voice list maps our voices to it). */
  voice: string;
  /** The rate the core would like; an adapter may deliver another (each event says its rate). */
  sampleRate: number;
  /** ISO 639-1 language of the text, e.g. `en`, `de`. */
  language: string;
  /** 0–1, the assistant's `voice_stability` (providers that support it). */
  stability?: number;
  /** 0–1, the assistant's `voice_similarity`. */
  similarity?: number;
  /** Speaking rate, 1.0 = normal (the assistant's `speech_speed`). */
  speed?: number;
}

/** Character timings of an audio chunk, in ms from the start of that chunk. */
export interface TtsAlignment {
  chars: string[];
  startMs: number[];
  durationMs: number[];
}

export type TtsEvent =
  | { type: 'audio'; samples: Int16Array; sampleRate: number; alignment?: TtsAlignment }
  /** All audio for `text` (one piece passed to `push`, in order) has been delivered. */
  | { type: 'spoken'; text: string }
  /** Every pushed piece has been spoken after `end()`; no events follow. */
  | { type: 'done' }
  | { type: 'error'; message: string };

export interface TtsStream {
  /** A piece of the reply (a sentence or clause); synthesis may start at once. */
  push(text: string): void;
  /** No more text for this reply: synthesise the rest, then report `done`. */
  end(): void;
  /** Barge-in: stop at once and release the connection; no events follow. */
  cancel(): void;
}

export interface TtsProvider {
  /** e.g. `local`, `elevenlabs`, `openai`. */
  readonly name: string;
  open(options: TtsStreamOptions, onEvent: (event: TtsEvent) => void): TtsStream;
}

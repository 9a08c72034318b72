/**
 * Speech-to-speech for assistants in `mode: multimodal`: one session per call with a model that
 * hears the caller's audio and answers with audio, instead of the STT → LLM → TTS pipeline.
 * Adapters (src/providers/realtime/<vendor>/) speak one vendor's protocol (today the OpenAI
 * Realtime WebSocket protocol) and know nothing of calls or the database.
 *
 * The session exchanges PCM16 mono at `sampleRate` both ways (a provider lists the rates it
 * takes; the core resamples to one of them). Turn-taking on the model's side is its own voice
 * detection (`turnDetection`); barge-in stays the core's decision: the model never cancels its
 * own answer on caller speech, the core calls `interrupt()` when its rules say so (so
 * `allow_interruptions` and `min_interrupt_words` hold in multimodal mode too).
 */
import type { JsonSchema } from '../llm/types.js';

export interface RealtimeTool {
  name: string;
  description: string;
  parameters: JsonSchema;
}

export interface RealtimeSessionOptions {
  /** The system prompt. */
  instructions: string;
  /** The provider's own voice id (the voice list maps our voices to it), e.g. `alloy`. */
  voice: string;
  /** ISO 639-1 language of the caller, for the caller's transcript. */
  language: string;
  /** PCM16 rate both ways; one of the provider's `sampleRates`. */
  sampleRate: number;
  /** Functions the model may call (mid-call tools and end-call). */
  tools: RealtimeTool[];
  /** The model's end-of-turn detection; `null`: the core commits turns itself (`respond()`). */
  turnDetection: { silenceMs?: number; threshold?: number; prefixPaddingMs?: number } | null;
  /** Speaking rate, 1.0 = normal. */
  speed?: number;
  /** Model name, when the endpoint takes one (appended as `?model=` unless the URL has it). */
  model?: string;
}

export type RealtimeEvent =
  /** The caller started speaking (the model's VAD). */
  | { type: 'speech-started' }
  /** The caller stopped speaking; with turn detection the model answers next. */
  | { type: 'speech-stopped' }
  /** What the caller said (a transcription of the audio the model heard). */
  | { type: 'caller-transcript'; text: string }
  /** The model began an answer. */
  | { type: 'response-started'; responseId: string }
  /** Assistant audio, PCM16 at `sampleRate`; `itemId` names the answer it belongs to. */
  | { type: 'audio'; samples: Int16Array; sampleRate: number; itemId: string }
  /** Text of the assistant's audio as it is produced. */
  | { type: 'assistant-transcript-delta'; text: string; itemId: string }
  /** The whole text of one assistant audio item. */
  | { type: 'assistant-transcript'; text: string; itemId: string }
  /** The model calls a function; answer with `sendFunctionResult`. */
  | { type: 'function-call'; callId: string; name: string; arguments: string }
  /** The answer ended (`cancelled` after `interrupt()`). */
  | { type: 'response-done'; responseId: string; status: 'completed' | 'cancelled' | 'failed' | 'incomplete' }
  /** `fatal`: the session is gone. */
  | { type: 'error'; message: string; fatal: boolean };

export interface RealtimeSession {
  /** Caller audio, PCM16 mono at the session's rate, in order. */
  sendAudio(samples: Int16Array): void;
  /**
   * The result of a `function-call`; the model then goes on (`respond()` is sent with it unless
   * `respond` is false: several results of one answer are followed by one `respond()`).
   */
  sendFunctionResult(callId: string, output: string, respond?: boolean): void;
  /**
   * A message from the caller in text (their keys, `[keypad: 42#]`), which the model answers:
   * at once, or once the answer in progress (one the keys just cut off, as a rule) has ended —
   * the model gives one answer at a time.
   */
  sendText(text: string): void;
  /** Asks the model to answer now; `instructions` steer this answer only (e.g. "Say exactly: …"). */
  respond(instructions?: string): void;
  /**
   * Barge-in: cancel the answer in progress and cut the assistant item to the `playedMs` of its
   * audio the caller actually heard, so the model's memory matches what was heard.
   */
  interrupt(playedMs: number): void;
  /** Changes the model's instructions and functions from the next answer on (a call handed to another assistant). */
  update(options: Pick<RealtimeSessionOptions, 'instructions' | 'tools'>): void;
  /** Ends the session; resolves when the connection is closed. */
  close(): Promise<void>;
}

export interface RealtimeProvider {
  /** e.g. `openai`. */
  readonly name: string;
  /** PCM16 rates the session can exchange. */
  readonly sampleRates: readonly number[];
  /** Resolves once the session is configured; rejects when it cannot be. */
  open(options: RealtimeSessionOptions, onEvent: (event: RealtimeEvent) => void): Promise<RealtimeSession>;
}

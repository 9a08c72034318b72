/**
 * The one event type of the voice core. Everything that happens on an audio call — caller audio,
 * voice activity, transcripts, the turn decision, LLM text, tool calls, synthesized audio, what
 * was actually played, barge-in, DTMF, hang-up — is a `Frame` that flows through the pipeline's
 * stages (src/voice/pipeline.ts), in the spirit of Pipecat's frames.
 *
 * Every frame carries `turn`: the id of the conversation turn it belongs to. A turn is one
 * assistant response (a reply to the caller, or something the assistant says on its own: the
 * greeting, a re-engagement, a voicemail message). Caller-side frames (audio, VAD, transcripts)
 * carry the id of the turn that is current when they arrive — the one they would interrupt.
 * When a turn is cancelled (barge-in, hang-up), the runner drops every later frame of that turn,
 * so late LLM text or TTS audio of a cancelled reply can never reach the caller.
 *
 * Times (`at`) are milliseconds on the call's monotonic clock (src/telephony/clock.ts).
 */
import type { TtsAlignment } from '../providers/tts/types.js';
import type { FillerReason, KnowledgeLookup, TurnKind } from './ports.js';
import type { SttTurnFrame, TurnModelFrame } from './turn/signals.js';

export type TurnId = number;

/** Why a turn was cancelled. */
export type CancelReason = 'barge-in' | 'hang-up' | 'superseded' | 'error' | 'end';

/** Where a piece of assistant text comes from (fillers are said but never enter the LLM history). */
export type SpeechSource = 'llm' | 'scripted' | 'filler';

export type Frame =
  // ── caller side ────────────────────────────────────────────────────────────────────────────
  /** Caller audio, PCM16 mono, as the leg delivered it. */
  | { kind: 'audio-in'; turn: TurnId; samples: Int16Array; sampleRate: number; at: number }
  /** Voice activity detection: the caller began speaking (`probability` of the frame that tipped it). */
  | { kind: 'speech-started'; turn: TurnId; at: number; probability: number }
  /** Voice activity detection: the caller has been silent for the VAD's stop window; `at` is the end of speech. */
  | { kind: 'speech-stopped'; turn: TurnId; at: number }
  /** Speech-to-text result. Interim text is replaced by the next one; final text is kept. */
  | { kind: 'transcript'; turn: TurnId; text: string; final: boolean; speechFinal: boolean; at: number }
  /** The STT provider's end-of-utterance signal (Deepgram UtteranceEnd). */
  | { kind: 'utterance-end'; turn: TurnId; at: number }
  /** A turn-detecting STT's own turn event (Deepgram Flux: start, update, eager-end, resumed, end). */
  | SttTurnFrame
  /** The audio turn model's probability that the turn is complete (Smart Turn v3; src/voice/turn). */
  | TurnModelFrame
  /** The leg knows the caller's words for sure (the sandbox speaks its own script). */
  | { kind: 'customer-said'; turn: TurnId; text: string; at: number }
  /**
   * The caller is done: the turn-taking stage decided; `endOfSpeechAt` is when the caller stopped.
   * `late`: the words of a reply that has already begun (speech-to-speech: the model may start
   * answering before the transcript of what it heard arrives); they belong to turn `turn`.
   */
  | { kind: 'end-of-turn'; turn: TurnId; text: string; endOfSpeechAt: number; at: number; late?: boolean }
  /** A key the caller pressed. */
  | { kind: 'dtmf'; turn: TurnId; digit: string; at: number }

  // ── assistant side ─────────────────────────────────────────────────────────────────────────
  /** A new assistant turn begins (a reply opens on `end-of-turn`; the assistant may open one itself). */
  | { kind: 'turn-started'; turn: TurnId; turnKind: TurnKind; callerText: string | null; at: number }
  /** A piece of the LLM's streamed answer. */
  | { kind: 'llm-delta'; turn: TurnId; text: string; at: number }
  /** The LLM finished this round; `text` is the whole round's text. */
  | { kind: 'llm-done'; turn: TurnId; text: string; at: number }
  /** The LLM calls a function (a mid-call tool or end-call). */
  | { kind: 'tool-call'; turn: TurnId; id: string; name: string; arguments: string; at: number }
  /** A mid-call tool answered. */
  | { kind: 'tool-result'; turn: TurnId; id: string; name: string; ok: boolean; content: string; at: number }
  /** The knowledge base was used for this turn (the model's search, or passages put before the reply). */
  | { kind: 'knowledge'; turn: TurnId; lookup: KnowledgeLookup; at: number }
  /** A piece of text to speak (a sentence or clause from the aggregator, a scripted line, a filler). */
  | { kind: 'speak'; turn: TurnId; text: string; source: SpeechSource; at: number }
  /** No more text for this turn (the TTS stream may flush and end). */
  | { kind: 'speak-end'; turn: TurnId; at: number }
  /** Synthesized audio as the TTS provider delivered it (any rate), with alignment when the vendor gives it. */
  | { kind: 'tts-audio'; turn: TurnId; samples: Int16Array; sampleRate: number; alignment?: TtsAlignment; at: number }
  /**
   * Text of audio a speech-to-speech model produces on its own, as it comes (no `speak` before
   * it): it extends the text of the piece being played, so what was heard can be told.
   */
  | { kind: 'tts-text'; turn: TurnId; text: string; at: number }
  /** All audio of the `speak` piece `text` has been delivered by the TTS provider. */
  | { kind: 'tts-spoken'; turn: TurnId; text: string; at: number }
  /** The TTS stream of this turn is complete. */
  | { kind: 'tts-done'; turn: TurnId; at: number }
  /** Audio handed to the leg (leg rate, 20 ms frames): the assistant's speech (with the ambient bed mixed in, when there is one). */
  | { kind: 'audio-out'; turn: TurnId; samples: Int16Array; at: number }
  /**
   * The ambient bed alone, handed to the leg while the assistant says nothing (leg rate, 20 ms):
   * what the caller hears, so the recorder keeps it, but not the assistant's speech — no floor,
   * no turn timing, no barge-in rule looks at it. `turn` is the current one, never its owner.
   */
  | { kind: 'ambient-out'; turn: TurnId; samples: Int16Array; at: number }
  /** A mark came back from the leg: the audio before it was played (`cleared` false) or dropped. */
  | { kind: 'playback-mark'; turn: TurnId; name: string; cleared: boolean; heardText: string; at: number }
  /** Everything queued for the turn has been played to the caller; `text` is what was heard. */
  | { kind: 'playback-done'; turn: TurnId; text: string; at: number }
  /**
   * The caller began speaking over the turn: its output stopped at once (the leg cleared), the
   * rest kept; `playback-resumed` follows when it was only a backchannel or a sound, else the
   * turn's `cancel` (src/voice/interruption.ts).
   */
  | { kind: 'playback-paused'; turn: TurnId; at: number }
  /** A paused turn plays on where it stopped (after `pausedMs`). */
  | { kind: 'playback-resumed'; turn: TurnId; pausedMs: number; at: number }
  /** A filler phrase is being said (while a tool runs or the LLM is slow). */
  | { kind: 'filler'; turn: TurnId; text: string; reason: FillerReason; at: number }

  // ── control ────────────────────────────────────────────────────────────────────────────────
  /**
   * The caller cut the assistant off; `heardText` is what the caller heard of the reply,
   * `heardMs` how much of its audio was played (a speech-to-speech model cuts its memory there).
   */
  | { kind: 'interruption'; turn: TurnId; heardText: string; heardMs?: number; at: number }
  /** The turn is cancelled: stages stop its work (LLM, TTS, playback) at once. */
  | { kind: 'cancel'; turn: TurnId; reason: CancelReason; at: number }
  /** The call is over (either side hung up); stages release what they hold. */
  | { kind: 'hang-up'; turn: TurnId; reason: string; remote: boolean; at: number }
  /** A stage failed; `fatal` ends the call. */
  | { kind: 'error'; turn: TurnId; stage: string; message: string; fatal: boolean; at: number };

export type FrameKind = Frame['kind'];
export type FrameOf<K extends FrameKind> = Extract<Frame, { kind: K }>;

/** Frames that concern the whole call or the turn's control: never dropped for a cancelled turn. */
const CONTROL: ReadonlySet<FrameKind> = new Set<FrameKind>([
  'cancel',
  'interruption',
  'hang-up',
  'error',
  'playback-mark',
  'playback-done',
  'playback-paused',
  'playback-resumed',
  // The bed belongs to the call, not to a turn.
  'ambient-out',
  // Caller-side frames describe the caller, not the cancelled reply: they always flow.
  'audio-in',
  'speech-started',
  'speech-stopped',
  'transcript',
  'utterance-end',
  'stt-turn',
  'turn-model',
  'customer-said',
  'end-of-turn',
  'dtmf',
  'turn-started',
]);

export function isControl(frame: Frame): boolean {
  return CONTROL.has(frame.kind);
}

/** Number of words in a transcript (what `min_interrupt_words` counts). */
export function wordCount(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/**
 * The assistant's turn-taking settings as the voice core uses them: how the 0–1 sensitivities
 * of the spec map to VAD thresholds and silence lengths. The tables are in docs/decisions.md.
 */
export type EndpointType = 'vad' | 'ai';

export interface TurnTakingSettings {
  endpointType: EndpointType;
  /** 0–1: higher ends the caller's turn after a shorter silence. */
  endpointSensitivity: number;
  /** 0–1: higher lets quieter or less certain speech cut the assistant off. */
  interruptSensitivity: number;
  allowInterruptions: boolean;
  /** 0 = off; else an interruption needs this many words in the caller's (interim) transcript. */
  minInterruptWords: number;
}

const clamp01 = (x: number) => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0.5);

/** VAD speech threshold while the caller has the floor (Silero's recommended default). */
export const SPEECH_THRESHOLD = 0.5;

/** Silence (ms) that ends the caller's turn: 1200 ms at sensitivity 0, 700 at 0.5, 200 at 1. */
export function endpointSilenceMs(sensitivity: number): number {
  return Math.round(1200 - 1000 * clamp01(sensitivity));
}

/** VAD threshold for barge-in while the assistant speaks: 0.9 at sensitivity 0, 0.6 at 0.5, 0.3 at 1. */
export function bargeInThreshold(sensitivity: number): number {
  return Math.round((0.9 - 0.6 * clamp01(sensitivity)) * 100) / 100;
}

/** Deepgram's `utterance_end_ms` (it takes 1000 at least) for a given endpoint silence. */
export function utteranceEndMs(endpointMs: number): number {
  return Math.max(1000, endpointMs + 300);
}

/**
 * Who holds the floor: the assistant from the start of one of its turns until its playback is
 * done or the turn is cancelled. Written by the stages that open and finish turns, read by
 * the ones that decide on interruptions and thresholds.
 */
export class Floor {
  private turn: number | null = null;

  assistantTakes(turn: number): void {
    this.turn = turn;
  }

  /** The assistant's turn `turn` is over (played out or cancelled). */
  assistantDone(turn: number): void {
    if (this.turn === turn) this.turn = null;
  }

  get assistantTurn(): number | null {
    return this.turn;
  }

  get assistantSpeaking(): boolean {
    return this.turn !== null;
  }
}
